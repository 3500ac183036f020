/** Property-based tests (fast-check) of the resolver's invariants. */
import fc from 'fast-check';
import { RE2JS } from 're2js';
import { describe, expect, it } from 'vitest';
import { CAP_NOTICE_MARKER } from '../format/constants';
import { expandReduction } from './expand';
import { hashOf, makeReduction, tool, capped, user } from '../testing/builders';
import { hiddenSpan, resolveOriginal } from './original';
import { matchLengthBounds, sidecarSearch } from '../search';
import { checkIntegrity } from './integrity';
import { projectView } from './project';
import type { ByteSource, ChatMessage, Reduction } from '../format/types';
import { bytesIndexOf, utf8Decode, utf8Encode, utf8Length } from '../format/utf8';

/** Text with multi-byte characters, ANSI escapes, newlines and surrogate pairs. */
const text = (max = 200) =>
  fc.array(fc.oneof(fc.string({ unit: 'grapheme', maxLength: 8 }), fc.constantFrom('\u2014', '\u4E2D\u6587', '\u{1F389}', '\u001b[31mred\u001b[0m', '\n', 'ab', 'aa', 'é')), { maxLength: max }).map((parts) => parts.join(''));

function okValue<T>(r: { ok: true; value: T } | { ok: false; error: { message: string } }): T {
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
}

describe('properties', () => {
  it('tiling any content with any chunk size reproduces it byte for byte', () => {
    fc.assert(
      fc.property(text(), fc.integer({ min: 1, max: 64 }), (content, k) => {
        const view = [tool(content, 'c')];
        const log = [makeReduction(view, { kind: 'tool_output_elided', index: 0 })];
        const total = utf8Length(content);
        const pieces: Uint8Array[] = [];
        let expectedStart = 0;
        for (let s = 0; s < total; s += k) {
          const out = okValue(expandReduction(log, 'r1', view, undefined, [s, s + k]));
          expect(out.range[0]).toBe(expectedStart);
          expectedStart = out.range[1];
          pieces.push(utf8Encode(out.content));
          expect(utf8Length(out.content)).toBe(out.range[1] - out.range[0]);
        }
        const joined = new Uint8Array(pieces.reduce((n, p) => n + p.length, 0));
        let o = 0;
        for (const p of pieces) {
          joined.set(p, o);
          o += p.length;
        }
        expect(utf8Decode(joined)).toBe(content);
        expect(joined.length).toBe(total);
      }),
      { numRuns: 300 },
    );
  });

  it('an expansion is either the exact hashed bytes or their verified same-call superset', () => {
    const variant = fc.constantFrom('same', 'other-id', 'no-id', 'other-role', 'edited-prefix', 'shorter', 'absent');
    fc.assert(
      fc.property(text(300), fc.integer({ min: 0, max: 400 }), fc.boolean(), variant, text(40), (content, capAt, isCapped, kind, extra) => {
        const full = tool(content + extra, 'call_1');
        const minted: ChatMessage[] = [user('u'), isCapped ? capped(full, capAt) : full];
        const recordedCopy: ChatMessage | undefined =
          kind === 'same'
            ? full
            : kind === 'other-id'
              ? { ...full, tool_call_id: 'call_2' }
              : kind === 'no-id'
                ? { role: 'tool', content: full.content }
                : kind === 'other-role'
                  ? { ...full, role: 'user' }
                  : kind === 'edited-prefix'
                    ? { ...full, content: `#${full.content}` }
                    : kind === 'shorter'
                      ? { ...full, content: full.content.slice(0, 3) }
                      : undefined;
        const recorded = [user('u'), ...(recordedCopy ? [recordedCopy] : [])];
        const log = [makeReduction(minted, { kind: 'tool_output_elided', index: 1 })];
        const out = okValue(expandReduction(log, 'r1', minted, recorded));
        const m = minted[1] as ChatMessage;
        if (out.source === 'minted') {
          expect(out.content).toBe(m.content);
          expect(hashOf(out.content)).toBe(log[0]?.ptr.hash);
        } else {
          const k = m.content.lastIndexOf(CAP_NOTICE_MARKER);
          expect(k).toBeGreaterThanOrEqual(0);
          expect(recordedCopy?.role).toBe(m.role);
          expect(recordedCopy?.tool_call_id).toBe(m.tool_call_id);
          // Compared as bytes: a lone surrogate in a copy encodes as U+FFFD, as every writer of UTF-8 does.
          const outBytes = utf8Encode(out.content);
          const prefix = utf8Encode(m.content.slice(0, k));
          expect(outBytes).toEqual(utf8Encode(recordedCopy?.content ?? ''));
          expect(outBytes.subarray(0, prefix.length)).toEqual(prefix);
          expect(outBytes.length).toBeGreaterThan(prefix.length);
        }
      }),
      { numRuns: 400 },
    );
  });

  /** A random session: tool outputs with random reductions of every kind over them. */
  const session = fc
    .record({
      contents: fc.array(text(60), { minLength: 2, maxLength: 7 }),
      plan: fc.array(fc.record({ kind: fc.constantFrom('tool_output_truncated', 'tool_output_elided', 'duplicate_output', 'none'), kept: fc.nat(80) }), { minLength: 7, maxLength: 7 }),
      clear: fc.option(fc.tuple(fc.nat(6), fc.integer({ min: 1, max: 4 }))),
      // §10.1: the range is turns_cleared or summarized; a summarized one may have a second run in
      // its group; some originals are not in the file (ptr.hash null).
      rangeKind: fc.constantFrom('turns_cleared' as const, 'summarized' as const),
      secondRun: fc.option(fc.tuple(fc.nat(6), fc.integer({ min: 1, max: 3 }))),
      gone: fc.array(fc.boolean(), { minLength: 9, maxLength: 9 }),
      dupOf: fc.nat(6),
    })
    .map(({ contents, plan, clear, rangeKind, secondRun, gone, dupOf }) => {
      const view: ChatMessage[] = contents.map((c, i) => tool(c, `c${i}`));
      const log: Reduction[] = [];
      view.forEach((m, i) => {
        const p = plan[i];
        if (!p || p.kind === 'none') return;
        const id = `r${log.length + 1}`;
        if (p.kind === 'duplicate_output') {
          const c = dupOf % (i + 1);
          if (c === i) return;
          view[i] = { ...m, content: (view[c] as ChatMessage).content };
          log.push(makeReduction(view, { id, kind: 'duplicate_output', index: i, canonical: c }));
        } else if (p.kind === 'tool_output_truncated') {
          log.push(makeReduction(view, { id, kind: p.kind, index: i, kept_bytes: Math.min(p.kept, Math.max(0, utf8Length(m.content) - 1)) }));
        } else log.push(makeReduction(view, { id, kind: p.kind, index: i }));
      });
      if (clear) {
        const start = Math.min(clear[0], view.length - 1);
        const end = Math.min(view.length, start + clear[1]);
        const group = rangeKind === 'summarized' && secondRun ? { group: 'g1' } : {};
        log.push(makeReduction(view, { id: `r${log.length + 1}`, kind: rangeKind, index: start, end, ...group }));
        if (rangeKind === 'summarized' && secondRun) {
          const s2 = Math.min(secondRun[0], view.length - 1);
          const e2 = Math.min(view.length, s2 + secondRun[1]);
          // Runs of one compaction never share a message.
          if (e2 <= start || s2 >= end) log.push(makeReduction(view, { id: `r${log.length + 1}`, kind: 'summarized', index: s2, end: e2, group: 'g1', summary: '' }));
        }
      }
      const withGone = log.map((r, k) => (gone[k] ? { ...r, ptr: { ...r.ptr, hash: null } } : r));
      return { view, log: withGone };
    });

  const isRange = (r: Reduction) => r.kind === 'turns_cleared' || r.kind === 'summarized';

  it('every match lies in a hidden span, and case-sensitive substring search finds exactly the naive matches', () => {
    fc.assert(
      fc.property(session, fc.oneof(fc.constantFrom('a', 'aa', '\u4E2D', '\u{1F389}', '\n', 'é', 'red'), text(3).filter((q) => q.length > 0)), ({ view, log }, query) => {
        const res = okValue(sidecarSearch(log, query, view, undefined, { max_matches: 10_000, max_result_bytes: 10_000_000 }));
        const q = utf8Encode(query);
        for (const m of res.matches) {
          const r = log.find((x) => x.id === m.reduction_id) as Reduction;
          const content = utf8Encode((view[m.index] as ChatMessage).content);
          expect(utf8Decode(content.subarray(m.offset, m.offset + m.length))).toBe(query);
          expect(r.ptr.hash).not.toBeNull();
          if (isRange(r)) {
            expect(m.index).toBeGreaterThanOrEqual(r.ptr.index);
            expect(m.index).toBeLessThan(r.end ?? 0);
          } else {
            const resolved = okValue(resolveOriginal(r, view, undefined));
            const span = hiddenSpan(r, resolved.bytes, log);
            expect(span).not.toBeNull();
            expect(m.offset).toBeGreaterThanOrEqual(span?.[0] ?? Infinity);
            expect(m.offset + m.length).toBeLessThanOrEqual(span?.[1] ?? -1);
          }
        }
        // Naive reference: per searched string, non-overlapping leftmost occurrences.
        const count = (hay: Uint8Array) => {
          let n = 0;
          for (let i = 0; i + q.length <= hay.length; ) {
            let same = true;
            for (let j = 0; j < q.length; j++) if (hay[i + j] !== q[j]) same = false;
            if (same) {
              n++;
              i += q.length;
            } else i++;
          }
          return n;
        };
        let expected = 0;
        const clearedIdx = new Set<number>();
        // A range whose original is not in the file encloses nothing searchable.
        for (const r of log.filter((x) => isRange(x) && x.ptr.hash !== null)) for (let i = r.ptr.index; i < (r.end ?? 0); i++) clearedIdx.add(i);
        for (const i of clearedIdx) expected += count(utf8Encode((view[i] as ChatMessage).content));
        for (const r of log) {
          if (isRange(r) || r.ptr.hash === null || clearedIdx.has(r.ptr.index)) continue;
          const bytes = utf8Encode((view[r.ptr.index] as ChatMessage).content);
          const span = hiddenSpan(r, bytes, log);
          if (span) expected += count(bytes.subarray(span[0], span[1]));
        }
        expect(res.total_matches).toBe(expected);
        const unavailable = log.filter((r) => r.ptr.hash === null).length;
        expect(res.reductions_unavailable).toBe(unavailable > 0 ? unavailable : undefined);
        const order = res.matches.map((m) => [m.index, m.offset] as const);
        expect(order).toEqual([...order].sort((a, b) => a[0] - b[0] || a[1] - b[1]));
      }),
      { numRuns: 300 },
    );
  });

  it('case-insensitive substring search (its fast path included) finds exactly what the regex engine finds', () => {
    const tricky = fc.constantFrom('s', 'S', '\u017F', 'k', 'K', '\u212A', '\u0130', 'i', 'I', '\u0131', 'ss', '\u00DF', '\u03A3', '\u03C3', '\u03C2', 'A', 'a', ' ', '\u4E2D');
    const mixed = fc.array(fc.oneof(tricky, fc.string({ maxLength: 4 })), { maxLength: 40 }).map((p) => p.join(''));
    const query = fc.oneof(fc.constantFrom('s', 'SS', 'k', 'is', 'a s', 'Ki', 'i'), fc.stringMatching(/^[a-zA-Z ]{1,4}$/), mixed.filter((q) => q.length > 0 && q.length < 6));
    fc.assert(
      fc.property(mixed, query, (content, q) => {
        const view = [tool(content, 'c')];
        const log = [makeReduction(view, { kind: 'tool_output_elided', index: 0 })];
        const opts = { case_sensitive: false, max_matches: 10_000, max_result_bytes: 10_000_000 } as const;
        const fast = okValue(sidecarSearch(log, q, view, undefined, opts));
        const engine = okValue(sidecarSearch(log, RE2JS.quote(q), view, undefined, { ...opts, mode: 'regex' }));
        expect(fast.matches.map((m) => [m.offset, m.length])).toEqual(engine.matches.map((m) => [m.offset, m.length]));
        expect(fast.total_matches).toBe(engine.total_matches);
      }),
      { numRuns: 500 },
    );
  });

  it('the serialized result never exceeds its bound, and truncated is honest', () => {
    fc.assert(
      fc.property(
        session,
        fc.constantFrom('a', 'é', '\u4E2D', '\u001b', 'r'),
        fc.integer({ min: 200, max: 6000 }),
        fc.integer({ min: 1, max: 300 }),
        fc.integer({ min: 0, max: 60 }),
        ({ view, log }, query, maxResult, snippetMax, maxMatches) => {
          const r = sidecarSearch(log, query, view, undefined, { max_result_bytes: maxResult, snippet_max_bytes: snippetMax, max_matches: maxMatches, case_sensitive: false });
          const res = okValue(r);
          expect(utf8Length(JSON.stringify(res))).toBeLessThanOrEqual(maxResult);
          expect(res.matches.length).toBeLessThanOrEqual(maxMatches);
          expect(res.truncated).toBe(res.matches.length < res.total_matches);
          for (const m of res.matches) {
            const bytes = utf8Encode(m.snippet);
            expect(bytes.length).toBeLessThanOrEqual(snippetMax);
            expect(m.snippet_match[1]).toBeLessThanOrEqual(bytes.length);
            expect(m.snippet_match[1] - m.snippet_match[0]).toBe(Math.min(m.length, m.snippet_match[1] - m.snippet_match[0]));
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('with summarized runs and originals not in the file: expand answers exactly per hash, integrity never calls either a mismatch, and each range is one row', () => {
    fc.assert(
      fc.property(session, ({ view, log }) => {
        for (const r of log) {
          const out = expandReduction(log, r.id, view);
          if (r.ptr.hash === null) expect(out).toMatchObject({ ok: false, error: { code: 'original_unavailable', reduction_id: r.id } });
          else {
            const v = okValue(out);
            expect(hashOf(okValue(expandReduction(log, r.id, view)).content)).toBe(r.ptr.hash);
            expect(v.role === undefined).toBe(isRange(r));
          }
        }
        const findings = checkIntegrity({ minted: view, log });
        expect(findings.filter((f) => f.code === 'hash_mismatch' || f.code === 'address_out_of_range')).toEqual([]);
        const rows = projectView(view, log);
        for (const r of log.filter(isRange)) {
          const holding = rows.filter((row) => row.index <= r.ptr.index && r.ptr.index < row.end);
          expect(holding).toHaveLength(1);
          expect(holding[0]?.end).toBeGreaterThanOrEqual(r.end ?? 0);
        }
        // A compaction's summary is shown once, on its first run's row.
        const grouped = rows.filter((row) => row.compaction !== undefined);
        expect(grouped.filter((row) => row.text !== '').every((row) => row.applied === row.compaction?.summary)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  // Content read by range (a ByteSource) resolves exactly as content in memory.
  /** Content kept "on disk": read by range only (copies), known hash absent, optional findAll. */
  function onDisk(msg: ChatMessage, withFindAll: boolean): ChatMessage {
    const bytes = utf8Encode(msg.content);
    const source: ByteSource = {
      length: bytes.length,
      read: (start, end) => bytes.slice(start, end),
      ...(withFindAll
        ? {
            findAll(needle: Uint8Array, start: number, end: number, onMatch: (offset: () => number) => boolean) {
              for (let i = bytesIndexOf(bytes, needle, start); i !== -1 && i + needle.length <= end; i = bytesIndexOf(bytes, needle, i + needle.length)) {
                const at = i;
                if (!onMatch(() => at)) return;
              }
            },
          }
        : {}),
    };
    // Its text is only a preview, as the loader's is.
    return { ...msg, content: [...msg.content].slice(0, 2).join(''), large: source };
  }

  it('expand, search (tiny windows) and the integrity check answer the same', () => {
    fc.assert(
      fc.property(session, fc.array(fc.boolean(), { minLength: 7, maxLength: 7 }), fc.boolean(), fc.constantFrom('a', 'aa', '\u4E2D', '\u{1F389}', '\n', 'é', 'red'), fc.integer({ min: 4, max: 9 }), fc.nat(), ({ view, log }, onDiskAt, withFindAll, query, windowBytes, x) => {
        const disk = view.map((m, i) => (onDiskAt[i] ? onDisk(m, withFindAll) : m));
        for (const r of log) {
          expect(expandReduction(log, r.id, disk)).toEqual(expandReduction(log, r.id, view));
          if (r.ptr.hash === null) continue;
          const total = okValue(expandReduction(log, r.id, view)).total_bytes;
          const start = total === 0 ? 0 : x % total;
          expect(expandReduction(log, r.id, disk, undefined, [start, start + 5])).toEqual(expandReduction(log, r.id, view, undefined, [start, start + 5]));
        }
        for (const options of [{}, { case_sensitive: false }, { mode: 'regex' as const }]) {
          const bound = { ...options, max_matches: 1000, max_result_bytes: 1_000_000 };
          expect(sidecarSearch(log, query, disk, undefined, { ...bound, window_bytes: windowBytes })).toEqual(sidecarSearch(log, query, view, undefined, bound));
        }
        expect(checkIntegrity({ minted: disk, log })).toEqual(checkIntegrity({ minted: view, log }));
      }),
      { numRuns: 300 },
    );
  });
  /** Small patterns: literals, classes, assertions, bounded and unbounded repetitions, alternation. */
  const piece = fc
    .tuple(fc.constantFrom('a', 'b', '\u4E2D', '\u{1F389}', '.', '[ab]', '\\w', '(?:ab)', '\\s', '\\b', '$', '^'), fc.constantFrom('', '', '?', '*', '+', '{2}', '{1,3}', '{0,2}', '*?'))
    .map(([atom, q]) => atom + q);
  const pattern = fc
    .tuple(fc.array(piece, { minLength: 1, maxLength: 4 }), fc.array(piece, { maxLength: 3 }))
    .map(([left, right]) => left.join('') + (right.length > 0 ? `|${right.join('')}` : ''))
    .filter((p) => {
      try {
        RE2JS.compile(p);
        return true;
      } catch {
        return false;
      }
    });
  const subject = fc.array(fc.constantFrom('a', 'b', 'ab', ' ', '\n', '\u4E2D', '\u{1F389}', 'x', 'aaa'), { maxLength: 120 }).map((p) => p.join(''));

  it('every match spans between the fewest and the most code points matchLengthBounds gives', () => {
    fc.assert(
      fc.property(pattern, subject, (p, content) => {
        const re = RE2JS.compile(p);
        const { minRunes, maxRunes } = matchLengthBounds(re);
        const m = re.matcher(content);
        for (let pos = 0; pos <= content.length && m.find(pos); ) {
          const runes = [...content.slice(m.start(), m.end())].length;
          expect(runes).toBeGreaterThanOrEqual(minRunes);
          expect(runes).toBeLessThanOrEqual(maxRunes);
          pos = m.end() > m.start() ? m.end() : m.start() + 1;
        }
      }),
      { numRuns: 500 },
    );
  });

  it('a regex searched in windows (content on disk, windows of a few bytes) finds exactly what one search of the whole content finds', () => {
    fc.assert(
      fc.property(pattern, subject, fc.integer({ min: 1, max: 40 }), fc.boolean(), (p, content, windowBytes, caseSensitive) => {
        const view = [tool(content, 'c')];
        const log = [makeReduction(view, { kind: 'tool_output_elided', index: 0 })];
        const disk = [onDisk(view[0] as ChatMessage, false)];
        const options = { mode: 'regex' as const, case_sensitive: caseSensitive, max_matches: 1000, max_result_bytes: 1_000_000 };
        expect(sidecarSearch(log, p, disk, undefined, { ...options, window_bytes: windowBytes })).toEqual(sidecarSearch(log, p, view, undefined, options));
      }),
      { numRuns: 400 },
    );
  });

  /** Text with lone surrogates: high and low halves alone, reversed, an emoji cut in half. */
  const withLoneSurrogates = fc
    .array(fc.oneof(text(8), fc.constantFrom('\uD800', '\uDBFF', '\uDC00', '\uDFFF', '\uDC00\uD800', '\uD83D', '\uD83D!', '\uFFFD')), { maxLength: 30 })
    .map((p) => p.join(''));

  it('a snippet is what expand returns for the snippet\'s byte range, whatever the content (lone surrogates included), in memory and on disk', () => {
    fc.assert(
      fc.property(withLoneSurrogates, fc.constantFrom('\uFFFD', '\uD800', 'a', 'e', '\u4E2D', '\\p{Cs}|\uFFFD', '.'), fc.integer({ min: 4, max: 40 }), fc.nat(), (content, query, snippetMax, k) => {
        const view = [user('u'), tool(content, 'c')];
        const kept = utf8Length(content) === 0 ? 0 : k % utf8Length(content);
        const log = [makeReduction(view, { kind: 'tool_output_truncated', index: 1, kept_bytes: kept })];
        const disk = [view[0] as ChatMessage, onDisk(view[1] as ChatMessage, true)];
        for (const mode of ['substring', 'regex'] as const) {
          const options = { mode, snippet_max_bytes: snippetMax, max_matches: 1000, max_result_bytes: 1_000_000 };
          const inMemory = sidecarSearch(log, query, view, undefined, options);
          expect(sidecarSearch(log, query, disk, undefined, { ...options, window_bytes: 7 })).toEqual(inMemory);
          if (!inMemory.ok) continue;
          for (const m of inMemory.value.matches) {
            const start = m.offset - m.snippet_match[0];
            const expanded = okValue(expandReduction(log, m.reduction_id, view, undefined, [start, start + utf8Length(m.snippet)]));
            expect(expanded.range).toEqual([start, start + utf8Length(m.snippet)]);
            expect(m.snippet).toBe(expanded.content);
          }
        }
      }),
      { numRuns: 400 },
    );
  });
});
