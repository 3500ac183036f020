/**
 * A generated session to follow, and what a followed session is compared on. The
 * session has every kind of record an appending writer leaves: a header, a system prompt, messages,
 * reductions, an invert, a rewind with a new timeline after it, a model change.
 */
import type { ChatMessage, LoadedSession, Reduction } from '../../shared/index';
import { projectView } from '../../shared/index';
import { assistant, makeReduction, tool, user } from '../../shared/testing/builders';
import { makeHeader, messageRecord, reductionRecord, sidecarText } from './files';

/** The records of a generated session of `turns` tool turns (each line a record, in writing order). */
export function liveSessionRecords(turns: number, options: LiveSessionOptions = {}): object[] {
  return generate(turns, options).records;
}

/**
 * Records an incremental resolve must not get wrong — each step then also logs a
 * reduction of an earlier message (the first tool output), and every fourth re-records an earlier
 * index with the other role (the calls change below the end of the view).
 */
export interface LiveSessionOptions {
  revisions?: boolean;
}

/** How many messages the view of the generated session holds at its end (the next message's index). */
export function liveSessionViewLength(turns: number): number {
  return generate(turns).viewLength;
}

function generate(turns: number, options: LiveSessionOptions = {}): { records: object[]; viewLength: number } {
  const records: object[] = [makeHeader({ session_id: 's-live' }), { t: 'system', msg: { role: 'system', content: 'You are a coding agent.' } }];
  // The system prompt is its own record, not a view index.
  const view: ChatMessage[] = [];
  const push = (m: ChatMessage) => {
    records.push(messageRecord(view.length, m));
    view.push(m);
  };
  push(user('fix the build'));
  for (let k = 0; k < turns; k++) {
    push(assistant(`running step ${k}`, `call_${k}`));
    push(tool(`output of step ${k}\n${'PASS test/unit/case.test.ts\n'.repeat(3 + (k % 5))}`, `call_${k}`));
    const index = view.length - 1;
    if (k % 3 === 1) records.push(reductionRecord(makeReduction(view, { id: `e${k}`, kind: 'tool_output_elided', index })));
    if (k % 3 === 2) records.push(reductionRecord(makeReduction(view, { id: `t${k}`, kind: 'tool_output_truncated', index, kept_bytes: 12 })));
    if (k === 4) records.push({ t: 'invert', id: 'e4' });
    if (k === 6) records.push({ t: 'model_change', at: view.length, from: 'model-a', to: 'model-b', reasoning_artifacts_filtered: 0 });
    if (options.revisions && view.length > 3) {
      records.push(reductionRecord(makeReduction(view, { id: `early${k}`, kind: 'tool_output_truncated', index: 2, kept_bytes: 4 + k })));
      if (k % 4 === 3) {
        const i = 1 + (k % (view.length - 2));
        const again = view[i]?.role === 'assistant' ? user(`said again at step ${k}`) : assistant(`said again at step ${k}`, `again_${k}`);
        records.push(messageRecord(i, again));
        view[i] = again;
      }
    }
    if (k === 8) {
      // Back to before step 7's reduction: the next messages are a new timeline.
      const to = view.length - 4;
      records.push({ t: 'rewind', to });
      view.length = to;
    }
  }
  push(assistant('the build passes now'));
  return { records, viewLength: view.length };
}

export function liveSessionText(turns: number, options: LiveSessionOptions = {}): string {
  return sidecarText(liveSessionRecords(turns, options));
}

/** What a followed session is compared on with a fresh open: rows, log, findings, calls and spans, rewinds, files. */
export function sessionState(session: LoadedSession): unknown {
  const rows = projectView(session.minted, session.log).map((r) => ({ index: r.index, end: r.end, text: r.text, applied: r.applied }));
  const log: Reduction[] = [...session.log];
  return {
    rows,
    log,
    logLines: session.logLines ? [...session.logLines] : undefined,
    loadFindings: session.loadFindings,
    check: session.check(),
    calls: session.calls,
    spans: session.callTimeline.spans.map((s) => ({ id: s.reduction.id, from: s.from, to: s.to, ended: s.ended })),
    rewinds: session.rewinds.map((r) => ({ line: r.line, to: r.to, abandoned: Array.from({ length: r.abandoned.length }, (_, k) => r.abandoned.at(k)?.content) })),
    files: session.files,
    model: session.model,
  };
}
