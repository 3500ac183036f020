import { describe, expect, it } from 'vitest';
import { RE2JS } from 're2js';
import fc from 'fast-check';
import { MAX_MATCHES, MAX_REGEX_PROGRAM_SIZE, MAX_RESULT_BYTES, SNIPPET_MAX_BYTES } from '../format/constants';
import { expandReduction } from '../resolver/expand';
import { SEARCH_STEP_WORK, searchPreparationSteps, sidecarSearch, sidecarSearchSteps } from '.';
import { assistant, capped, countingSignal, makeReduction, tool, user } from '../testing/builders';
import { concatSources, memorySource } from '../format/bytes';
import { sha256Hex } from '../format/hash';
import type { ByteSource, ChatMessage, MessageList, Reduction, Result, SidecarSearchResult } from '../format/types';
import { utf8Encode, utf8Length } from '../format/utf8';

/** Content as a large message carries it: bytes read by range (without `bytes`, so it is not taken for memory). */
function memorySourceOf(content: string): ByteSource {
  const bytes = memorySource(utf8Encode(content));
  return { length: bytes.length, read: (start, end) => bytes.read(start, end) };
}

function value<T>(r: Result<T>): T {
  if (!r.ok) throw new Error(`expected ok, got ${r.error.code}: ${r.error.message}`);
  return r.value;
}

const output = 'PASS a.test.ts\nFAIL b.test.ts \u2014 expected 3, got 4\nPASS c.test.ts\n';
const view = [user('Find the failing test'), assistant('', 'call_9'), tool(output, 'call_9'), assistant('Let me look closer.')];
const log = [makeReduction(view, { kind: 'tool_output_truncated', index: 2, kept_bytes: 15 })];

describe('sidecarSearch: hidden spans only', () => {
  it('never reports a match in the visible prefix (SPEC §9: PASS at 0 is visible, PASS at 52 is hidden)', () => {
    const res = value(sidecarSearch(log, 'PASS', view));
    expect(res.matches.map((m) => m.offset)).toEqual([52]);
    expect(res.total_matches).toBe(1);
    expect(res.reductions_searched).toBe(1);
    expect(res.hidden_bytes_searched).toBe(52);
  });

  it('reports offsets relative to the whole original content, in bytes', () => {
    const res = value(sidecarSearch(log, 'expected', view));
    const m = res.matches[0];
    expect(m?.offset).toBe(utf8Encode(output).indexOf(utf8Encode('expected')[0] ?? 0, 33));
    expect(m?.offset).toBe(34);
    expect(m?.length).toBe(8);
  });

  it('a match never straddles from the visible prefix into the hidden span', () => {
    // "ts\nFAIL" crosses kept_bytes=15 (the visible prefix ends after "a.test.ts\n").
    expect(value(sidecarSearch(log, 'ts\nFAIL', view)).total_matches).toBe(0);
    expect(value(sidecarSearch(log, '^FAIL', view, undefined, { mode: 'regex' })).total_matches).toBe(1);
  });

  it('never inspects the projected view: text visible only in unreduced messages is not found', () => {
    expect(value(sidecarSearch(log, 'look closer', view)).total_matches).toBe(0);
  });

  it('the result matches SPEC §9 for FAIL', () => {
    expect(JSON.stringify(value(sidecarSearch(log, 'FAIL', view)))).toBe(
      '{"query":"FAIL","mode":"substring","case_sensitive":true,"matches":[{"reduction_id":"r1","kind":"tool_output_truncated","index":2,"offset":15,"length":4,"snippet":"FAIL b.test.ts — expected 3, got 4\\nPASS c.test.ts\\n","snippet_match":[0,4]}],"total_matches":1,"truncated":false,"reductions_searched":1,"hidden_bytes_searched":52}',
    );
  });
});

describe('duplicate-visibility rule', () => {
  const dup = 'npm ERR! code ELIFECYCLE\nnpm ERR! errno 1\n';
  const v = [user('run'), assistant('', 'c1'), tool(dup, 'c1'), assistant('', 'c2'), tool(dup, 'c2'), assistant('', 'c3'), tool('other output', 'c3')];

  it('skips a duplicate whose canonical is fully visible', () => {
    const l = [makeReduction(v, { kind: 'duplicate_output', index: 4, canonical: 2 })];
    const res = value(sidecarSearch(l, 'ELIFECYCLE', v));
    expect(res.total_matches).toBe(0);
    expect(res.reductions_searched).toBe(0);
    expect(res.hidden_bytes_searched).toBe(0);
  });

  it('searches a duplicate whose canonical is reduced by another record', () => {
    const l = [
      makeReduction(v, { id: 'r1', kind: 'tool_output_elided', index: 2 }),
      makeReduction(v, { id: 'r2', kind: 'duplicate_output', index: 4, canonical: 2 }),
    ];
    const res = value(sidecarSearch(l, 'ELIFECYCLE', v));
    expect(res.matches.map((m) => [m.reduction_id, m.index])).toEqual([
      ['r1', 2],
      ['r2', 4],
    ]);
  });

  it('searches a duplicate whose canonical lies inside a cleared range', () => {
    const l = [makeReduction(v, { id: 'r1', kind: 'turns_cleared', index: 0, end: 4 }), makeReduction(v, { id: 'r2', kind: 'duplicate_output', index: 4, canonical: 2 })];
    const res = value(sidecarSearch(l, 'ELIFECYCLE', v));
    expect(res.matches.map((m) => m.reduction_id)).toEqual(['r1', 'r2']);
  });
});

describe('cleared-range attribution rule', () => {
  const long = `${'line of build output\n'.repeat(10)}needle in the tail\n`;
  const v = [user('start'), assistant('', 'c1'), tool(long, 'c1'), assistant('needle in prose'), user('next')];
  const truncated = makeReduction(v, { id: 'r1', kind: 'tool_output_truncated', index: 2, kept_bytes: 21 });
  const cleared = makeReduction(v, { id: 'r2', kind: 'turns_cleared', index: 0, end: 4 });

  it('searches message by message, content only (transcript headers are not content)', () => {
    const res = value(sidecarSearch([cleared], '\u27E8tool', v));
    expect(res.total_matches).toBe(0);
    const all = value(sidecarSearch([cleared], 'needle', v));
    expect(all.matches.map((m) => [m.reduction_id, m.index, m.offset])).toEqual([
      ['r2', 2, long.indexOf('needle')],
      ['r2', 3, 0],
    ]);
    expect(all.hidden_bytes_searched).toBe(v.slice(0, 4).reduce((n, m) => n + utf8Length(m.content), 0));
  });

  it('a match in the hidden span of a per-message reduction is reported once, under that reduction', () => {
    const res = value(sidecarSearch([truncated, cleared], 'needle', v));
    expect(res.matches.map((m) => [m.reduction_id, m.index])).toEqual([
      ['r1', 2],
      ['r2', 3],
    ]);
    expect(res.total_matches).toBe(2);
  });

  it('a match in the kept prefix of a truncated message inside a cleared range is attributed to the cleared range', () => {
    const res = value(sidecarSearch([truncated, cleared], 'line of build', v));
    expect(res.matches[0]).toMatchObject({ reduction_id: 'r2', index: 2, offset: 0 });
    expect(res.matches.filter((m) => m.reduction_id === 'r1').length).toBe(9);
  });
});

describe('modes', () => {
  const text = 'Error: disk full\nerror: retry\nERROR again\n\u00C9RROR accented \u4E2D\u6587 emoji \u{1F389} done';
  const v = [tool(text, 'c1')];
  const l = [makeReduction(v, { kind: 'tool_output_elided', index: 0 })];

  it('substring is case-sensitive by default', () => {
    expect(value(sidecarSearch(l, 'error', v)).total_matches).toBe(1);
  });
  it('case-insensitive substring folds case, including non-ASCII', () => {
    expect(value(sidecarSearch(l, 'error', v, undefined, { case_sensitive: false })).total_matches).toBe(3);
    expect(value(sidecarSearch(l, '\u00E9rror', v, undefined, { case_sensitive: false })).total_matches).toBe(1);
  });
  it('substring treats regex metacharacters literally', () => {
    const w = [tool('a.b a*b (x) [y]', 'c')];
    const wl = [makeReduction(w, { kind: 'tool_output_elided', index: 0 })];
    expect(value(sidecarSearch(wl, 'a.b', w)).total_matches).toBe(1);
    expect(value(sidecarSearch(wl, '(x) [y]', w, undefined, { case_sensitive: false })).total_matches).toBe(1);
  });
  it('regex offsets and lengths are in UTF-8 bytes', () => {
    const res = value(sidecarSearch(l, '\u4E2D.', v, undefined, { mode: 'regex' }));
    expect(res.matches[0]?.offset).toBe(utf8Length(text.slice(0, text.indexOf('\u4E2D'))));
    expect(res.matches[0]?.length).toBe(6);
    const emoji = value(sidecarSearch(l, 'emoji .', v, undefined, { mode: 'regex' }));
    expect(emoji.matches[0]?.length).toBe(10);
  });
  it('matches are leftmost-first and non-overlapping, as a global RegExp counts them', () => {
    const w = [tool('aaaa abab ababab', 'c')];
    const wl = [makeReduction(w, { kind: 'tool_output_elided', index: 0 })];
    expect(value(sidecarSearch(wl, 'aa', w)).matches.map((m) => m.offset)).toEqual([0, 2]);
    expect(value(sidecarSearch(wl, 'abab', w)).matches.map((m) => m.offset)).toEqual([5, 10]);
    expect(value(sidecarSearch(wl, 'a|ab', w, undefined, { mode: 'regex' })).matches.slice(0, 5).map((m) => [m.offset, m.length])).toEqual([
      [0, 1],
      [1, 1],
      [2, 1],
      [3, 1],
      [5, 1],
    ]);
  });
  it('a bad pattern is invalid_query with its position', () => {
    const r = sidecarSearch(l, 'ab(c', v, undefined, { mode: 'regex' });
    if (r.ok) throw new Error('expected invalid_query');
    expect(r.error.code).toBe('invalid_query');
    expect(typeof r.error.position).toBe('number');
    const rep = sidecarSearch(l, 'ab**', v, undefined, { mode: 'regex' });
    expect(rep.ok || rep.error.position).toBe(2);
  });
  it('an empty query is invalid_query', () => {
    expect(sidecarSearch(l, '', v).ok).toBe(false);
  });
  it('regex is linear-time: (a+)+$ over 100,000 a then b returns without a match', () => {
    const w = [tool(`${'a'.repeat(100_000)}b`, 'c')];
    const wl = [makeReduction(w, { kind: 'tool_output_elided', index: 0 })];
    expect(value(sidecarSearch(wl, '(a+)+$', w, undefined, { mode: 'regex' })).total_matches).toBe(0);
  });
});

describe('ordering', () => {
  it('orders by message index, then offset, whatever the log order', () => {
    const v = [tool('x1 x2', 'a'), tool('x3', 'b'), tool('x4 x5', 'c')];
    const l: Reduction[] = [
      makeReduction(v, { id: 'r3', kind: 'tool_output_elided', index: 2 }),
      makeReduction(v, { id: 'r1', kind: 'tool_output_elided', index: 0 }),
      makeReduction(v, { id: 'r2', kind: 'tool_output_elided', index: 1 }),
    ];
    const res = value(sidecarSearch(l, 'x', v));
    expect(res.matches.map((m) => `${m.index}:${m.offset}`)).toEqual(['0:0', '0:3', '1:0', '2:0', '2:3']);
  });
});

describe('bounds and honest truncation', () => {
  const many = Array.from({ length: 120 }, (_, i) => `hit ${i} `).join('');
  const v = [tool(many, 'c')];
  const l = [makeReduction(v, { kind: 'tool_output_elided', index: 0 })];

  it(`returns at most MAX_MATCHES (${MAX_MATCHES}) and counts all`, () => {
    const res = value(sidecarSearch(l, 'hit', v, undefined, { max_result_bytes: 1_000_000 }));
    expect(res.matches.length).toBe(MAX_MATCHES);
    expect(res.total_matches).toBe(120);
    expect(res.truncated).toBe(true);
  });

  it('max_matches is an option', () => {
    const res = value(sidecarSearch(l, 'hit', v, undefined, { max_matches: 3 }));
    expect(res.matches.map((m) => m.offset)).toEqual([0, 6, 12]);
    expect(res.truncated).toBe(true);
  });

  it('drops whole matches to stay within max_result_bytes and says so', () => {
    // Control characters are escaped as \u00XX in JSON: six bytes each, so few snippets fit.
    const big = Array.from({ length: 40 }, (_, i) => `${'\u0001'.repeat(300)} needle${i} `).join('');
    const w = [tool(big, 'c')];
    const wl = [makeReduction(w, { kind: 'tool_output_elided', index: 0 })];
    const res = value(sidecarSearch(wl, 'needle', w));
    const size = utf8Length(JSON.stringify(res));
    expect(size).toBeLessThanOrEqual(MAX_RESULT_BYTES);
    expect(res.matches.length).toBeLessThan(40);
    expect(res.matches.length).toBeGreaterThan(0);
    expect(res.total_matches).toBe(40);
    expect(res.truncated).toBe(true);
    // Dropped from the end: the kept ones are the first ones.
    expect(res.matches.map((m) => m.snippet.includes(`needle${res.matches.indexOf(m)}`))).not.toContain(false);
  });

  it('the bound holds whichever value truncated ends with ("false" is the longer literal)', () => {
    // Found by the property test: one match that fits exactly when sized with "true".
    const v = [tool('', 'c0'), tool('ab\u001b[31mred\u001b[0m ab', 'c1'), tool('', 'c2')];
    const l = [
      makeReduction(v, { id: 'r1', kind: 'tool_output_truncated', index: 0, kept_bytes: 0 }),
      makeReduction(v, { id: 'r2', kind: 'tool_output_elided', index: 1 }),
      makeReduction(v, { id: 'r3', kind: 'tool_output_truncated', index: 2, kept_bytes: 0 }),
    ];
    for (let bound = 300; bound <= 500; bound++) {
      const res = value(sidecarSearch(l, 'a', v, undefined, { max_result_bytes: bound, snippet_max_bytes: 7, max_matches: 2, case_sensitive: false }));
      expect(utf8Length(JSON.stringify(res))).toBeLessThanOrEqual(bound);
      expect(res.truncated).toBe(res.matches.length < res.total_matches);
    }
  });

  it('truncated is false when everything fits', () => {
    expect(value(sidecarSearch(l, 'hit 7 ', v)).truncated).toBe(false);
  });

  it('a query too long to fit any result is invalid_query rather than an over-long result', () => {
    const r = sidecarSearch(l, 'q'.repeat(MAX_RESULT_BYTES), v);
    expect(r.ok || r.error.code).toBe('invalid_query');
  });
});

describe('snippets', () => {
  it(`are at most SNIPPET_MAX_BYTES (${SNIPPET_MAX_BYTES}), char-boundary-safe, and contain the match`, () => {
    const text = `${'\u4E2D\u6587'.repeat(100)}NEEDLE${'\u{1F389}'.repeat(100)}`;
    const v = [tool(text, 'c')];
    const l = [makeReduction(v, { kind: 'tool_output_elided', index: 0 })];
    const m = value(sidecarSearch(l, 'NEEDLE', v)).matches[0];
    if (!m) throw new Error('no match');
    const bytes = utf8Encode(m.snippet);
    expect(bytes.length).toBeLessThanOrEqual(SNIPPET_MAX_BYTES);
    expect(bytes.length).toBeGreaterThan(SNIPPET_MAX_BYTES - 8);
    expect(m.snippet).not.toContain('\uFFFD');
    expect(new TextDecoder().decode(bytes.subarray(m.snippet_match[0], m.snippet_match[1]))).toBe('NEEDLE');
  });
  it('cut a match longer than the bound to its first bytes', () => {
    const text = `pre ${'\u00E9'.repeat(400)} post`;
    const v = [tool(text, 'c')];
    const l = [makeReduction(v, { kind: 'tool_output_elided', index: 0 })];
    const m = value(sidecarSearch(l, '\u00E9+', v, undefined, { mode: 'regex' })).matches[0];
    expect(m?.length).toBe(800);
    expect(m?.snippet).toBe('\u00E9'.repeat(128));
    expect(m?.snippet_match).toEqual([0, 256]);
  });
});

describe('sources', () => {
  it('searches the recorded bytes when the upgrade key holds (legacy capped history)', () => {
    const full = tool(`${'x'.repeat(100)}TAIL-ONLY-RECORDED`, 'c1');
    const minted: ChatMessage[] = [capped(full, 50)];
    const l = [makeReduction(minted, { kind: 'tool_output_truncated', index: 0, kept_bytes: 20 })];
    const res: SidecarSearchResult = value(sidecarSearch(l, 'TAIL-ONLY', minted, [full]));
    expect(res.matches[0]?.offset).toBe(100);
    expect(value(sidecarSearch(l, 'TAIL-ONLY', minted)).total_matches).toBe(0);
  });
  it('skips reductions whose hash does not verify', () => {
    const v = [tool('secret', 'c')];
    const l = [makeReduction(v, { kind: 'tool_output_elided', index: 0 }, { ptr: { index: 0, hash: `sha256:${'1'.repeat(64)}`, bytes: 6 } })];
    const res = value(sidecarSearch(l, 'secret', v));
    expect(res.total_matches).toBe(0);
    expect(res.reductions_searched).toBe(0);
  });
});

describe('cancellation', () => {
  it('an aborted signal returns cancelled', () => {
    const r = sidecarSearch(log, 'PASS', view, undefined, { signal: { aborted: true } });
    expect(r.ok || r.error.code).toBe('cancelled');
  });
});

describe('the cost of a pattern is bounded', () => {
  /** A hostile pattern: a large program, not a nested quantifier. 23 s over 123 KB before. */
  const ATTACK = '[\\s\\S]{1000}'.repeat(10) + '[QZ]';
  /** Below the program limit, yet about as slow per byte as a pattern may be; unbounded, so its windows are sized by cost alone. */
  const HEAVY = '[\\s\\S]{0,1000}[QZ]+';
  /** As heavy, with long matches of bounded length: its windows are sized to find every one exactly. */
  const HEAVY_BOUNDED = '[\\s\\S]{1000}[\\s\\S]{1000}[QZ]';
  const heavySize = RE2JS.compile(HEAVY).programSize();
  /** A step of a few windows' work, so that a small content takes many (SEARCH_STEP_WORK itself is tuned for throughput). */
  const STEP = 1 << 21;

  /** `chars` lowercase bytes (with one Q at `q`, if given), elided, in memory. */
  function longOutput(chars: number, q?: number): { v: ChatMessage[]; l: Reduction[] } {
    let body = 'abcdefghi\n'.repeat(Math.ceil(chars / 10)).slice(0, chars);
    if (q !== undefined) body = body.slice(0, q) + 'Q' + body.slice(q + 1);
    const v = [tool(body, 'c')];
    return { v, l: [makeReduction(v, { kind: 'tool_output_elided', index: 0 })] };
  }

  it(`refuses a pattern that compiles to more than MAX_REGEX_PROGRAM_SIZE (${MAX_REGEX_PROGRAM_SIZE}) instructions up front, naming the limit`, () => {
    const { v, l } = longOutput(123_000, 100_000);
    let reads = 0;
    const counted: MessageList = { length: v.length, at: (i) => (reads++, v[i]) };
    const r = sidecarSearch(l, ATTACK, counted, undefined, { mode: 'regex' });
    if (r.ok) throw new Error('expected invalid_query');
    expect(r.error.code).toBe('invalid_query');
    expect(r.error.message).toContain(`${RE2JS.compile(ATTACK).programSize()} instructions`);
    expect(r.error.message).toContain(`limit of ${MAX_REGEX_PROGRAM_SIZE}`);
    // Refused before any content was read.
    expect(reads).toBe(0);
  });

  it('keeps ordinary patterns, and a case-insensitive query of 2,000 characters', () => {
    const w = [tool('Error: read timeout after 30s; ERROR again, then a timeout', 'c')];
    const wl = [makeReduction(w, { kind: 'tool_output_elided', index: 0 })];
    expect(value(sidecarSearch(wl, '\\w{2,80}', w, undefined, { mode: 'regex' })).total_matches).toBe(9);
    expect(value(sidecarSearch(wl, '(?i)error.*timeout', w, undefined, { mode: 'regex' })).matches.map((m) => [m.offset, m.length])).toEqual([[0, utf8Length(w[0]?.content ?? '')]]);
    expect(value(sidecarSearch(wl, '(?s).{0,1000}x', w, undefined, { mode: 'regex' })).total_matches).toBe(0);
    expect(value(sidecarSearch(wl, '\u00E9'.repeat(2000), w, undefined, { case_sensitive: false })).total_matches).toBe(0);
  });

  it('looks at the signal at least once per step_work (SEARCH_STEP_WORK) of engine work over one long span in memory', () => {
    const { v, l } = longOutput(12_000);
    const signal = countingSignal();
    expect(value(sidecarSearch(l, HEAVY, v, undefined, { mode: 'regex', signal, step_work: STEP })).total_matches).toBe(0);
    expect(signal.looks).toBeGreaterThanOrEqual(Math.floor((heavySize * 12_000) / STEP));
    // By default too, over enough content for several steps.
    const big = longOutput(40_000);
    const byDefault = countingSignal();
    expect(value(sidecarSearch(big.l, HEAVY, big.v, undefined, { mode: 'regex', signal: byDefault })).total_matches).toBe(0);
    expect(byDefault.looks).toBeGreaterThanOrEqual(Math.floor((heavySize * 40_000) / SEARCH_STEP_WORK));
  });

  it('finds every long match of a bounded pattern exactly, across windows', () => {
    const { v, l } = longOutput(14_000, 10_000);
    // The one match: 2,000 characters, then the Q; the same on disk, in small windows.
    const disk = [{ ...(v[0] as ChatMessage), content: '', large: memorySourceOf((v[0] as ChatMessage).content) }];
    for (const view of [v, disk]) {
      expect(value(sidecarSearch(l, HEAVY_BOUNDED, view, undefined, { mode: 'regex' })).matches.map((m) => [m.offset, m.length])).toEqual([[8000, 2001]]);
    }
  });

  it('a signal raised while one long span is searched stops the search at the next look: cancelled', () => {
    const { v, l } = longOutput(12_000);
    const signal = countingSignal(3);
    expect(sidecarSearch(l, HEAVY, v, undefined, { mode: 'regex', signal, step_work: STEP })).toMatchObject({ ok: false, error: { code: 'cancelled' } });
    // Looked at once more on the way out, not once per remaining window.
    expect(signal.looks).toBeLessThanOrEqual(4);
  });

  it('a pattern quadratic in its matches (x[\\s\\S]*Q|x: each short match after a look to the end) still looks at the signal', () => {
    const w = [tool('x'.repeat(8000), 'c')];
    const wl = [makeReduction(w, { kind: 'tool_output_elided', index: 0 })];
    // Unhindered, it counts every x; the first 4,000 each looked at least 4,000 characters ahead.
    const signal = countingSignal();
    expect(value(sidecarSearch(wl, 'x[\\s\\S]*Q|x', w, undefined, { mode: 'regex', max_matches: 0, signal })).total_matches).toBe(8000);
    expect(signal.looks).toBeGreaterThanOrEqual(Math.floor((RE2JS.compile('x[\\s\\S]*Q|x').programSize() * 4000 * 4000) / SEARCH_STEP_WORK));
    const raised = countingSignal(3);
    expect(sidecarSearch(wl, 'x[\\s\\S]*Q|x', w, undefined, { mode: 'regex', signal: raised, step_work: STEP })).toMatchObject({ ok: false, error: { code: 'cancelled' } });
    expect(raised.looks).toBeLessThanOrEqual(4);
  });

  it('many short matches of a cheap pattern cost no extra looks: a match is charged only what the engine may have read', () => {
    const w = [tool('a'.repeat(256 * 1024), 'c')];
    const wl = [makeReduction(w, { kind: 'tool_output_elided', index: 0 })];
    for (const options of [{ mode: 'regex' as const }, { case_sensitive: false }]) {
      const signal = countingSignal();
      expect(value(sidecarSearch(wl, 'a', w, undefined, { ...options, signal })).total_matches).toBe(256 * 1024);
      // One look per 4,096 matches counted, and a few around the span: not one per handful of matches.
      expect(signal.looks).toBeLessThanOrEqual((256 * 1024) / 4096 + 8);
    }
  });

  it('sidecarSearchSteps yields between engine steps and returns what sidecarSearch returns', () => {
    const { v, l } = longOutput(12_000);
    const steps = sidecarSearchSteps(l, HEAVY, v, undefined, { mode: 'regex', step_work: STEP });
    let yields = 0;
    let step = steps.next();
    for (; !step.done; step = steps.next()) yields++;
    expect(yields).toBeGreaterThanOrEqual(Math.floor((heavySize * 12_000) / STEP));
    expect(step.value).toEqual(sidecarSearch(l, HEAVY, v, undefined, { mode: 'regex' }));
  });
});

describe('lone surrogates', () => {
  const content = 'high \ud800 low \udfff reversed \udc00\ud800 end\n';
  const v = [user('Print the odd strings'), assistant('', 'call_1'), tool(content, 'call_1')];
  const l = [makeReduction(v, { kind: 'tool_output_elided', index: 2 })];

  it('a snippet shows each lone surrogate as U+FFFD, as expand does for the same bytes', () => {
    const m = value(sidecarSearch(l, 'reversed', v)).matches[0] as SidecarSearchResult['matches'][number];
    const start = m.offset - m.snippet_match[0];
    const expanded = value(expandReduction(l, 'r1', v, undefined, [start, start + utf8Length(m.snippet)]));
    expect(m.snippet).toBe(expanded.content);
    expect(m.snippet).toBe('high \uFFFD low \uFFFD reversed \uFFFD\uFFFD end\n');
  });

  it('a lone surrogate is found as U+FFFD, by either spelling, in every mode', () => {
    for (const query of ['\uFFFD', '\ud800']) {
      expect(value(sidecarSearch(l, query, v)).matches.map((m) => m.offset)).toEqual([5, 13, 26, 29]);
      expect(value(sidecarSearch(l, query, v, undefined, { case_sensitive: false })).total_matches).toBe(4);
    }
    expect(value(sidecarSearch(l, '\uFFFD{2}', v, undefined, { mode: 'regex' })).matches.map((m) => [m.offset, m.length])).toEqual([[26, 6]]);
  });
});

describe('a large content of bytes that are not all UTF-8, searched by its bytes', () => {
  // A content read from a file beside the session may hold any bytes; 0xff is never UTF-8, nor 0xc3 before a letter.
  const bytes = new Uint8Array([...utf8Encode('ab '), 0xff, ...utf8Encode(' cd \uFFFD ab'), 0xc3, ...utf8Encode('ab')]);
  const joined = concatSources([memorySource(bytes.subarray(0, 5)), memorySource(bytes.subarray(5))], 4);
  const v = [user('x'), assistant('', 'c1'), { ...tool('', 'c1'), large: joined }];
  const r = makeReduction([user('x'), assistant('', 'c1'), tool(new TextDecoder().decode(bytes), 'c1')], { kind: 'tool_output_elided', index: 2 });
  // Its hash is the bytes' own (decoded and encoded again, they would differ).
  const l = [{ ...r, ptr: { ...r.ptr, hash: `sha256:${sha256Hex([bytes])}`, bytes: bytes.length } }];
  const offsets = (query: string) => {
    const found = sidecarSearch(l, query, v, undefined, { max_matches: 100 });
    return found.ok ? found.value.matches.map((m) => m.offset) : found.error.code;
  };

  it('finds a query at its own bytes, after bytes that are not UTF-8 too; U+FFFD where it is written', () => {
    expect('findAll' in joined).toBe(true);
    expect(offsets('ab')).toEqual([0, 12, 15]);
    expect(offsets('\uFFFD')).toEqual([8]);
    expect(offsets('cd \uFFFD')).toEqual([5]);
  });

  it('a regex or a query in any case is found at its own bytes too: each byte that is not UTF-8 is one byte', () => {
    const spans = (query: string, options: Parameters<typeof sidecarSearch>[4]) => {
      const found = sidecarSearch(l, query, v, undefined, { max_matches: 100, ...options });
      return found.ok ? found.value.matches.map((m) => [m.offset, m.length]) : found.error.code;
    };
    expect(spans('[ab]+', { mode: 'regex' })).toEqual([[0, 2], [12, 2], [15, 2]]);
    expect(spans('AB', { case_sensitive: false })).toEqual([[0, 2], [12, 2], [15, 2]]);
    expect(spans('\\w+', { mode: 'regex' })).toEqual([[0, 2], [5, 2], [12, 2], [15, 2]]);
    // 0xFF and 0xC3 are one byte each; the U+FFFD written at 8 is three.
    expect(spans('[^a-z ]', { mode: 'regex' })).toEqual([[3, 1], [8, 3], [14, 1]]);
  });
});

/**
 * The byte offset of each UTF-16 index of `bytes`' decoding where one is: a cut there decodes to
 * the text before the index and the text from it (a cut inside a sequence leaves U+FFFD on its
 * left). Worked out by decoding alone, apart from the code under test.
 */
function cutsOf(bytes: Uint8Array): Map<number, number> {
  const decoder = new TextDecoder();
  const text = decoder.decode(bytes);
  const cuts = new Map<number, number>();
  let index = 0;
  for (let p = 0; p <= bytes.length; p++) {
    while (index <= text.length && decoder.decode(bytes.subarray(0, p)).length > index) index++;
    if (decoder.decode(bytes.subarray(0, p)) === text.slice(0, index) && decoder.decode(bytes.subarray(p)) === text.slice(index)) cuts.set(index, p);
  }
  return cuts;
}

describe('search of bytes that are not all UTF-8, in windows of any size', () => {
  const piece = fc.oneof(
    fc.constantFrom('a', 'b', 'A', 'B', ' ', 'é', '\n', '\uFFFD').map((s) => [...utf8Encode(s)]),
    fc.constantFrom([0xff], [0x80], [0xc3], [0xe2, 0x82], [0xf0, 0x9f, 0x98], [0xe0, 0x80]),
  );
  const content = fc.array(piece, { maxLength: 40 }).map((parts) => new Uint8Array(parts.flat()));
  const queries: { query: string; options: { mode?: 'regex'; case_sensitive?: boolean }; re: RegExp }[] = [
    { query: '[ab]+', options: { mode: 'regex' }, re: /[ab]+/gu },
    { query: 'a.', options: { mode: 'regex' }, re: /a./gu },
    { query: 'AB', options: { case_sensitive: false }, re: /AB/giu },
    { query: 'b[^a-z]', options: { mode: 'regex' }, re: /b[^a-z]/gu },
  ];

  it('finds what the decoded text holds, at the bytes it was read from', () => {
    fc.assert(
      fc.property(content, fc.nat(40), fc.integer({ min: 4, max: 16 }), fc.constantFrom(...queries), (bytes, cut, windowBytes, q) => {
        const at = Math.min(cut, bytes.length);
        const joined = concatSources([memorySource(bytes.subarray(0, at)), memorySource(bytes.subarray(at))], 4);
        const v = [user('x'), assistant('', 'c1'), { ...tool('', 'c1'), large: joined }];
        const r = makeReduction([user('x'), assistant('', 'c1'), tool(new TextDecoder().decode(bytes), 'c1')], { kind: 'tool_output_elided', index: 2 });
        const l = [{ ...r, ptr: { ...r.ptr, hash: `sha256:${sha256Hex([bytes])}`, bytes: bytes.length } }];
        const found = value(sidecarSearch(l, q.query, v, undefined, { max_matches: 1000, window_bytes: windowBytes, ...q.options }));
        const cuts = cutsOf(bytes);
        const text = new TextDecoder().decode(bytes);
        const expected = [...text.matchAll(q.re)].map((m) => {
          const from = cuts.get(m.index) as number;
          return [from, (cuts.get(m.index + m[0].length) as number) - from];
        });
        expect(found.matches.map((m) => [m.offset, m.length])).toEqual(expected);
      }),
      { numRuns: 500 },
    );
  });
});

describe('sidecarSearch: units resolved once per session state', () => {
  /** A view of large (file-like) and in-memory tool outputs, and a list counting the reads of each index. */
  function counted() {
    const outputs = ['alpha needle one', 'beta needle two', 'gamma needle three'];
    const v: ChatMessage[] = outputs.flatMap((o, k) => [assistant('', `c${k}`), tool(o, `c${k}`)]);
    // Index 1 and 3 large, index 5 in memory.
    const messages = v.map((m, i) => (i === 1 || i === 3 ? { ...m, content: '', large: memorySourceOf(m.content) } : m));
    const reads = new Map<number, number>();
    const minted: MessageList = {
      length: messages.length,
      at: (i) => {
        reads.set(i, (reads.get(i) ?? 0) + 1);
        return messages[i];
      },
    };
    const l = [1, 3, 5].map((index) => makeReduction(v, { kind: 'tool_output_elided', index }));
    return { minted, l, reads };
  }

  it('a second search over the same log and lists reads only the in-memory contents again, and finds the same', () => {
    const { minted, l, reads } = counted();
    const first = value(sidecarSearch(l, 'needle', minted));
    expect(first.total_matches).toBe(3);
    expect(reads.get(1)).toBeGreaterThan(0);
    reads.clear();
    const second = value(sidecarSearch(l, 'needle', minted));
    expect(second).toEqual(first);
    expect([...reads.keys()]).toEqual([5]);
  });

  it('searchPreparationSteps does that work ahead, a unit a step: the first search after it reads only the in-memory contents', () => {
    const { minted, l, reads } = counted();
    const steps = searchPreparationSteps(l, minted, undefined);
    let stepped = 0;
    let step = steps.next();
    for (; !step.done; step = steps.next()) stepped++;
    expect(step.value).toEqual({ ok: true, value: 3 });
    expect(stepped).toBe(3);
    expect(reads.get(1)).toBeGreaterThan(0);
    reads.clear();
    const first = value(sidecarSearch(l, 'needle', minted));
    expect(first.total_matches).toBe(3);
    expect([...reads.keys()]).toEqual([5]);
    // The same result as a search with nothing prepared.
    expect(first).toEqual(value(sidecarSearch([...l], 'needle', minted)));
  });

  it('another log array (a followed session hands out a new one), or another list, is resolved afresh', () => {
    const { minted, l, reads } = counted();
    value(sidecarSearch(l, 'needle', minted));
    reads.clear();
    const renewed = [...l];
    expect(value(sidecarSearch(renewed, 'needle', minted)).total_matches).toBe(3);
    expect(reads.get(1)).toBeGreaterThan(0);
    reads.clear();
    const other: MessageList = { length: minted.length, at: (i) => minted.at(i) };
    expect(value(sidecarSearch(renewed, 'needle', other)).total_matches).toBe(3);
    expect(reads.get(3)).toBeGreaterThan(0);
  });
});
