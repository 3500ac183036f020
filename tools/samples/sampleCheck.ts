/**
 * Resolves sample files the way SPEC §3.2 describes, with shared/ only: a minimal in-memory index
 * of the sidecar's lines (parseSidecarLine, TimelineBuilder) and of the snapshot (parseSnapshot),
 * then the one session model the loader uses (resolveSession, makeSession's check), so the
 * generator's tests check what a reader finds in what it wrote without the file loader.
 */
import type { ChatMessage, Finding, IndexedRecords, IndexedSnapshot, MessageList, Reduction, SidecarHeader, Timeline } from '../../shared/index';
import { TimelineBuilder, applyCap, arrayList, hasReasoningArtifacts, isSnapshotValue, makeSession, parseSidecarLine, parseSnapshot, resolveSession } from '../../shared/index';

export interface InspectedSample {
  findings: Finding[];
  header?: SidecarHeader;
  timeline?: Timeline<ChatMessage>;
  /** The minted view: the snapshot's messages, else the sidecar's current timeline with caps applied. */
  minted: (ChatMessage | undefined)[];
  /** The last `message` record per index (absent without a sidecar). */
  recorded?: (ChatMessage | undefined)[];
  /** The snapshot's reductions when it has them, else the sidecar's live log. */
  log: Reduction[];
}

export function inspectSample(files: { sidecar?: string; snapshot?: string }): InspectedSample {
  const stopped: Finding[] = [];
  let header: SidecarHeader | undefined;
  let timeline: Timeline<ChatMessage> | undefined;
  let records: IndexedRecords | undefined;
  let snapshot: IndexedSnapshot | undefined;

  if (files.sidecar !== undefined) {
    const findings: Finding[] = [];
    const builder = new TimelineBuilder<ChatMessage>(hasReasoningArtifacts);
    const text = files.sidecar;
    const lines = text.split('\n');
    const lastTerminated = text.endsWith('\n');
    if (lastTerminated) lines.pop();
    for (let k = 0; k < lines.length; k++) {
      const parsed = parseSidecarLine(lines[k] ?? '', k + 1, k < lines.length - 1 || lastTerminated);
      if (!parsed.ok) {
        findings.push(parsed.finding);
        if (parsed.holeIndex !== undefined) builder.addHole(parsed.holeIndex);
        if (parsed.stop) {
          stopped.push(...findings);
          break;
        }
        continue;
      }
      const record = parsed.record;
      if (record.t === 'header') header = record;
      else builder.add(record, k + 1);
    }
    if (stopped.length > 0) return { findings: stopped, minted: [], log: [] };
    const t = builder.finish();
    timeline = t;
    records = {
      header: header ?? null,
      view: arrayList(t.view.map((e) => (e ? (e.cap ? applyCap(e.value, e.cap) : e.value) : undefined))),
      recorded: arrayList(t.recorded.map((e) => e?.value)),
      log: t.log,
      logLines: t.logLines,
      modelChanges: t.modelChanges,
      findings: [...findings, ...t.findings],
      system: () => t.system?.value,
    };
  }

  if (files.snapshot !== undefined) {
    const value: unknown = JSON.parse(files.snapshot);
    if (!isSnapshotValue(value)) throw new Error('not a session snapshot');
    const parsed = parseSnapshot(value);
    if (!parsed.snapshot) return { findings: [...(records?.findings ?? []), ...parsed.findings], ...(header ? { header } : {}), minted: [], log: [] };
    const snap = parsed.snapshot;
    snapshot = { session_id: snap.session_id, model: snap.model, messages: arrayList(snap.messages), ...(snap.reductions ? { reductions: snap.reductions } : {}), findings: parsed.findings };
  }

  const model = resolveSession({ files: [], ...(records ? { records } : {}), ...(snapshot ? { snapshot } : {}) });
  const { findings } = makeSession(model).check();
  return {
    findings,
    ...(header ? { header } : {}),
    ...(timeline ? { timeline } : {}),
    minted: toArray(model.minted),
    ...(model.recorded ? { recorded: toArray(model.recorded) } : {}),
    log: [...model.log],
  };
}

function toArray(list: MessageList): (ChatMessage | undefined)[] {
  return Array.from({ length: list.length }, (_, i) => list.at(i));
}
