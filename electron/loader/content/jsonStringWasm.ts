/**
 * The walk of a JSON string body (jsonString.ts `JsonStringWalk`) as a WebAssembly loop:
 * tool outputs hold an escape every ~16 bytes, and finding each with `Buffer.indexOf` (a call into
 * C++ per escape) walked at ~200 MB/s, the largest cost of indexing. Two functions over the same
 * loop, one counting the decoded bytes and one also writing them (indexing hashes a large content
 * in the same pass that walks it):
 *
 *   walk(src, soft, hard, dst) / decode(src, soft, hard, dst) → why it stopped
 *
 * Both step token by token (a literal byte, or a whole escape) from `src`; before each token they
 * stop with 0 when `src ≥ soft`; they stop with 1 at an unescaped quote, with 2 at an escape that
 * `hard` cuts (the caller resumes at its backslash), with 3 at an escape they leave to the caller
 * (any `\u` but `\u00XX` below 0x80, or a malformed one: jsonString's readEscape reads it, and
 * throws on a bad one). An escape may end past `soft`, never past `hard`. They leave `src` at
 * memory[512], `dst` (advanced by one per decoded byte: `decode` writes there) at memory[516], and
 * set memory[520] to 1 at an escape JSON.stringify would not write (`\/`, `\u00XX` other than a
 * lower-case control character without a short form).
 *
 * Memory layout: bytes 0–255 map an escape's second byte to what it decodes to (-1: not a short
 * escape), 256–511 a hex digit to its value (-1: not one), 512–523 the results; the raw window
 * starts at IN, the decoded one at OUT(window). No binary is kept in the repository: the module is
 * assembled below from its instruction list.
 */

import { I32, I64, OP, V128, VOID, get, inc, leb, leb64, load8s, load8u, name, num, section, tee } from './wasmAssembly';


/** Where the raw window starts in the walker's memory. */
export const IN = 1024;
/** Where the decoded window starts: decoded bytes are never more than raw ones (plus a code point's slack). */
export const outAt = (window: number): number => IN + window + 64;
const SRC_SLOT = 512;
const DST_SLOT = 516;
const NONCANONICAL_SLOT = 520;

/** Why a walk stopped. */
export const STOP_SOFT = 0;
export const STOP_QUOTE = 1;
export const STOP_CUT = 2;
export const STOP_OTHER = 3;

/** SIMD instructions: the 0xfd prefix and their LEB128 numbers. */
const SIMD = {
  load: [0xfd, 0x00],
  const: [0xfd, 0x0c],
  store: [0xfd, 0x0b],
  eq: [0xfd, 0x23],
  or: [0xfd, 0x50],
  bitmask: [0xfd, 0x64],
} as const;



// Params: 0 src, 1 soft, 2 hard, 3 dst; locals: 4 byte, 5 value, 6 second byte (i32), 7 word, 8 scratch (i64).
const [S, SOFT, HARD, D, B, V, C, W, X] = [0, 1, 2, 3, 4, 5, 6, 7, 8];
const i64 = (n: bigint) => [OP.i64const, ...leb64(n)];
const ONES = 0x0101010101010101n;
const HIGHS = 0x8080808080808080n;
const store32 = (slot: number, value: number[]) => [...num(0), ...value, OP.store32, 2, ...leb(slot)];
const exit = (why: number) => [...store32(SRC_SLOT, get(S)), ...store32(DST_SLOT, get(D)), ...num(why), OP.return];
const when = (...then: number[]) => [OP.if, VOID, ...then, OP.end];
const noncanonical = store32(NONCANONICAL_SLOT, num(1));
/** Leaves on the stack the bytes of X that are zero, as their high bits (exact up to the first one, which is all ctz needs). */
const zeroBytesOfX = [...get(X), ...i64(ONES), OP.i64sub, ...get(X), ...i64(-1n), OP.i64xor, OP.i64and];

/**
 * Sixteen bytes at a time (SIMD) while they lie before soft: a vector with no quote and no
 * backslash is literal (copied whole); otherwise the literal bytes before the first of them are
 * (the vector is stored whole: the bytes after them are written over, and OUT has slack for them).
 */
function vectorStep(write: boolean): number[] {
  const splat = (b: number) => [...SIMD.const, ...new Array<number>(16).fill(b)];
  const emitVector = write ? [...get(D), ...get(W), ...SIMD.store, 0, 0] : [];
  return [
    ...get(S), ...num(16), OP.add, ...get(SOFT), OP.leU,
    ...when(
      ...get(S), ...SIMD.load, 0, 0, OP.localTee, W,
      ...splat(0x22), ...SIMD.eq, ...get(W), ...splat(0x5c), ...SIMD.eq, ...SIMD.or, ...SIMD.bitmask, ...tee(B),
      OP.eqz, ...when(...emitVector, ...inc(D, 16), ...inc(S, 16), OP.br, 2),
      ...emitVector,
      ...get(B), OP.ctz, ...tee(B),
      ...get(D), OP.add, OP.localSet, D,
      ...get(S), ...get(B), OP.add, OP.localSet, S,
    ),
  ];
}

/** The loop; `write`: also store each decoded byte at dst; `simd`: sixteen bytes a step, else eight. Depths inside an `if`: 0 = the if, 1 = the loop. */
function loopBody(write: boolean, simd: boolean): number[] {
  const emit = (value: number) => (write ? [...get(D), ...get(value), OP.store8, 0, 0] : []);
  // Eight bytes at a time while they lie before soft: a word with no quote and no backslash is
  // literal (copied whole); otherwise the literal bytes before the first of them are (the word is
  // stored whole: the bytes after them are written over, and OUT has slack for them).
  const emitWord = write ? [...get(D), ...get(W), OP.i64store, 0, 0] : [];
  const word = simd ? vectorStep(write) : [
    ...get(S), ...num(8), OP.add, ...get(SOFT), OP.leU,
    ...when(
      ...get(S), OP.i64load, 0, 0, OP.localTee, W,
      ...i64(0x2222222222222222n), OP.i64xor, OP.localSet, X, ...zeroBytesOfX,
      ...get(W), ...i64(0x5c5c5c5c5c5c5c5cn), OP.i64xor, OP.localSet, X, ...zeroBytesOfX,
      OP.i64or, ...i64(HIGHS), OP.i64and, OP.localTee, X,
      OP.i64eqz, ...when(...emitWord, ...inc(D, 8), ...inc(S, 8), OP.br, 2),
      ...emitWord,
      ...get(X), OP.i64ctz, ...i64(3n), OP.i64shrU, OP.wrap, OP.localTee, B,
      ...get(D), OP.add, OP.localSet, D,
      ...get(S), ...get(B), OP.add, OP.localSet, S,
    ),
  ];
  return [
    OP.loop, VOID,
    ...get(S), ...get(SOFT), OP.geU, ...when(...exit(STOP_SOFT)),
    ...word,
    ...get(S), ...load8u(0), ...tee(B), ...num(0x22), OP.eq, ...when(...exit(STOP_QUOTE)),
    ...get(B), ...num(0x5c), OP.ne, ...when(...emit(B), ...inc(D, 1), ...inc(S, 1), OP.br, 1),
    // A backslash: its second byte must be in the window.
    ...get(S), ...num(1), OP.add, ...get(HARD), OP.geU, ...when(...exit(STOP_CUT)),
    ...get(S), ...load8u(1), ...tee(C), ...load8s(0), ...tee(V), ...num(0), OP.geS,
    ...when(...get(C), ...num(0x2f), OP.eq, ...when(...noncanonical), ...emit(V), ...inc(D, 1), ...inc(S, 2), OP.br, 1),
    // `\u00XY` below 0x80; any other `\u` (or a bad escape) is the caller's.
    ...get(C), ...num(0x75), OP.ne, ...when(...exit(STOP_OTHER)),
    ...get(S), ...num(6), OP.add, ...get(HARD), OP.gtU, ...when(...exit(STOP_CUT)),
    ...get(S), ...load8u(2), ...num(0x30), OP.ne, ...when(...exit(STOP_OTHER)),
    ...get(S), ...load8u(3), ...num(0x30), OP.ne, ...when(...exit(STOP_OTHER)),
    ...get(S), ...load8u(4), ...num(0x30), OP.sub, ...tee(B), ...num(7), OP.gtU, ...when(...exit(STOP_OTHER)),
    ...get(S), ...load8u(5), ...tee(C), ...load8s(256), ...tee(V), ...num(0), OP.ltS, ...when(...exit(STOP_OTHER)),
    ...get(B), ...num(4), OP.shl, ...get(V), OP.or, ...tee(V),
    // Canonical only as JSON.stringify writes it: a control character without a short form, lower-case hex.
    ...num(0x20), OP.geU,
    ...[8, 9, 10, 12, 13].flatMap((cu) => [...get(V), ...num(cu), OP.eq, OP.or]),
    ...get(C), ...num(0x41), OP.sub, ...num(5), OP.leU, OP.or,
    ...when(...noncanonical),
    ...emit(V), ...inc(D, 1), ...inc(S, 6), OP.br, 0,
    OP.end,
    OP.unreachable,
    OP.end,
  ];
}



/** The module's bytes: one memory imported as m.memory; `walk` (function 0) and `decode` (function 1); `simd`: with SIMD instructions. */
export function walkerModuleBytes(simd: boolean): Uint8Array {
  const code = (write: boolean) => {
    const body = [2, 3, I32, 2, simd ? V128 : I64, ...loopBody(write, simd)];
    return [...leb(body.length), ...body];
  };
  return new Uint8Array([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(1, [1, 0x60, 4, I32, I32, I32, I32, 1, I32]),
    ...section(2, [1, ...name('m'), ...name('memory'), 0x02, 0x00, 1]),
    ...section(3, [2, 0, 0]),
    ...section(7, [2, ...name('walk'), 0x00, 0, ...name('decode'), 0x00, 1]),
    ...section(10, [2, ...code(false), ...code(true)]),
  ]);
}

/** What each short escape's second character decodes to (`\\/` too: valid JSON, not canonical). */
const SHORT_ESCAPE_OF: Record<string, number> = { '"': 0x22, '\\': 0x5c, '/': 0x2f, b: 0x08, f: 0x0c, n: 0x0a, r: 0x0d, t: 0x09 };

/** A walker instance: its memory's windows and the two loops. */
export interface WasmWalker {
  /** Raw bytes per call at most. */
  readonly window: number;
  /** The raw window (IN) and the decoded one (OUT). */
  readonly raw: Buffer;
  readonly out: Buffer;
  /** Runs a loop over raw indices [src, hard) (soft: see the module comment), decoded bytes from out index dst; answers why it stopped. */
  run(write: boolean, src: number, soft: number, hard: number, dst: number): number;
  /** Where the last run stopped: raw index, out index (or count). */
  src(): number;
  dst(): number;
  /** Reads and clears the non-canonical flag. */
  takeNoncanonical(): boolean;
}

/** The part of the WebAssembly API used here (the Node typings in use do not declare it). */
interface WasmApi {
  Memory: new (descriptor: { initial: number }) => { buffer: ArrayBuffer };
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: Record<string, unknown> };
}

/**
 * A walker over windows of `window` raw bytes — with SIMD where the engine has it, else eight
 * bytes a step (`simd: false` asks for that one) — or undefined where WebAssembly is missing.
 */
export function wasmWalker(window: number, simd = true): WasmWalker | undefined {
  const wasm = (globalThis as unknown as { WebAssembly?: WasmApi }).WebAssembly;
  if (!wasm || window < 16) return undefined;
  try {
    const out0 = outAt(window);
    const memory = new wasm.Memory({ initial: Math.ceil((out0 + window + 64) / 65536) });
    let module: object;
    try {
      module = new wasm.Module(walkerModuleBytes(simd));
    } catch (e) {
      if (!simd) throw e;
      module = new wasm.Module(walkerModuleBytes(false));
    }
    const instance = new wasm.Instance(module, { m: { memory } });
    type Loop = (src: number, soft: number, hard: number, dst: number) => number;
    const walk = instance.exports.walk as Loop;
    const decode = instance.exports.decode as Loop;
    // The two lookup tables: an escape's second byte → what it decodes to, a hex digit → its value.
    const tables = new Int8Array(memory.buffer, 0, 512);
    for (let c = 0; c < 256; c++) {
      tables[c] = SHORT_ESCAPE_OF[String.fromCharCode(c)] ?? -1;
      tables[256 + c] = /^[0-9a-fA-F]$/.test(String.fromCharCode(c)) ? parseInt(String.fromCharCode(c), 16) : -1;
    }
    const slots = new Int32Array(memory.buffer, SRC_SLOT, 3);
    return {
      window,
      raw: Buffer.from(memory.buffer, IN, window),
      out: Buffer.from(memory.buffer, out0, window + 64),
      run: (write, src, soft, hard, dst) => (write ? decode(IN + src, IN + soft, IN + hard, out0 + dst) : walk(IN + src, IN + soft, IN + hard, out0 + dst)),
      src: () => (slots[0] as number) - IN,
      dst: () => (slots[1] as number) - out0,
      takeNoncanonical: () => {
        const set = slots[2] !== 0;
        slots[2] = 0;
        return set;
      },
    };
  } catch {
    return undefined;
  }
}
