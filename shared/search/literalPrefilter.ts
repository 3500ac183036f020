/**
 * The literal every match of a regex must contain, read from its compiled program, and how far a
 * match can reach around it. A search that knows it scans raw bytes for the literal
 * with the fast substring path and runs the regex engine only in a window around each occurrence,
 * with exactly the results of one engine scan of the whole text (see `search.ts`, `scanCandidates`).
 *
 * Exactness needs, and this module only answers when all hold:
 * - no zero-width assertion or lookbehind anywhere in the program (`^`, `$`, `\b`, …): a window
 *   then sees everything a match depends on;
 * - the literal is matched case-sensitively, rune by rune, on every path from the start to a match
 *   (its instructions dominate MATCH and follow each other with nothing consumed in between);
 * - it has no border (no proper prefix that is also a suffix): its occurrences never overlap, so
 *   the leftmost non-overlapping occurrences a source's `findAll` gives are all of them;
 * - the most code points a match can hold before the literal (`before`) and from the literal's
 *   start to its end (`after`) are finite, or the pattern can never match a newline (`noNewline`:
 *   the window then reaches to the line's start or end where a bound is infinite).
 *
 * re2js does not publish its program; a program that does not look as expected answers null (the
 * search then runs the engine everywhere, as before), never a wrong prefilter. Property tests
 * compare prefiltered and plain searches over random patterns and texts.
 */
import type { RE2JS } from 're2js';

export interface LiteralPrefilter {
  /** The literal (at least one code point). */
  literal: string;
  /** Most code points of a match before the literal starts (Infinity: unbounded, then `noNewline`). */
  before: number;
  /** Most code points of a match from the literal's start to its end (Infinity: unbounded, then `noNewline`). */
  after: number;
  /** No match can contain U+000A. */
  noNewline: boolean;
}

/** One instruction of re2js's compiled program, as `readProgram` checked it. */
export interface Inst {
  op: number;
  out: number;
  arg: number;
  runes: ArrayLike<number>;
}

// Op codes of re2js's Inst (see matchLengthBounds in search.ts).
export const ALT = 1;
const ALT_MATCH = 2;
export const CAPTURE = 3;
const EMPTY_WIDTH = 4;
const FAIL = 5;
export const MATCH = 6;
export const NOP = 7;
export const RUNE = 8;
export const RUNE1 = 9;
export const RUNE_ANY = 10;
export const RUNE_ANY_NOT_NL = 11;
/** The flag (in `arg`) of a rune instruction matched with case folding. */
export const FOLD_CASE = 1;
const NEWLINE = 0x0a;
/** Longest literal kept (a longer one is cut: any prefix of a required literal is required). */
const MAX_LITERAL_RUNES = 64;

/** re2js's program of `re`, each instruction's fields checked (null when it does not look as expected). */
export function readProgram(re: RE2JS): { inst: Inst[]; start: number } | null {
  const prog = (re as unknown as { re2Input?: { prog?: { inst?: unknown; start?: unknown } } }).re2Input?.prog;
  if (!prog || !Array.isArray(prog.inst) || typeof prog.start !== 'number') return null;
  const inst: Inst[] = [];
  const n = prog.inst.length;
  const valid = (pc: unknown): pc is number => typeof pc === 'number' && Number.isInteger(pc) && pc >= 0 && pc < n;
  for (const raw of prog.inst as { op?: unknown; out?: unknown; arg?: unknown; runes?: unknown }[]) {
    const { op, out, arg, runes } = raw;
    if (typeof op !== 'number' || op < ALT || op > 13) return null;
    if (op !== FAIL && op !== MATCH && !valid(out)) return null;
    if ((op === ALT || op === ALT_MATCH) && !valid(arg)) return null;
    const r = runes as ArrayLike<number> | undefined;
    if ((op === RUNE || op === RUNE1) && (r === undefined || typeof r.length !== 'number' || r.length === 0)) return null;
    inst.push({ op, out: out as number, arg: typeof arg === 'number' ? arg : 0, runes: r ?? [] });
  }
  return valid(prog.start) ? { inst, start: prog.start } : null;
}

function successors(i: Inst): number[] {
  if (i.op === FAIL || i.op === MATCH) return [];
  if (i.op === ALT || i.op === ALT_MATCH) return [i.out, i.arg];
  return [i.out];
}

export const consumes = (i: Inst): boolean => i.op === RUNE || i.op === RUNE1 || i.op === RUNE_ANY || i.op === RUNE_ANY_NOT_NL;

/** The one rune an instruction matches case-sensitively, or null. */
function literalRune(i: Inst): number | null {
  if ((i.arg & FOLD_CASE) !== 0) return null;
  if (i.op === RUNE1) return i.runes.length === 1 ? (i.runes[0] as number) : null;
  if (i.op === RUNE && i.runes.length === 2 && i.runes[0] === i.runes[1]) return i.runes[0] as number;
  return null;
}

function canMatchNewline(i: Inst): boolean {
  if (i.op === RUNE_ANY) return true;
  if (i.op === RUNE1) return i.runes[0] === NEWLINE;
  if (i.op !== RUNE) return false;
  if (i.runes.length === 1) return i.runes[0] === NEWLINE;
  for (let k = 0; k + 1 < i.runes.length; k += 2) if ((i.runes[k] as number) <= NEWLINE && NEWLINE <= (i.runes[k + 1] as number)) return true;
  return false;
}

function reachable(inst: readonly Inst[], from: number, avoid = -1): Uint8Array {
  const seen = new Uint8Array(inst.length);
  if (from === avoid) return seen;
  const stack = [from];
  seen[from] = 1;
  while (stack.length > 0) {
    const pc = stack.pop() as number;
    for (const to of successors(inst[pc] as Inst)) {
      if (to === avoid || seen[to]) continue;
      seen[to] = 1;
      stack.push(to);
    }
  }
  return seen;
}

/** Longest count of consuming instructions on a path from `from` to a node in `targets` within `live`; Infinity on a cycle. */
function longestPath(inst: readonly Inst[], from: number, isTarget: (pc: number) => boolean, live: Uint8Array): number {
  const state = new Uint8Array(inst.length);
  const best = new Array<number>(inst.length).fill(-Infinity);
  const stack: number[] = [from];
  while (stack.length > 0) {
    const pc = stack[stack.length - 1] as number;
    if (state[pc] === 0) {
      state[pc] = 1;
      // A path ends at its first target: what follows a target is not on it.
      if (!isTarget(pc)) for (const to of successors(inst[pc] as Inst)) {
        if (!live[to]) continue;
        if (state[to] === 1) return Infinity;
        if (state[to] === 0) stack.push(to);
      }
      continue;
    }
    stack.pop();
    if (state[pc] === 2) continue;
    state[pc] = 2;
    // A target counts nothing of its own: `before` ends where the literal starts.
    if (isTarget(pc)) {
      best[pc] = 0;
      continue;
    }
    let b = -Infinity;
    for (const to of successors(inst[pc] as Inst)) if (live[to]) b = Math.max(b, best[to] as number);
    best[pc] = b + (consumes(inst[pc] as Inst) && b > -Infinity ? 1 : 0);
  }
  return best[from] as number;
}

/** Length of the longest proper border of `runes` (0: occurrences never overlap). */
function borderLength(runes: readonly number[]): number {
  const fail = new Array<number>(runes.length).fill(0);
  for (let i = 1, k = 0; i < runes.length; i++) {
    while (k > 0 && runes[i] !== runes[k]) k = fail[k - 1] as number;
    if (runes[i] === runes[k]) k++;
    fail[i] = k;
  }
  return runes.length > 0 ? (fail[runes.length - 1] as number) : 0;
}

/** The prefilter of `re`'s program, or null when none is exact (see the module comment). */
export function literalPrefilter(re: RE2JS): LiteralPrefilter | null {
  const prog = readProgram(re);
  if (!prog) return null;
  const { inst, start } = prog;
  const n = inst.length;
  const fromStart = reachable(inst, start);
  // Nodes that can reach a MATCH (reverse reachability).
  const preds: number[][] = Array.from({ length: n }, () => []);
  inst.forEach((i, pc) => {
    for (const to of successors(i)) (preds[to] as number[]).push(pc);
  });
  const toMatch = new Uint8Array(n);
  const stack: number[] = [];
  inst.forEach((i, pc) => {
    if (i.op === MATCH) {
      toMatch[pc] = 1;
      stack.push(pc);
    }
  });
  while (stack.length > 0) {
    const pc = stack.pop() as number;
    for (const p of preds[pc] as number[]) {
      if (toMatch[p]) continue;
      toMatch[p] = 1;
      stack.push(p);
    }
  }
  const live = new Uint8Array(n);
  for (let pc = 0; pc < n; pc++) live[pc] = fromStart[pc] && toMatch[pc] ? 1 : 0;
  if (!live[start]) return null;
  let noNewline = true;
  for (let pc = 0; pc < n; pc++) {
    if (!live[pc]) continue;
    const i = inst[pc] as Inst;
    if (i.op === EMPTY_WIDTH || i.op > RUNE_ANY_NOT_NL) return null; // assertions and lookbehinds
    if (canMatchNewline(i)) noNewline = false;
  }
  // Literal instructions that every path from the start to a MATCH goes through.
  const dominates = (d: number): boolean => {
    const without = reachable(inst, start, d);
    for (let pc = 0; pc < n; pc++) if (without[pc] && inst[pc]?.op === MATCH) return false;
    return true;
  };
  let best: { head: number; runes: number[] } | null = null;
  const inChain = new Uint8Array(n);
  for (let pc = 0; pc < n; pc++) {
    if (!live[pc] || inChain[pc] || literalRune(inst[pc] as Inst) === null || !dominates(pc)) continue;
    // Follow the forced path: zero-width single-successor steps, then the next literal rune.
    const runes: number[] = [];
    const nodes: number[] = [];
    let cur = pc;
    for (;;) {
      const r = literalRune(inst[cur] as Inst);
      if (r === null || runes.length === MAX_LITERAL_RUNES) break;
      runes.push(r);
      nodes.push(cur);
      inChain[cur] = 1;
      let next = (inst[cur] as Inst).out;
      while (inst[next]?.op === CAPTURE || inst[next]?.op === NOP) next = (inst[next] as Inst).out;
      cur = next;
    }
    // Any piece of a required literal is required: the longest piece whose occurrences cannot overlap.
    for (let i = 0; i < runes.length; i++) {
      for (let j = runes.length; j > i && (!best || j - i > best.runes.length); j--) {
        const piece = runes.slice(i, j);
        if (borderLength(piece) === 0) {
          best = { head: nodes[i] as number, runes: piece };
          break;
        }
      }
    }
  }
  if (!best) return null;
  const head = best.head;
  // Before: nodes on a start→head path.
  const toHead = new Uint8Array(n);
  toHead[head] = 1;
  stack.push(head);
  while (stack.length > 0) {
    const pc = stack.pop() as number;
    for (const p of preds[pc] as number[]) {
      if (toHead[p] || !fromStart[p]) continue;
      toHead[p] = 1;
      stack.push(p);
    }
  }
  const before = longestPath(inst, start, (pc) => pc === head, toHead);
  if (!Number.isFinite(before) && !noNewline) return null;
  const after = longestPath(inst, head, (pc) => inst[pc]?.op === MATCH, live);
  if (!Number.isFinite(after) && !noNewline) return null;
  return { literal: String.fromCodePoint(...best.runes), before: Math.max(0, before), after, noNewline };
}
