/**
 * The resolver over input that fights back: a message list that loses messages between two reads
 * (a file-backed list whose file shrank), and JSON nested deeper than the stack. Each answers a
 * value (an error code or a finding), never an exception.
 */
import { describe, expect, it } from 'vitest';
import { checkIntegrity } from './integrity';
import { resolveOriginal } from './original';
import { parseSidecarLine, parseSnapshot } from '../format/schema';
import { sidecarSearch } from '../search';
import { assistant, makeReduction, tool, user } from '../testing/builders';
import type { ChatMessage, MessageList } from '../format/types';

/** A list that answers each index once, then never again: the file went away after the first read. */
function forgetful(messages: readonly ChatMessage[]): MessageList & { reads: number } {
  const seen = new Set<number>();
  return {
    length: messages.length,
    reads: 0,
    at(i) {
      this.reads++;
      if (seen.has(i)) return undefined;
      seen.add(i);
      return messages[i];
    },
  };
}

const first = 'first output, long and hidden\n';
const view: ChatMessage[] = [
  user('go'),
  assistant('', 'call_1'),
  tool(first, 'call_1'),
  assistant('', 'call_2'),
  tool('second output, truncated here\n', 'call_2'),
  assistant('', 'call_3'),
  tool(first, 'call_3'),
  assistant('done'),
];
const log = [
  makeReduction(view, { id: 'r1', kind: 'turns_cleared', index: 0, end: 3 }),
  makeReduction(view, { id: 'r2', kind: 'tool_output_truncated', index: 4, kept_bytes: 6 }),
  makeReduction(view, { id: 'r3', kind: 'duplicate_output', index: 6, canonical: 2 }),
];

describe('a message list that loses messages between reads', () => {
  it('resolveOriginal reads each message once: the bytes it hashes are the bytes it returns', () => {
    const list = forgetful(view);
    const resolved = resolveOriginal(log[0] as (typeof log)[0], list, undefined);
    expect(resolved.ok).toBe(true);
    expect(list.reads).toBe(3);
    // A second resolution finds the messages gone: an error value, not a TypeError.
    expect(resolveOriginal(log[0] as (typeof log)[0], list, undefined)).toMatchObject({ ok: false, error: { code: 'address_out_of_range', index: 0 } });
  });

  it('checkIntegrity reports the lost messages as address_out_of_range', () => {
    for (let warm = 0; warm <= view.length; warm++) {
      const list = forgetful(view);
      // The first `warm` indices are already gone when the check starts.
      for (let i = 0; i < warm; i++) list.at(i);
      const findings = checkIntegrity({ minted: list, log });
      // At least r3's canonical (index 2, read by r1 first) is gone by the time it is compared.
      expect(findings.length).toBeGreaterThan(0);
      for (const f of findings) expect(f.code).toBe('address_out_of_range');
    }
  });

  it('sidecarSearch skips what it can no longer read', () => {
    for (let warm = 0; warm <= view.length; warm++) {
      const list = forgetful(view);
      for (let i = 0; i < warm; i++) list.at(i);
      const result = sidecarSearch(log, 'output', list);
      expect(result.ok).toBe(true);
    }
    // Cleared ranges are verified first and searched after: the second read finds r1's messages
    // gone, so only r2 and r3 (each read once) are searched.
    const result = sidecarSearch(log, 'output', forgetful(view));
    expect(result.ok && result.value.matches.map((m) => m.reduction_id)).toEqual(['r2', 'r3']);
  });
});

describe('JSON nested deeper than the stack', () => {
  const depth = 20_000;
  const deep = '['.repeat(depth) + ']'.repeat(depth);

  it('tool-call arguments that cannot become text make the message invalid, a finding', () => {
    const line = `{"t":"message","i":0,"msg":{"role":"assistant","content":"","tool_calls":[{"id":"c","name":"shell","arguments":${deep}}]}}`;
    const parsed = parseSidecarLine(line, 3);
    expect(parsed).toMatchObject({ ok: false, holeIndex: 0, finding: { code: 'malformed_line', line: 3 } });
    // Refused by the depth cap before anything stringifies it (docs/deep-json.md).
    expect(!parsed.ok && parsed.finding.message).toContain('nested deeper than 1000 levels');
  });

  it('a snapshot with such a message has a hole there, and the rest reads', () => {
    const snapshot = JSON.parse(`{"format":"supercode-session","version":1,"messages":[{"role":"user","content":"a"},{"role":"assistant","content":"","tool_calls":[{"id":"c","name":"n","arguments":${deep}}]},{"role":"user","content":"c"}]}`) as Record<string, unknown>;
    const parsed = parseSnapshot(snapshot);
    expect(parsed.findings).toMatchObject([{ code: 'malformed_line', index: 1 }]);
    expect(parsed.snapshot?.messages.map((m) => m?.content)).toEqual(['a', undefined, 'c']);
  });

  it('arguments given as a JSON value still read as their text', () => {
    const parsed = parseSidecarLine('{"t":"message","i":0,"msg":{"role":"assistant","content":"","tool_calls":[{"id":"c","name":"n","arguments":{"cmd":"ls"}}]}}', 1);
    expect(parsed.ok && parsed.record.t === 'message' && parsed.record.msg.tool_calls?.[0]?.arguments).toBe('{"cmd":"ls"}');
  });
});
