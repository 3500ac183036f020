/**
 * Contents skipped at once (docs/search.md "Contents skipped at once"): a search of a literal skips
 * a unit, without loading or reading it, when its source's test says the file holds no occurrence
 * in the unit's range; the answer is the same as a search that reads every unit.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sidecarSearch } from '.';
import { assistant, makeReduction, tool } from '../testing/builders';
import type { ByteSource, ChatMessage, MessageList, Reduction, Result, SidecarSearchResult } from '../format/types';
import { utf8Encode } from '../format/utf8';

function value<T>(r: Result<T>): T {
  if (!r.ok) throw new Error(`expected ok, got ${r.error.code}: ${r.error.message}`);
  return r.value;
}

/** Where `needle` occurs in `bytes`, every start (overlapping ones too). */
function startsOf(bytes: Uint8Array, needle: Uint8Array): number[] {
  const out: number[] = [];
  for (let i = 0; i + needle.length <= bytes.length; i++) {
    let k = 0;
    while (k < needle.length && bytes[i + k] === needle[k]) k++;
    if (k === needle.length) out.push(i);
  }
  return out;
}

/**
 * The outputs as one "file" (each at its offset), each a source that finds a literal by reading its
 * own bytes; with `test`, also `rawRange` and `literalAbsence`, whose test answers from the whole
 * file (true only when no occurrence starts in the range) or, when `test` says so, cannot tell.
 */
function filed(outputs: readonly string[], test: 'truthful' | 'unsure' | 'none') {
  const encoded = outputs.map(utf8Encode);
  const file = new Uint8Array(encoded.reduce((n, b) => n + b.length, 0));
  const offsets: number[] = [];
  let at = 0;
  for (const b of encoded) {
    offsets.push(at);
    file.set(b, at);
    at += b.length;
  }
  const counts = { findAll: 0, tests: 0 };
  const sourceOf = (k: number): ByteSource => {
    const bytes = encoded[k] as Uint8Array;
    const base = offsets[k] as number;
    const source: ByteSource = {
      length: bytes.length,
      read: (start, end) => bytes.slice(start, end),
      findAll(needle, start, end, onMatch) {
        counts.findAll++;
        let from = start;
        for (const s of startsOf(bytes.subarray(0, end), needle)) {
          if (s < from) continue;
          if (!onMatch(() => s)) return;
          from = s + needle.length;
        }
      },
    };
    if (test === 'none') return source;
    return {
      ...source,
      rawRange: (start, end) => ({ file: 7, from: base + start, to: base + end }),
      literalAbsence: (needle) => (f, from, to) => {
        counts.tests++;
        if (f !== 7) throw new Error(`a test asked of file ${f}`);
        if (test === 'unsure') return false;
        return !startsOf(file, needle).some((s) => s >= from && s < to);
      },
    };
  };
  const view: ChatMessage[] = outputs.flatMap((o, k) => [assistant('', `c${k}`), tool(o, `c${k}`)]);
  const messages = view.map((m, i) => (i % 2 === 1 ? { ...m, content: '', large: sourceOf((i - 1) / 2) } : m));
  const minted: MessageList = { length: messages.length, at: (i) => messages[i] };
  return { view, minted, counts, file };
}

const pieceArb = fc.constantFrom('ab', 'needle', 'nee', 'dle', 'x', ' ', '\n', 'é', 'needle needle');
const outputsArb = fc.array(fc.array(pieceArb, { minLength: 1, maxLength: 12 }).map((p) => p.join('')), { minLength: 1, maxLength: 6 });
const queryArb = fc.record({ query: fc.constantFrom('needle', 'ab', 'e', 'dle\nx', 'é', 'needle needle', 'zz'), mode: fc.constantFrom('substring' as const, 'regex' as const), case_sensitive: fc.boolean() });

/** Each output reduced whole (elided) or but for a prefix (truncated). */
function logOf(view: readonly ChatMessage[], kept: readonly (number | null)[]): Reduction[] {
  return kept.map((keep, k) => {
    const index = 2 * k + 1;
    const bytes = utf8Encode(view[index]?.content ?? '').length;
    return keep === null || bytes === 0
      ? makeReduction(view, { id: `r${k}`, kind: 'tool_output_elided', index })
      : makeReduction(view, { id: `r${k}`, kind: 'tool_output_truncated', index, kept_bytes: Math.min(keep, bytes) });
  });
}

describe('contents skipped at once', () => {
  it('answers as a search that reads every unit, the first search and the next, whatever the test says (fast-check)', () => {
    fc.assert(
      fc.property(outputsArb, fc.array(fc.option(fc.nat(12)), { minLength: 6, maxLength: 6 }), queryArb, fc.constantFrom('truthful' as const, 'unsure' as const), (outputs, kept, q, test) => {
        const plain = filed(outputs, 'none');
        const quick = filed(outputs, test);
        const log = logOf(plain.view, kept.slice(0, outputs.length));
        const options = { mode: q.mode, case_sensitive: q.case_sensitive, max_matches: 1000 };
        const expected: SidecarSearchResult = value(sidecarSearch(log, q.query, plain.minted, undefined, options));
        // The same log and lists twice: the second search has each unit's range from the first.
        expect(value(sidecarSearch(log, q.query, quick.minted, undefined, options))).toEqual(expected);
        expect(value(sidecarSearch(log, q.query, quick.minted, undefined, options))).toEqual(expected);
        // Only a case-sensitive substring asks the test.
        if (!(q.mode === 'substring' && q.case_sensitive)) expect(quick.counts.tests).toBe(0);
      }),
      { numRuns: 400 },
    );
  });

  it('a second search loads only the units whose range holds an occurrence; the first reads them all (fast-check)', () => {
    fc.assert(
      fc.property(outputsArb, fc.constantFrom('needle', 'ab', 'e', 'zz'), (outputs, query) => {
        const quick = filed(outputs, 'truthful');
        const log = logOf(quick.view, outputs.map(() => null));
        const first = value(sidecarSearch(log, query, quick.minted));
        expect(quick.counts.findAll).toBe(outputs.length);
        // Units whose bytes (in the file) hold an occurrence start: the test cannot rule them out.
        const needle = utf8Encode(query);
        const starts = startsOf(quick.file, needle);
        let base = 0;
        let holding = 0;
        for (const o of outputs) {
          const length = utf8Encode(o).length;
          if (starts.some((s) => s >= base && s < base + length)) holding++;
          base += length;
        }
        quick.counts.findAll = 0;
        expect(value(sidecarSearch(log, query, quick.minted))).toEqual(first);
        expect(quick.counts.findAll).toBe(holding);
      }),
      { numRuns: 300 },
    );
  });
});
