/**
 * The escape decoder of contentHash.ts as a WebAssembly function (issue 16): tool outputs hold an
 * escape every ~16 bytes (`\n`, `\"`, ANSI `\u001b`), and a JavaScript byte loop over them ran at a
 * third of SHA-256's speed. The module is assembled here from the instruction list below (no build
 * step, no binary in the repository); `decode` has the JavaScript loop's exact semantics:
 *
 *   decode(src, end, dst) → bytes written at dst, or -1
 *
 * decodes memory [src, end) — a piece of a JSON string body starting and ending outside any escape —
 * into dst, knowing only `\" \\ \/ \b \f \n \r \t` and `\u00XX` below 0x80, and answers -1 on any
 * other escape (or one cut by `end`): the caller then leaves the body to the general decoder.
 *
 * Memory layout (the caller's, through `memory`): bytes 0–255 map an escape's second byte to what it
 * decodes to (-1: not a short escape), 256–511 a hex digit to its value (-1: not one); the raw
 * window starts at RAW, the decoded one at RAW + window.
 */

import { I32, OP, VOID, get, inc, leb, load8s, load8u, name, num, section, set, tee } from './wasmAssembly';


/** Where the raw window starts in the decoder's memory. */
export const RAW = 1024;



const store8 = [OP.store8, 0, 0];

// Locals: 0 src, 1 end, 2 dst (params); 3 dst at the start, 4 byte, 5 decoded value.
const [S, E, D, D0, B, V] = [0, 1, 2, 3, 4, 5];
// Branch depths are counted from the innermost block: inside the loop, 0 = loop, 1 = done, 2 = fail.
const body = [
  ...get(D), ...set(D0),
  OP.block, VOID, // fail
  OP.block, VOID, // done
  OP.loop, VOID,
  ...get(S), ...get(E), OP.geU, OP.brIf, 1, // src ≥ end: done
  ...get(S), ...load8u(0), ...tee(B), ...num(0x5c), OP.ne,
  OP.if, VOID, // a literal byte (depth: 0 = if, 1 = loop)
  ...get(D), ...get(B), ...store8, ...inc(D, 1), ...inc(S, 1), OP.br, 1,
  OP.end,
  ...get(S), ...num(1), OP.add, ...get(E), OP.geU, OP.brIf, 2, // a backslash ends the piece: fail
  ...get(S), ...load8u(1), ...load8s(0), ...tee(V), ...num(0), OP.geS,
  OP.if, VOID, // a short escape
  ...get(D), ...get(V), ...store8, ...inc(D, 1), ...inc(S, 2), OP.br, 1,
  OP.end,
  // \u00XY with X ≤ 7: one byte; anything else fails.
  ...get(S), ...num(6), OP.add, ...get(E), OP.gtU, OP.brIf, 2,
  ...get(S), ...load8u(1), ...num(0x75), OP.ne, OP.brIf, 2,
  ...get(S), ...load8u(2), ...num(0x30), OP.ne, OP.brIf, 2,
  ...get(S), ...load8u(3), ...num(0x30), OP.ne, OP.brIf, 2,
  ...get(S), ...load8u(4), ...num(0x30), OP.sub, ...tee(B), ...num(7), OP.gtU, OP.brIf, 2,
  ...get(S), ...load8u(5), ...load8s(256), ...tee(V), ...num(0), OP.ltS, OP.brIf, 2,
  ...get(D), ...get(B), ...num(4), OP.shl, ...get(V), OP.or, ...store8, ...inc(D, 1), ...inc(S, 6), OP.br, 0,
  OP.end, // loop
  OP.end, // done
  ...get(D), ...get(D0), OP.sub, OP.return,
  OP.end, // fail
  ...num(-1),
  OP.end,
];



/** The module's bytes: one memory imported as m.memory, one function exported as `decode`. */
export function decoderModuleBytes(): Uint8Array {
  const code = [1, 3, I32, ...body]; // one declaration: three i32 locals
  return new Uint8Array([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(1, [1, 0x60, 3, I32, I32, I32, 1, I32]),
    ...section(2, [1, ...name('m'), ...name('memory'), 0x02, 0x00, 1]),
    ...section(3, [1, 0]),
    ...section(7, [1, ...name('decode'), 0x00, 0]),
    ...section(10, [1, ...leb(code.length), ...code]),
  ]);
}
