/**
 * Detection reads only the first lines of a file's head (index.ts headLines): it decides exactly as
 * reading the whole head would, for any head (fast-check), so a large file is claimed or refused as
 * before while only its first lines are decoded.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { headLines, looksLikeClaudeCode } from './index';

const record = JSON.stringify({ type: 'user', uuid: 'u-1', sessionId: 's', message: { role: 'user', content: 'hi é 🙂' } });
const lineArb = fc.oneof(fc.constant(record), fc.constant(''), fc.constant('   '), fc.constant('{"type":"user"}'), fc.constant('{not json'), fc.string({ unit: 'grapheme', maxLength: 30 }), fc.constant(record.slice(0, 20)));

describe('Claude Code detection reads the first lines of the head', () => {
  it('decides as the whole head does, and its text is a prefix of the head (fast-check)', () => {
    fc.assert(
      fc.property(fc.array(lineArb, { maxLength: 40 }), fc.boolean(), fc.nat({ max: 8 }), (lines, endNewline, cut) => {
        let head = Buffer.from(lines.join('\n') + (endNewline ? '\n' : ''), 'utf8');
        // A head cut anywhere (even inside a character), as a 1 MiB read of a larger file is.
        head = head.subarray(0, Math.max(0, head.length - cut));
        const text = headLines(head, 20);
        expect(head.toString('utf8').startsWith(text)).toBe(true);
        expect(looksLikeClaudeCode(text)).toBe(looksLikeClaudeCode(head.toString('utf8')));
      }),
      { numRuns: 500 },
    );
  });

  it('stops after the 20th newline', () => {
    const head = Buffer.from(Array.from({ length: 30 }, (_, k) => `line ${k}`).join('\n'), 'utf8');
    expect(headLines(head, 20)).toBe(Array.from({ length: 20 }, (_, k) => `line ${k}\n`).join(''));
  });
});
