/**
 * Properties of the SWE-agent importer over generated trajectories: whatever the history processors
 * replaced, and whichever reading a file's steps use (`query`: its own call's input; `messages`:
 * the next call's), every call's projected input is the recorded one, and every reduction verifies.
 */
import { writeFileSync } from 'node:fs';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { projectView } from '../../../shared/resolver/project';
import { tempDir } from '../../../tools/testing/files';
import { loadSession } from '../session';
import { commonPrefixBytes } from '../common/textHash';

const tmp = tempDir('session-inspector-swe-props-');
afterAll(() => tmp.cleanup());

type Msg = { role: string; content: string; tool_calls?: unknown[]; tool_call_ids?: string[] };
/** How step k's input shows an earlier observation: as is, elided, or cut to a prefix. */
const shown = fc.constantFrom<'same' | 'elided' | 'cut'>('same', 'elided', 'cut');
/**
 * A UTF-16 unit or character of any kind, lone surrogates included (a file's JSON may escape them,
 * `\ud83d`), with the halves of a 4-byte character and 2- and 3-byte characters drawn often.
 */
/** The text as its UTF-8 bytes decode: a lone surrogate reads as U+FFFD. */
const wellFormed = (text: string): string => Buffer.from(text, 'utf8').toString('utf8');
const anyUnit = fc.oneof(fc.constantFrom('\ud83d', '\ude00', '\u{1f600}', '\u00e9', '\u20ac', 'a'), fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }));

describe('SWE-agent importer properties', () => {
  it('every call`s projected input equals the recorded input, and every reduction expands to the history text', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.string({ unit: anyUnit, minLength: 1, maxLength: 30 }), { minLength: 1, maxLength: 6 }),
        fc.array(shown, { minLength: 6, maxLength: 6 }),
        fc.array(fc.nat({ max: 6 }), { minLength: 6, maxLength: 6 }),
        fc.boolean(),
        fc.array(fc.nat({ max: 40 }), { minLength: 6, maxLength: 6 }),
        async (outputs, how, from, query, cut) => {
          const history: Msg[] = [
            { role: 'system', content: 'sys' },
            { role: 'user', content: 'task' },
          ];
          outputs.forEach((o, j) => {
            history.push({ role: 'assistant', content: `act ${j}`, tool_calls: [{ id: `c${j}`, function: { name: 'bash', arguments: '{}' } }] });
            history.push({ role: 'tool', content: `out ${j}: ${o}`, tool_call_ids: [`c${j}`] });
          });
          // Observation j is replaced from call (j + 1 + from[j]) on, once replaced always replaced (as last_n_observations does).
          const inputOf = (call: number): Msg[] =>
            history.slice(0, 2 + 2 * call).map((m, i) => {
              const j = (i - 3) / 2;
              if (i < 3 || !Number.isInteger(j) || how[j] === 'same' || call < j + 1 + (from[j] ?? 0)) return m;
              if (how[j] === 'elided') return { ...m, content: 'Old environment output: (1 lines omitted)' };
              // A cut keeps some of the output's UTF-16 units, never all, even half of a 4-byte character.
              const label = `out ${j}: `.length;
              return { ...m, content: `${m.content.slice(0, label + ((cut[j] ?? 0) % (m.content.length - label)))}<clipped>` };
            });
          const calls = outputs.length;
          // `query` (newer files) is the step's own input; `messages` (older) the next call's.
          const trajectory = outputs.map((_o, k) => ({ action: `act ${k}`, observation: '', ...(query ? { query: inputOf(k) } : { messages: inputOf(k + 1) }) }));
          const path = tmp.path('gen.traj');
          writeFileSync(path, JSON.stringify({ trajectory, history }));
          const r = await loadSession([path]);
          if (!r.ok) throw new Error(r.error.message);
          const s = r.session;
          try {
            expect(s.calls).toHaveLength(calls);
            for (let n = 1; n <= calls; n++) {
              const input = s.callInput(n);
              if (!input) throw new Error(`no input for call ${n}`);
              // Compared as their bytes decode: a kept prefix is bytes, and a lone surrogate reads as U+FFFD.
              expect(projectView(input.minted, input.log).map((row) => wellFormed(row.text))).toEqual(inputOf(n - 1).map((m) => wellFormed(m.content)));
            }
            for (const red of s.log) {
              const out = s.expand(red.id);
              // Expanded bytes decode as the file does: a lone surrogate reads as U+FFFD.
              expect(out.ok && out.value.content).toBe(wellFormed(history[red.ptr.index]?.content ?? ''));
            }
            expect(s.check().findings).toEqual([]);
          } finally {
            s.close();
          }
        },
      ),
      { numRuns: 60 },
    );
  });
});

/** True when `at` starts a UTF-8 character of `bytes` (or is its end). */
const onBoundary = (bytes: Buffer, at: number): boolean => at === bytes.length || ((bytes[at] ?? 0) & 0xc0) !== 0x80;

/** Two texts sharing `common`, their kept prefix, and both as UTF-8. */
function keptOf(common: string, x: string, y: string): { a: string; b: string; kept: number; ea: Buffer; eb: Buffer } {
  const a = common + x;
  const b = common + y;
  return { a, b, kept: commonPrefixBytes(a, b), ea: Buffer.from(a, 'utf8'), eb: Buffer.from(b, 'utf8') };
}

describe('commonPrefixBytes (the kept prefix shared by the SWE-agent and Inspect importers)', () => {
  const text = fc.string({ unit: anyUnit, maxLength: 8 });

  it('is a prefix both texts encode to the same bytes, ending on a character boundary of each', () => {
    fc.assert(
      fc.property(text, text, text, (common, x, y) => {
        const { kept, ea, eb } = keptOf(common, x, y);
        expect(kept).toBeLessThanOrEqual(Math.min(ea.length, eb.length));
        expect(ea.subarray(0, kept).equals(eb.subarray(0, kept))).toBe(true);
        expect(onBoundary(ea, kept)).toBe(true);
        expect(onBoundary(eb, kept)).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it('never cuts the longer text inside a character its last shared unit begins', () => {
    // The original ends on a lone high surrogate that the shown text completes to a 4-byte character.
    expect(commonPrefixBytes('x\ud83d', 'x\ud83d\ude00 more')).toBe(1);
    expect(commonPrefixBytes('x\ud83d\ude00 more', 'x\ud83d')).toBe(1);
  });

  it('is the whole of two equal well-formed texts, and the longest boundary prefix of two that differ', () => {
    const wellFormed = fc.string({ unit: 'grapheme', maxLength: 10 });
    fc.assert(
      fc.property(wellFormed, wellFormed, wellFormed, (common, x, y) => {
        const { a, b, kept, ea, eb } = keptOf(common, x, y);
        if (a === b) expect(kept).toBe(ea.length);
        // No longer prefix ending on a character boundary of both is shared.
        let longest = 0;
        for (let n = 1; n <= Math.min(ea.length, eb.length) && ea[n - 1] === eb[n - 1]; n++) if (onBoundary(ea, n) && onBoundary(eb, n)) longest = n;
        expect(kept).toBe(longest);
      }),
      { numRuns: 1000 },
    );
  });
});
