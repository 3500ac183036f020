// The WHATWG Encoding API exists in every runtime this code runs in (Node, browsers, workers), but
// lib ES2022 does not declare it and shared/ must not pull in DOM or Node types. Only what shared/
// uses is declared here.
declare class TextEncoder {
  encode(input?: string): Uint8Array;
  encodeInto(source: string, destination: Uint8Array): { read: number; written: number };
}
declare class TextDecoder {
  constructor(label?: string, options?: { fatal?: boolean; ignoreBOM?: boolean });
  decode(input?: Uint8Array, options?: { stream?: boolean }): string;
}

// ES2024 well-formed strings: in Node 20 and in Chromium since 111, not yet in lib ES2022.
interface String {
  isWellFormed(): boolean;
  toWellFormed(): string;
}
