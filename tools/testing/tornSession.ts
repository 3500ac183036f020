/** A session of 20 tool outputs, each elided, whose record of message 3 is torn. */
import type { ChatMessage, Reduction } from '../../shared/index';
import { makeReduction, tool } from '../../shared/testing/builders';
import { makeHeader, messageRecord, reductionRecord } from './files';

export const TORN_INDEX = 3;
export const TORN_MESSAGES = 20;

export const tornView: ChatMessage[] = Array.from({ length: TORN_MESSAGES }, (_, i) => tool(`output of run ${i}\n${'ok '.repeat(20 + i)}\n`, `call_${i}`));
export const tornLog: Reduction[] = tornView.map((_, i) => makeReduction(tornView, { id: `r${i}`, kind: 'tool_output_elided', index: i }));

/**
 * The sidecar's lines (header first), the record of message 3 replaced by what `tear` makes of
 * its JSON; a string `tear` returns may hold a newline, or the next record's JSON, as a writer
 * that crashed mid-append would have left them. The reductions follow the messages.
 */
export function tornSidecarText(tear: (record: string, next: string) => { line: string; consumesNext?: boolean }): string {
  const lines: string[] = [JSON.stringify(makeHeader())];
  for (let i = 0; i < TORN_MESSAGES; i++) {
    const record = JSON.stringify(messageRecord(i, tornView[i] as ChatMessage));
    if (i !== TORN_INDEX) {
      lines.push(record);
      continue;
    }
    const next = JSON.stringify(messageRecord(i + 1, tornView[i + 1] as ChatMessage));
    const torn = tear(record, next);
    lines.push(torn.line);
    if (torn.consumesNext) i++;
  }
  for (const r of tornLog) lines.push(JSON.stringify(reductionRecord(r)));
  return lines.join('\n') + '\n';
}
