/**
 * Issue 14: a generated session to follow, and what a followed session is compared on. The
 * session has every kind of record an appending writer leaves: a header, a system prompt, messages,
 * reductions, an invert, a rewind with a new timeline after it, a model change.
 */
import type { ChatMessage, LoadedSession, Reduction } from '../../shared/index';
import { projectView } from '../../shared/index';
import { assistant, makeReduction, tool, user } from '../../shared/testing/builders';
import { makeHeader, messageRecord, reductionRecord, sidecarText } from './files';

/** The records of a generated session of `turns` tool turns (each line a record, in writing order). */
export function liveSessionRecords(turns: number): object[] {
  return generate(turns).records;
}

/** How many messages the view of the generated session holds at its end (the next message's index). */
export function liveSessionViewLength(turns: number): number {
  return generate(turns).viewLength;
}

function generate(turns: number): { records: object[]; viewLength: number } {
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

export function liveSessionText(turns: number): string {
  return sidecarText(liveSessionRecords(turns));
}

/** What a followed session is compared on with a fresh open: rows, log, findings, calls, files. */
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
    files: session.files,
    model: session.model,
  };
}
