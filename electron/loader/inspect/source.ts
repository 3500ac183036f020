/**
 * An Inspect AI log as a source: a `.eval` archive or a `.json` document, one of whose samples is
 * the session (`--session <id>_epoch_<n>`, default the first in id order). A log is written whole
 * (or journaled into the archive): there is nothing to tail, so the first pass reads it all and
 * closes the file.
 *
 * `.eval`: the central directory is listed (entry names give every sample's session id without
 * inflating it); only the header (`header.json`, else `_journal/start.json`), the summaries
 * (`summaries.json`, else `_journal/summaries/*.json`: titles, and what each summary records of its
 * sample — message_count, scores, models, tokens, error or limit: `recorded`) and the chosen sample
 * are inflated at the open. The other samples are listed `counting: 'pending'` (`messages: 0`): a
 * log's summaries hold no message counts. `countSessions` counts them later, one sample inflated
 * and parsed at a time (SampleCounter; the archive stays open until then): `check` before it
 * reports, the app in the background after the open.
 */
import { arrayList } from '../../../shared/resolver/session';
import type { RecordedSample, SessionEntry } from '../../../shared/resolver/session';
import type { ChatMessage, Finding } from '../../../shared/format/types';
import type { IndexPass, IndexStop, OpenFile, SourceIndex } from '../common/source';
import { WholeFileSource } from '../common/wholeFileSource';
import { buildSample, sampleMessageCount, sampleSessionId, titleOf } from './build';
import type { BuiltSample } from './build';
import { depthCutMessage } from '../../../shared/format/jsonDepth';
import { isPlainObject, parseCappedJson } from '../common/json';
import type { InflateBudget, OpenedZip, ZipCaps, ZipCounter, ZipEntry } from './zip';
import { DEFAULT_ZIP_CAPS, closeZip, listZip, readZipEntry } from './zip';
import { recordedOf } from './summaries';

type Obj = Record<string, unknown>;

/** What a log yields: the chosen sample built, every sample listed, the log's own findings. */
export interface InspectLoad {
  sessionId: string;
  model: string | null;
  built: BuiltSample | undefined;
  sessions: SessionEntry[];
  findings: Finding[];
  /** The samples listed `counting: 'pending'`, and the open archive to count them from; absent when every sample is counted. */
  uncounted?: SampleCounter;
}

const SAMPLE_ENTRY = /^samples\/(.+)_epoch_(\d+)\.json$/;

/** Natural order of session ids (`2_epoch_1` before `10_epoch_1`). */
export const bySessionId = (a: string, b: string): number => (naturalOrder ??= new Intl.Collator('en', { numeric: true })).compare(a, b);
/** Made once: `localeCompare` with options builds a collator at every call (most of a 500-sample sort). */
let naturalOrder: Intl.Collator | undefined;

/** Builds the chosen sample of a list of parsed samples (a `.json` log), listing them all. */
export function loadJsonLog(doc: Obj, session: string | undefined, findings: Finding[]): InspectLoad {
  const samples = Array.isArray(doc.samples) ? doc.samples.filter(isPlainObject) : [];
  if (doc.samples !== undefined && !Array.isArray(doc.samples)) findings.push({ code: 'malformed_line', severity: 'error', line: 1, message: 'the log\'s "samples" is not a list; no sample is read' });
  const withIds = samples.map((s, k) => ({ id: sampleSessionId(s) ?? `sample_${k}`, s })).sort((a, b) => bySessionId(a.id, b.id));
  const chosen = session ? withIds.find((x) => x.id === session) : withIds[0];
  const built = chosen ? buildSample(chosen.s, `sample ${chosen.id}`, true, inspectVersionOf(doc)) : undefined;
  const sessions = withIds.map((x) => ({ id: x.id, ...titled(titleOf(x.s.input)), messages: x === chosen && built ? built.view.length : Array.isArray(x.s.messages) ? x.s.messages.length : 0 }));
  return { sessionId: chosen?.id ?? '', model: built?.model ?? modelOfHeader(doc), built, sessions, findings };
}

const titled = (t: string | undefined): { title?: string } => (t !== undefined ? { title: t } : {});

/** The Inspect version that wrote the log (`eval.packages.inspect_ai`), when it says. */
function inspectVersionOf(header: unknown): string | undefined {
  const packages = isPlainObject(header) && isPlainObject(header.eval) && isPlainObject(header.eval.packages) ? header.eval.packages : undefined;
  return typeof packages?.inspect_ai === 'string' ? packages.inspect_ai : undefined;
}

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

/** Reads a `.eval` archive's chosen sample and lists the others from entry names; `onHeader` is told the header document once parsed. Never rejects. */
export async function loadEvalLog(fd: number, size: number, session: string | undefined, caps: ZipCaps = DEFAULT_ZIP_CAPS, counter?: ZipCounter, onHeader?: (doc: unknown) => void): Promise<InspectLoad> {
  const findings: Finding[] = [];
  const empty: InspectLoad = { sessionId: '', model: null, built: undefined, sessions: [], findings };
  const opened = await listZip(fd, size, counter, caps);
  if ('error' in opened) {
    findings.push({ code: 'malformed_line', severity: 'error', message: `the .eval archive cannot be opened (${opened.error}); nothing is shown` });
    return empty;
  }
  let load: InspectLoad | undefined;
  try {
    for (const f of opened.findings) findings.push(f);
    load = await loadOpened(opened, size, session, caps, counter, findings, onHeader);
    return load;
  } finally {
    // Kept open for the samples still to count; the counter closes it.
    if (!load?.uncounted) closeZip(opened);
  }
}

async function loadOpened(opened: OpenedZip, size: number, session: string | undefined, caps: ZipCaps, counter: ZipCounter | undefined, findings: Finding[], onHeader?: (doc: unknown) => void): Promise<InspectLoad> {
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
  if (header !== undefined) onHeader?.(header);
  if (!headerEntry) findings.push({ code: 'unknown_record', severity: 'warning', message: 'the archive has neither header.json nor _journal/start.json; the model is not known from the header' });
  const titles = new Map<string, string>();
  const recorded = new Map<string, RecordedSample>();
  const summaryEntries = byName.has('summaries.json') ? [byName.get('summaries.json') as ZipEntry] : opened.entries.filter((e) => /^_journal\/summaries\/[^/]+\.json$/.test(e.name));
  for (const e of summaryEntries) {
    const list = await read(e);
    if (!Array.isArray(list)) continue;
    for (const s of list) {
      if (!isPlainObject(s)) continue;
      const id = sampleSessionId(s);
      const t = titleOf(s.input);
      if (id !== undefined && t !== undefined) titles.set(id, t);
      const r = id !== undefined ? recordedOf(s) : undefined;
      if (id !== undefined && r) recorded.set(id, r);
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
    if (isPlainObject(doc)) built = buildSample(doc, `sample ${chosen.id}`, refersAttachments, inspectVersionOf(header));
    else if (doc !== undefined) findings.push({ code: 'malformed_line', severity: 'error', message: `archive entry ${chosen.e.name} is not a JSON object; the sample is not shown` });
    if (built && isPlainObject(doc)) {
      const t = titleOf(doc.input);
      if (t !== undefined) titles.set(chosen.id, t);
    }
  }
  if (samples.length === 0) findings.push({ code: 'unknown_record', severity: 'warning', message: 'the log holds no samples' });
  // The chosen sample is counted by its build (or failed with a finding); the others are counted later.
  const countOf = (s: (typeof samples)[number]): Pick<SessionEntry, 'messages' | 'counting'> => (s !== chosen ? { messages: 0, counting: 'pending' } : built ? { messages: built.view.length } : { messages: 0, counting: 'failed' });
  const sessions: SessionEntry[] = samples.map((s) => {
    const r = recorded.get(s.id);
    return { id: s.id, ...titled(titles.get(s.id)), ...countOf(s), ...(r ? { recorded: r } : {}) };
  });
  const pending = samples.flatMap((s, at) => (s === chosen ? [] : [{ e: s.e, at }]));
  const budget: InflateBudget = { inflated: 0, max: Math.max(caps.maxTotalBytes, caps.maxCountedRatio * size), what: 'the samples counted in this archive' };
  const uncounted = pending.length > 0 ? new SampleCounter(opened, pending, sessions, caps, counter, budget) : undefined;
  return { sessionId: chosen?.id ?? '', model: built?.model ?? modelOfHeader(header), built, sessions, findings, ...(uncounted ? { uncounted } : {}) };
}

/**
 * Counts the samples of an open `.eval` that the open did not read: each is inflated, parsed,
 * counted (`sampleMessageCount`: what it shows when opened) and dropped before the next, so one
 * sample is held at a time; their bytes together stay under the budget (ZipCaps.maxCountedRatio).
 * Each count replaces its entry of `sessions` (the list the source's index holds). A sample that
 * cannot be read or parsed is a finding and `counting: 'failed'`. The archive is closed once every
 * sample is counted or `close` is called (after the read in flight, if any).
 */
export class SampleCounter {
  private running: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(
    private readonly opened: OpenedZip,
    private readonly pending: { e: ZipEntry; at: number }[],
    private readonly sessions: SessionEntry[],
    private readonly caps: ZipCaps,
    private readonly counter: ZipCounter | undefined,
    private readonly budget: InflateBudget,
  ) {}

  /** True while some sample is still to count. */
  get open(): boolean {
    return !this.closed && this.pending.length > 0;
  }

  /**
   * Counts the pending samples in turn, `onCounted` after each; stops early when `signal` is
   * aborted, `changed()` says why the file is no longer the one opened (the rest then fail), or the
   * counter is closed. Answers the findings of the samples that failed. Never rejects.
   */
  count(onCounted: () => void, signal: { readonly aborted: boolean }, changed: () => string | undefined): Promise<Finding[]> {
    const run = this.running.then(() => this.countPending(onCounted, signal, changed));
    this.running = run.then(
      () => undefined,
      () => undefined,
    );
    return run.catch((e: unknown) => [{ code: 'malformed_line' as const, severity: 'error' as const, message: `the log's samples cannot be counted: ${e instanceof Error ? e.message : String(e)}` }]);
  }

  /** Stops counting; resolves once no read is in flight (the descriptor may then be closed). */
  close(): Promise<void> {
    this.closed = true;
    return this.running.then(() => closeZip(this.opened));
  }

  private async countPending(onCounted: () => void, signal: { readonly aborted: boolean }, changed: () => string | undefined): Promise<Finding[]> {
    const findings: Finding[] = [];
    const fail = (at: number, message: string): void => {
      findings.push({ code: 'malformed_line', severity: 'error', message });
      this.sessions[at] = { ...(this.sessions[at] as SessionEntry), messages: 0, counting: 'failed' };
    };
    while (this.pending.length > 0 && !this.closed && !signal.aborted) {
      const { e, at } = this.pending[0] as { e: ZipEntry; at: number };
      const why = changed();
      if (why !== undefined) {
        for (const p of this.pending.splice(0)) fail(p.at, `archive entry ${p.e.name}: its messages are not counted: the log ${why}`);
        break;
      }
      const got = await readZipEntry(this.opened, e, this.caps, this.counter, this.budget);
      if (this.closed) break;
      this.pending.shift();
      if ('error' in got) fail(at, `${got.error}; its messages are not counted`);
      else {
        const parsed = parseCappedJson(got.bytes.toString('utf8'));
        if (!parsed.ok || !isPlainObject(parsed.value)) fail(at, `archive entry ${e.name} is not a JSON object${parsed.ok ? '' : ` (${parsed.reason})`}; its messages are not counted`);
        else {
          const { counting: _was, ...entry } = this.sessions[at] as SessionEntry;
          this.sessions[at] = { ...entry, messages: sampleMessageCount(parsed.value) };
        }
      }
      onCounted();
    }
    if (this.pending.length === 0) closeZip(this.opened);
    return findings;
  }
}

/**
 * A log read whole, asynchronously (the archive is streamed): the load runs at the first pass, then
 * WholeFileSource serves it. A `.eval` whose other samples are still to count keeps its descriptor
 * open until they are (countSessions) or the source is closed.
 */
export class InspectSource extends WholeFileSource {
  private loaded: SourceIndex | undefined;
  private counter: SampleCounter | undefined;

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
      this.counter = loaded.uncounted;
    }
    return super.indexTo(end, pass);
  }

  protected override keepsFileOpen(): boolean {
    return this.counter?.open === true;
  }

  /** SessionSource.countSessions: the samples the open did not read, one at a time; the descriptor is closed once all are counted. */
  async countSessions(onCounted: () => void, signal: { readonly aborted: boolean }): Promise<void> {
    const counter = this.counter;
    if (!counter?.open) return;
    const findings = await counter.count(onCounted, signal, () => this.file.guard.change(true));
    // The index's own list: a load that counts before it resolves the session reports them (check).
    this.loaded?.records?.findings.push(...findings);
    if (!counter.open && this.counter === counter) this.close();
  }

  override close(): void {
    const counter = this.counter;
    this.counter = undefined;
    // The descriptor is closed after the read in flight, never under it (its number may be reused).
    if (counter) void counter.close().then(() => super.close());
    else super.close();
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
      ...(built?.usage ? { usage: built.usage } : {}),
      ...(built?.requests ? { requests: built.requests } : {}),
    },
    snapshot: { session_id: loaded.sessionId, model: loaded.model ?? '', messages: view, findings: [], ...(loaded.sessions.length > 0 ? { sessions: loaded.sessions } : {}) },
  };
}
