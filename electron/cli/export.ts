/**
 * SPEC §16 `export`: one command that dispatches on `--as`. The provider requests
 * (`--call N --as anthropic|openai-chat|openai-responses`, docs/export.md "Provider requests")
 * are here; each other kind of export is one row of EXPORTS. main.ts loads this module only when
 * `export` runs (scripts/build.mjs bundles it as dist/cli-export.cjs).
 */
import type { Provider } from '../../shared/export/request';
import { PROVIDERS } from '../../shared/export/request';
import { callRequest } from '../../shared/export/callRequest';
import type { LoadOptions } from '../loader/session';
import { FileChangedError } from '../loader/session';
import { CliError, terminalSentence, usageError } from './errors';
import type { CliIo, ParsedFlags } from './output';
import { EXIT_OK, writeJson } from './output';
import { openExportSession } from './exportSession';
import { runExportDocument } from './exportDocument';

/** One kind of export: what `--as` names. */
type Exporter = (parsed: ParsedFlags, io: CliIo, loadOptions: LoadOptions) => Promise<number>;

/** `--call N` as given, checked before any file is read. */
function parseCall(flags: ReadonlyMap<string, string | true>): number | undefined {
  const v = flags.get('call');
  if (typeof v !== 'string') return undefined;
  if (!/^\d+$/.test(v) || !Number.isSafeInteger(Number(v)) || Number(v) < 1) throw usageError(`--call must be a model call number (1, 2, …), not ${JSON.stringify(v)}`);
  return Number(v);
}

/** A provider request; `provider` undefined: the one the session's agent speaks. */
async function providerRequest(provider: Provider | undefined, { flags, files }: ParsedFlags, io: CliIo, loadOptions: LoadOptions): Promise<number> {
  const call = parseCall(flags);
  if (call === undefined) throw usageError(`export ${provider === undefined ? '' : `--as ${provider} `}needs --call N: the model call whose input to export`);
  for (const f of ['redact', 'calls', 'out']) if (flags.has(f)) throw usageError(`--${f} is for --as markdown or html, not for a provider request`);
  const session = await openExportSession(files, flags, loadOptions);
  try {
    const before = session.fileChange();
    if (before) throw new CliError('file_changed', before.message);
    let out;
    try {
      out = callRequest(session, call, provider, flags.has('expanded'));
    } catch (e) {
      if (e instanceof FileChangedError) throw new CliError('file_changed', e.message);
      throw e;
    }
    const after = session.fileChange();
    if (after) throw new CliError('file_changed', after.message);
    const calls = session.calls.length;
    if (!out) throw usageError(calls === 0 ? `--call ${call}: the session has no model calls (no assistant message)` : `--call ${call} is out of range: the session's model calls are 1 to ${calls}`);
    for (const what of out.not_recorded) io.stderr(`session-inspector: ${terminalSentence(`not recorded, left out: ${what}`)}\n`);
    for (const what of out.adjusted ?? []) io.stderr(`session-inspector: ${terminalSentence(`adjusted: ${what}`)}\n`);
    for (const what of out.notes ?? []) io.stderr(`session-inspector: ${terminalSentence(what)}\n`);
    // In pieces (writeJson): with --expanded, a compaction's original of some 100 MB is one of its texts.
    writeJson(flags.has('with-notes') ? { request: out.request, not_recorded: out.not_recorded, ...(out.adjusted ? { adjusted: out.adjusted } : {}), ...(out.notes ? { notes: out.notes } : {}), source: { ...out.source, files } } : out.request, (text) => io.stdout(text));
    return EXIT_OK;
  } finally {
    session.close();
  }
}

/** What `--as` names: each provider, and (one row each) the document exports. */
const EXPORTS: Readonly<Record<string, Exporter>> = {
  ...Object.fromEntries(PROVIDERS.map((p) => [p, (parsed: ParsedFlags, io: CliIo, loadOptions: LoadOptions) => providerRequest(p, parsed, io, loadOptions)])),
  markdown: (parsed, io, loadOptions) => runExportDocument('markdown', parsed, io, loadOptions),
  html: (parsed, io, loadOptions) => runExportDocument('html', parsed, io, loadOptions),
};

export async function runExport(parsed: ParsedFlags, io: CliIo, loadOptions: LoadOptions): Promise<number> {
  const as = parsed.flags.get('as');
  if (as === undefined) return providerRequest(undefined, parsed, io, loadOptions);
  if (typeof as !== 'string') throw usageError('--as needs a value');
  const exporter = Object.prototype.hasOwnProperty.call(EXPORTS, as) ? EXPORTS[as] : undefined;
  if (!exporter) throw usageError(`--as must be one of ${Object.keys(EXPORTS).join(', ')}, not ${JSON.stringify(as)}`);
  return exporter(parsed, io, loadOptions);
}
