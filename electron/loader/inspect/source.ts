/**
 * An Inspect AI log as a source: a `.eval` archive or a `.json` document, one of whose samples is
 * the session (`--session <id>_epoch_<n>`, default the first in id order). A log is written whole
 * (or journaled into the archive): there is nothing to tail, so the first pass reads it all and
 * closes the file.
 *
 * `.eval`: the central directory is listed (entry names give every sample's session id without
 * inflating it); only the header (`header.json`, else `_journal/start.json`), the summaries
 * (`summaries.json`, else `_journal/summaries/*.json`, for titles) and the chosen sample are
 * inflated. A sample not read lists `messages: 0`.
 */
import { arrayList } from '../../../shared/session';
import type { SessionEntry } from '../../../shared/session';
import type { ChatMessage, Finding } from '../../../shared/types';
import type { IndexPass, IndexStop, OpenFile, SourceIndex } from '../source';
import { WholeFileSource } from '../wholeFileSource';
import { buildSample, sampleSessionId, titleOf } from './build';
import type { BuiltSample } from './build';
import { depthCutMessage } from '../../../shared/jsonDepth';
import { isPlainObject, parseCappedJson } from '../native/text';
import type { OpenedZip, ZipCaps, ZipCounter, ZipEntry } from './zip';
import { DEFAULT_ZIP_CAPS, closeZip, listZip, readZipEntry } from './zip';

type Obj = Record<string, unknown>;

/** What a log yields: the chosen sample built, every sample listed, the log's own findings. */
export interface InspectLoad {
  sessionId: string;
  model: string | null;
  built: BuiltSample | undefined;
  sessions: SessionEntry[];
  findings: Finding[];
}

const SAMPLE_ENTRY = /^samples\/(.+)_epoch_(\d+)\.json$/;

/** Natural order of session ids (`2_epoch_1` before `10_epoch_1`). */
export const bySessionId = (a: string, b: string): number => a.localeCompare(b, 'en', { numeric: true });

/** Builds the chosen sample of a list of parsed samples (a `.json` log), listing them all. */
export function loadJsonLog(doc: Obj, session: string | undefined, findings: Finding[]): InspectLoad {
  const samples = Array.isArray(doc.samples) ? doc.samples.filter(isPlainObject) : [];
  if (doc.samples !== undefined && !Array.isArray(doc.samples)) findings.push({ code: 'malformed_line', severity: 'error', line: 1, message: 'the log\'s "samples" is not a list; no sample is read' });
  const withIds = samples.map((s, k) => ({ id: sampleSessionId(s) ?? `sample_${k}`, s })).sort((a, b) => bySessionId(a.id, b.id));
  const chosen = session ? withIds.find((x) => x.id === session) : withIds[0];
  const built = chosen ? buildSample(chosen.s, `sample ${chosen.id}`) : undefined;
  const sessions = withIds.map((x) => ({ id: x.id, ...titled(titleOf(x.s.input)), messages: x === chosen && built ? built.view.length : Array.isArray(x.s.messages) ? x.s.messages.length : 0 }));
  return { sessionId: chosen?.id ?? '', model: built?.model ?? modelOfHeader(doc), built, sessions, findings };
}

const titled = (t: string | undefined): { title?: string } => (t !== undefined ? { title: t } : {});

function modelOfHeader(header: unknown): string | null {
  if (!isPlainObject(header) || !isPlainObject(header.eval)) return null;
  return typeof header.eval.model === 'string' ? header.eval.model : null;
}

function parseEntry(bytes: Buffer, name: string, findings: Finding[]): unknown {
  const parsed = parseCappedJson(bytes.toString('utf8'));
  if (!parsed.ok) {
    findings.push({ code: 'malformed_line', severity: 'error', message: `archive entry ${name} is not JSON (${parsed.reason})` });
    return undefined;
  }
  if (parsed.cut) findings.push({ code: 'malformed_line', severity: 'error', message: depthCutMessage(`archive entry ${name}`, parsed.cut) });
  return parsed.value;
}

/** Reads a `.eval` archive's chosen sample and lists the others from entry names. Never rejects. */
export async function loadEvalLog(fd: number, size: number, session: string | undefined, caps: ZipCaps = DEFAULT_ZIP_CAPS, counter?: ZipCounter): Promise<InspectLoad> {
  const findings: Finding[] = [];
  const empty: InspectLoad = { sessionId: '', model: null, built: undefined, sessions: [], findings };
  const opened = await listZip(fd, size, counter, caps);
  if ('error' in opened) {
    findings.push({ code: 'malformed_line', severity: 'error', message: `the .eval archive cannot be opened (${opened.error}); nothing is shown` });
    return empty;
  }
  try {
    for (const f of opened.findings) findings.push(f);
    return await loadOpened(opened, session, caps, counter, findings);
  } finally {
    closeZip(opened);
  }
}

async function loadOpened(opened: OpenedZip, session: string | undefined, caps: ZipCaps, counter: ZipCounter | undefined, findings: Finding[]): Promise<InspectLoad> {
  const byName = new Map(opened.entries.map((e) => [e.name, e]));
  let refersAttachments = true;
  const read = async (e: ZipEntry): Promise<unknown> => {
    const got = await readZipEntry(opened, e, caps, counter);
    if ('error' in got) {
      findings.push({ code: 'malformed_line', severity: 'error', message: got.error });
      return undefined;
    }
    refersAttachments = got.bytes.includes('attachment://');
    return parseEntry(got.bytes, e.name, findings);
  };
  const headerEntry = byName.get('header.json') ?? byName.get('_journal/start.json');
  const header = headerEntry ? await read(headerEntry) : undefined;
  if (!headerEntry) findings.push({ code: 'unknown_record', severity: 'warning', message: 'the archive has neither header.json nor _journal/start.json; the model is not known from the header' });
  const titles = new Map<string, string>();
  const summaryEntries = byName.has('summaries.json') ? [byName.get('summaries.json') as ZipEntry] : opened.entries.filter((e) => /^_journal\/summaries\/[^/]+\.json$/.test(e.name));
  for (const e of summaryEntries) {
    const list = await read(e);
    if (!Array.isArray(list)) continue;
    for (const s of list) {
      if (!isPlainObject(s)) continue;
      const id = sampleSessionId(s);
      const t = titleOf(s.input);
      if (id !== undefined && t !== undefined) titles.set(id, t);
    }
  }
  const samples = opened.entries
    .map((e) => ({ e, m: SAMPLE_ENTRY.exec(e.name) }))
    .filter((x): x is { e: ZipEntry; m: RegExpExecArray } => x.m !== null)
    .map(({ e, m }) => ({ e, id: `${m[1]}_epoch_${m[2]}` }))
    .sort((a, b) => bySessionId(a.id, b.id));
  const chosen = session ? samples.find((s) => s.id === session) : samples[0];
  let built: BuiltSample | undefined;
  if (chosen) {
    const doc = await read(chosen.e);
    if (isPlainObject(doc)) built = buildSample(doc, `sample ${chosen.id}`, refersAttachments);
    else if (doc !== undefined) findings.push({ code: 'malformed_line', severity: 'error', message: `archive entry ${chosen.e.name} is not a JSON object; the sample is not shown` });
    if (built && isPlainObject(doc)) {
      const t = titleOf(doc.input);
      if (t !== undefined) titles.set(chosen.id, t);
    }
  }
  if (samples.length === 0) findings.push({ code: 'unknown_record', severity: 'warning', message: 'the log holds no samples' });
  const sessions = samples.map((s) => ({ id: s.id, ...titled(titles.get(s.id)), messages: s === chosen && built ? built.view.length : 0 }));
  return { sessionId: chosen?.id ?? '', model: built?.model ?? modelOfHeader(header), built, sessions, findings };
}

/** A log read whole, asynchronously (the archive is streamed): the load runs at the first pass, then WholeFileSource serves it. */
export class InspectSource extends WholeFileSource {
  private loaded: SourceIndex | undefined;

  constructor(
    readonly format: 'inspect-eval' | 'inspect-json',
    file: OpenFile,
    private readonly load: () => Promise<InspectLoad>,
  ) {
    super(file);
  }

  override async indexTo(end: number, pass: IndexPass): Promise<IndexStop> {
    if (!this.loaded) {
      let loaded: InspectLoad;
      try {
        loaded = await this.load();
      } catch (e) {
        // Never out of the loader: whatever escaped the reader is a finding.
        loaded = { sessionId: '', model: null, built: undefined, sessions: [], findings: [{ code: 'malformed_line', severity: 'error', message: `the log cannot be read: ${(e as Error).message}` }] };
      }
      this.loaded = indexOf(loaded);
    }
    return super.indexTo(end, pass);
  }

  protected parseWhole(): SourceIndex {
    return this.loaded ?? {};
  }
}

function indexOf(loaded: InspectLoad): SourceIndex {
  const built = loaded.built;
  const findings = [...loaded.findings, ...(built?.findings ?? [])];
  const messages: ChatMessage[] = built?.view ?? [];
  const view = arrayList(messages);
  return {
    records: {
      header: null,
      view,
      recorded: view,
      log: built?.log ?? [],
      logLines: built?.logLines ?? [],
      messageLines: built?.messageLines ?? [],
      modelChanges: [],
      findings,
      system: () => undefined,
    },
    snapshot: { session_id: loaded.sessionId, model: loaded.model ?? '', messages: view, findings: [], ...(loaded.sessions.length > 0 ? { sessions: loaded.sessions } : {}) },
  };
}
