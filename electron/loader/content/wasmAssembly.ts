/**
 * What the loader's WebAssembly module (jsonStringWasm.ts, the string walker of indexing and of
 * hashing) is assembled with: opcodes, value types, LEB128 immediates, sections and names. No
 * binary is kept in the repository; the module is written out from its instruction list at first use.
 */

/** The opcodes the modules use (the WebAssembly 1.0 binary format). */
export const OP = {
  unreachable: 0x00,
  block: 0x02,
  loop: 0x03,
  if: 0x04,
  end: 0x0b,
  br: 0x0c,
  brIf: 0x0d,
  return: 0x0f,
  localGet: 0x20,
  localSet: 0x21,
  localTee: 0x22,
  i64load: 0x29,
  load8s: 0x2c,
  load8u: 0x2d,
  store32: 0x36,
  i64store: 0x37,
  store8: 0x3a,
  i32const: 0x41,
  i64const: 0x42,
  eqz: 0x45,
  eq: 0x46,
  ne: 0x47,
  ltS: 0x48,
  gtU: 0x4b,
  leU: 0x4d,
  geS: 0x4e,
  geU: 0x4f,
  i64eqz: 0x50,
  ctz: 0x68,
  add: 0x6a,
  sub: 0x6b,
  or: 0x72,
  shl: 0x74,
  i64ctz: 0x7a,
  i64sub: 0x7d,
  i64and: 0x83,
  i64or: 0x84,
  i64xor: 0x85,
  i64shrU: 0x88,
  wrap: 0xa7,
} as const;

export const VOID = 0x40;
export const I32 = 0x7f;
export const I64 = 0x7e;
export const V128 = 0x7b;

/** A signed LEB128 of a 64-bit constant. */
export function leb64(n: bigint): number[] {
  const out: number[] = [];
  let v = BigInt.asIntN(64, n);
  for (;;) {
    const byte = Number(v & 0x7fn);
    v >>= 7n;
    const done = (v === 0n && (byte & 0x40) === 0) || (v === -1n && (byte & 0x40) !== 0);
    out.push(done ? byte : byte | 0x80);
    if (done) return out;
  }
}

/** A signed LEB128 of an i32 (immediates, offsets, sizes). */
export const leb = (n: number): number[] => leb64(BigInt(n));

/** A section: its id, its size, its content. */
export function section(id: number, content: number[]): number[] {
  return [id, ...leb(content.length), ...content];
}

/** A name as the binary format writes it (ASCII here). */
export const name = (s: string): number[] => [s.length, ...Array.from(s, (c) => c.charCodeAt(0))];

/** Instruction helpers both modules write with. */
export const get = (l: number): number[] => [OP.localGet, l];
export const set = (l: number): number[] => [OP.localSet, l];
export const tee = (l: number): number[] => [OP.localTee, l];
export const num = (n: number): number[] => [OP.i32const, ...leb(n)];
export const load8u = (offset: number): number[] => [OP.load8u, 0, ...leb(offset)];
export const load8s = (offset: number): number[] => [OP.load8s, 0, ...leb(offset)];
/** Local l += by. */
export const inc = (l: number, by: number): number[] => [...get(l), ...num(by), OP.add, ...set(l)];
