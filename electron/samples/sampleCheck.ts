/**
 * Resolves sample files the way SPEC §3.2 describes, with shared/ only (parseSidecarLine,
 * TimelineBuilder, parseSnapshot, checkIntegrity, compareLogs), so the generator's tests can check
 * what a reader finds in what it wrote without depending on the file loader or the command line.
 */
import type { ChatMessage, Finding, Reduction, SidecarHeader, Timeline } from '../../shared/index';
import { TimelineBuilder, applyCap, checkIntegrity, compareLogs, hasReasoningArtifacts, isSnapshotValue, parseSidecarLine, parseSnapshot } from '../../shared/index';

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
  const findings: Finding[] = [];
  let header: SidecarHeader | undefined;
  let timeline: Timeline<ChatMessage> | undefined;

  if (files.sidecar !== undefined) {
    const builder = new TimelineBuilder<ChatMessage>(hasReasoningArtifacts);
    const text = files.sidecar;
    const lines = text.split('\n');
    const lastTerminated = text.endsWith('\n');
    if (lastTerminated) lines.pop();
    let stopped = false;
    for (let k = 0; k < lines.length; k++) {
      const parsed = parseSidecarLine(lines[k] ?? '', k + 1, k < lines.length - 1 || lastTerminated);
      if (!parsed.ok) {
        findings.push(parsed.finding);
        if (parsed.holeIndex !== undefined) builder.addHole(parsed.holeIndex);
        if (parsed.stop) {
          stopped = true;
          break;
        }
        continue;
      }
      const record = parsed.record;
      if (record.t === 'header') header = record;
      else builder.add(record, k + 1);
    }
    if (stopped) return { findings, minted: [], log: [] };
    timeline = builder.finish();
    for (const f of timeline.findings) findings.push(f);
  }

  let snapshotMessages: (ChatMessage | undefined)[] | undefined;
  let snapshotLog: Reduction[] | undefined;
  if (files.snapshot !== undefined) {
    const value: unknown = JSON.parse(files.snapshot);
    if (!isSnapshotValue(value)) throw new Error('not a session snapshot');
    const parsed = parseSnapshot(value);
    for (const f of parsed.findings) findings.push(f);
    if (!parsed.snapshot) return { findings, ...(header ? { header } : {}), minted: [], log: [] };
    snapshotMessages = parsed.snapshot.messages;
    snapshotLog = parsed.snapshot.reductions;
  }

  const minted = snapshotMessages ?? (timeline?.view ?? []).map((e) => (e ? (e.cap ? applyCap(e.value, e.cap) : e.value) : undefined));
  const recorded = timeline?.recorded.map((e) => e?.value);
  const log = snapshotLog ?? timeline?.log ?? [];
  findings.push(
    ...checkIntegrity({ minted, ...(recorded ? { recorded } : {}), log, ...(snapshotLog === undefined && timeline ? { logLines: timeline.logLines } : {}) }),
  );
  if (snapshotLog !== undefined && timeline) {
    const differs = compareLogs(snapshotLog, timeline.log);
    if (differs) findings.push(differs);
  }
  return { findings, ...(header ? { header } : {}), ...(timeline ? { timeline } : {}), minted, ...(recorded ? { recorded } : {}), log };
}
