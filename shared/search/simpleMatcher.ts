/**
 * A direct matcher for simple regexes: a pattern that is a concatenation of single
 * code-point sets, each repeated `{min,max}` times greedily (`TS\d{4,5}`, `ZQXJ-needle-7[0-9A-Za-z_]*`),
 * matched on UTF-8 bytes without the regex engine. A search calls it once per literal candidate,
 * where re2js costs some microseconds a call whatever the window.
 *
 * Exactness. The items are read from re2js's compiled program (so the engine's own parse and
 * simplification decide what `\d`, `.`, `[^…]` or `x{2,5}` mean) and only these shapes are
 * accepted, every edge of every instruction accounted for: a rune instruction (`x`), a greedy
 * star (`ALT(out: x → ALT, arg: exit)`), a greedy plus (`x → ALT(out: x, arg: exit)`) and a chain
 * of greedy quests over one set (`x{0,k}`: `ALT(out: x → ALT(…) | exit, arg: exit)`). ALT prefers
 * `out`, so these are greedy by the program's own semantics; anything else (alternation, a lazy
 * quantifier, an assertion, case folding, a capture inside a loop, a shared instruction) declines.
 *
 * Leftmost-first without backtracking: at a start, taking as many as possible for each item in
 * turn is the first path a backtracking matcher explores, so it is the match when it succeeds.
 * When it fails no other path succeeds, provided that for every item i with min < max, its set is
 * disjoint from the sets of the items after it up to and including the first one with min ≥ 1: a
 * path that takes fewer at i leaves a code point of i's set for one of those items (the ones
 * before it take nothing), which none can take. Adjacent items over one set are merged first
 * (`\d\d\d\d\d?` is `\d{4,5}`), which changes neither the strings nor the greedy choice. Patterns
 * that fail the condition (`\w*\d`) decline. The matcher is linear: one pass over each item's run.
 */
import type { RE2JS } from 're2js';
import type { Inst } from './literalPrefilter';
import { ALT, CAPTURE, consumes, FOLD_CASE, MATCH, NOP, readProgram, RUNE, RUNE1, RUNE_ANY, RUNE_ANY_NOT_NL } from './literalPrefilter';
import { utf8SequenceAt } from '../format/utf8';

const MAX_RUNE = 0x10ffff;

/** One item: a code point of `ranges` (sorted, disjoint, inclusive pairs), `min` to `max` times, greedily. */
export interface SimpleItem {
  ranges: readonly number[];
  min: number;
  max: number;
}

export interface SimpleMatcher {
  readonly items: readonly SimpleItem[];
  /**
   * The end of the leftmost-first match that starts at byte `start` of `bytes[…end)` (a character
   * boundary), taken as a string of its own; -1 when no match starts there; undefined when the
   * bytes the match needs are not well-formed UTF-8 (the caller then asks the engine).
   */
  matchAt(bytes: Uint8Array, start: number, end: number): number | undefined;
}

/** The code-point set a rune instruction matches, or null (case folding, or not a rune instruction). */
function setOf(i: Inst): number[] | null {
  if (i.op === RUNE_ANY) return [0, MAX_RUNE];
  if (i.op === RUNE_ANY_NOT_NL) return [0, 0x09, 0x0b, MAX_RUNE];
  if (i.op !== RUNE && i.op !== RUNE1) return null;
  if ((i.arg & FOLD_CASE) !== 0) return null;
  const runes = Array.from(i.runes);
  if (runes.length === 1) return [runes[0] as number, runes[0] as number];
  if (i.op === RUNE1 || runes.length % 2 !== 0) return null;
  for (let k = 0; k < runes.length; k += 2) {
    const lo = runes[k] as number;
    const hi = runes[k + 1] as number;
    // Sorted, disjoint, in range: what the membership test assumes.
    if (!(lo <= hi && hi <= MAX_RUNE && lo >= 0 && (k === 0 || lo > (runes[k - 1] as number)))) return null;
  }
  return runes;
}

const sameSet = (a: readonly number[], b: readonly number[]): boolean => a.length === b.length && a.every((v, k) => v === b[k]);

function intersects(a: readonly number[], b: readonly number[]): boolean {
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if ((a[i + 1] as number) < (b[j] as number)) i += 2;
    else if ((b[j + 1] as number) < (a[i] as number)) j += 2;
    else return true;
  }
  return false;
}

/** The program's items in order, or null when it is not such a concatenation (see the module comment). */
export function simpleItems(re: RE2JS): SimpleItem[] | null {
  const prog = readProgram(re);
  if (!prog) return null;
  const { inst } = prog;
  const seen = new Uint8Array(inst.length);
  /** Marks an instruction as read; false when it was already (a shared or looping instruction outside the known shapes). */
  const visit = (pc: number): boolean => (seen[pc] ? false : (seen[pc] = 1) === 1);
  /** Past NOPs and captures (a capture outside any loop only records a position). */
  const skip = (pc: number): number | null => {
    while (inst[pc]?.op === NOP || inst[pc]?.op === CAPTURE) {
      if (!visit(pc)) return null;
      pc = (inst[pc] as Inst).out;
    }
    return pc;
  };
  const items: SimpleItem[] = [];
  let pc = skip(prog.start);
  for (;;) {
    if (pc === null) return null;
    const i = inst[pc] as Inst;
    if (i.op === MATCH) break;
    if (!visit(pc)) return null;
    if (consumes(i)) {
      const set = setOf(i);
      if (!set) return null;
      const loop = inst[i.out] as Inst;
      if (loop.op === ALT && (loop.out === pc || loop.arg === pc)) {
        // x+: greedy when the loop is ALT's preferred branch.
        if (loop.out !== pc || !visit(i.out)) return null;
        items.push({ ranges: set, min: 1, max: Infinity });
        pc = skip(loop.arg);
      } else {
        items.push({ ranges: set, min: 1, max: 1 });
        pc = skip(i.out);
      }
      continue;
    }
    if (i.op !== ALT) return null;
    const body = inst[i.out] as Inst;
    if (!consumes(body)) return null;
    const set = setOf(body);
    if (!set || !visit(i.out)) return null;
    if (body.out === pc) {
      // x*: ALT prefers another x.
      items.push({ ranges: set, min: 0, max: Infinity });
      pc = skip(i.arg);
      continue;
    }
    // x{0,k}: k nested greedy quests over one set, all leaving to one exit.
    const exit = i.arg;
    let k = 1;
    let at = body.out;
    while (at !== exit) {
      const alt = inst[at] as Inst;
      if (alt.op !== ALT || alt.arg !== exit || !visit(at)) return null;
      const next = inst[alt.out] as Inst;
      const nextSet = consumes(next) ? setOf(next) : null;
      if (!nextSet || !sameSet(nextSet, set) || !visit(alt.out)) return null;
      k++;
      at = next.out;
    }
    items.push({ ranges: set, min: 0, max: k });
    pc = skip(exit);
  }
  // Adjacent items over one set are one item.
  const merged: SimpleItem[] = [];
  for (const item of items) {
    const last = merged[merged.length - 1];
    if (last && sameSet(last.ranges, item.ranges)) merged[merged.length - 1] = { ranges: last.ranges, min: last.min + item.min, max: last.max + item.max };
    else merged.push(item);
  }
  return merged;
}

/** True when greedy matching of `items` never needs to backtrack (see the module comment). */
export function greedyIsExact(items: readonly SimpleItem[]): boolean {
  for (let i = 0; i < items.length; i++) {
    const item = items[i] as SimpleItem;
    if (item.min === item.max) continue;
    for (let m = i + 1; m < items.length; m++) {
      const later = items[m] as SimpleItem;
      if (intersects(item.ranges, later.ranges)) return false;
      if (later.min >= 1) break;
    }
  }
  return true;
}

/** Ranges beyond ASCII, for code points ≥ 0x80; ASCII is a table. */
function compileItem(item: SimpleItem): { ascii: Uint8Array; wide: number[]; min: number; max: number } {
  const ascii = new Uint8Array(128);
  const wide: number[] = [];
  for (let k = 0; k < item.ranges.length; k += 2) {
    const lo = item.ranges[k] as number;
    const hi = item.ranges[k + 1] as number;
    for (let c = lo; c <= Math.min(hi, 0x7f); c++) ascii[c] = 1;
    if (hi >= 0x80) wide.push(Math.max(lo, 0x80), hi);
  }
  return { ascii, wide, min: item.min, max: item.max };
}

function inRanges(ranges: readonly number[], c: number): boolean {
  // Binary search over the pairs.
  let lo = 0;
  let hi = ranges.length / 2 - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (c < (ranges[2 * mid] as number)) hi = mid - 1;
    else if (c > (ranges[2 * mid + 1] as number)) lo = mid + 1;
    else return true;
  }
  return false;
}

/** The direct matcher of `re`, or undefined when its pattern is not simple (see the module comment). */
export function simpleMatcher(re: RE2JS): SimpleMatcher | undefined {
  const items = simpleItems(re);
  if (!items || items.length === 0 || !items.some((i) => i.min >= 1) || !greedyIsExact(items)) return undefined;
  const compiled = items.map(compileItem);
  return {
    items,
    matchAt(bytes, start, end) {
      let p = start;
      for (const item of compiled) {
        let count = 0;
        while (count < item.max && p < end) {
          const b = bytes[p] as number;
          if (b < 0x80) {
            if (item.ascii[b] === 0) break;
            p++;
          } else {
            const d = utf8SequenceAt(bytes, p, end);
            if (d < 0) return undefined;
            if (item.wide.length === 0 || !inRanges(item.wide, Math.floor(d / 8))) break;
            p += d % 8;
          }
          count++;
        }
        if (count < item.min) return -1;
      }
      return p;
    },
  };
}

/**
 * True when no item of `direct` matches a code point that JSON.stringify writes as an escape (the
 * controls U+0000–U+001F, `"` and `\\`) or U+FFFD (what a lone-surrogate escape decodes to): every
 * match is then a run of bytes a canonical JSON body holds literally, so the pattern can be
 * matched in the body's raw bytes (ByteSource.findAllDirect).
 */
export function rawSafe(direct: SimpleMatcher): boolean {
  const escaped = [0x00, 0x1f, 0x22, 0x22, 0x5c, 0x5c, 0xfffd, 0xfffd];
  return direct.items.every((item) => !intersects(item.ranges, escaped));
}

