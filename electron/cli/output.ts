/**
 * What every command shares, kept apart from main.ts so that each command's chunk (scripts/build.mjs
 * bundles the commands into separate files, loaded on demand) needs nothing of main.ts.
 */
import type { ByteSource } from '../../shared/format/types';
import { utf8Decode } from '../../shared/format/utf8';

/** Where a command writes: stdout carries its JSON, stderr one human sentence per error. */
export interface CliIo {
  stdout(s: string): void;
  stderr(s: string): void;
  /** Bytes of UTF-8 text for stdout, when the writer takes them as they are (else they go to `stdout` as text). */
  stdoutBytes?(bytes: Uint8Array): void;
  /** Whether stderr is a terminal (a progress line is redrawn there); absent: it is not. */
  stderrIsTerminal?(): boolean;
}

/**
 * A JSON value already written as UTF-8 text (a string's JSON copied from a file: FileContent's
 * `jsonText`), which writeJson hands on as it is. JSON.stringify writes the value it stands for.
 */
export class RawJson {
  constructor(readonly bytes: Uint8Array) {}

  toJSON(): unknown {
    return JSON.parse(Buffer.from(this.bytes.buffer, this.bytes.byteOffset, this.bytes.byteLength).toString('utf8'));
  }
}

/** Bytes a Utf8Text is decoded by at a time. */
const TEXT_WINDOW_BYTES = 1 << 20;

/**
 * A string value held as its UTF-8 bytes (a verified original, read from the files when read),
 * which writeJson writes as a JSON string decoded a window at a time, never as one string: an
 * original of hundreds of MB, or more characters than a string can hold. Each window ends where
 * decoding the windows apart is decoding them whole (`windowEnd`), so the text written is the
 * whole decode's, invalid bytes included (electron/cli/output.test.ts). JSON.stringify writes the
 * whole decode.
 */
export class Utf8Text {
  readonly windowBytes: number;

  constructor(
    readonly bytes: ByteSource,
    windowBytes = TEXT_WINDOW_BYTES,
  ) {
    this.windowBytes = Math.max(4, windowBytes);
  }

  /** The text a window at a time. */
  *windows(): Generator<string> {
    const { bytes, windowBytes } = this;
    for (let at = 0; at < bytes.length; ) {
      const to = at + windowBytes >= bytes.length ? bytes.length : windowEnd(bytes, at + windowBytes);
      yield utf8Decode(bytes.read(at, to));
      at = to;
    }
  }

  toJSON(): string {
    return utf8Decode(this.bytes.read(0, this.bytes.length));
  }
}

/**
 * Where a window may end at or at most three bytes before `to`: before the last byte there that
 * does not continue a character (a decoder starts afresh at it, and one that ends in the middle of a
 * character writes the same U+FFFD either way), or at `to` when the four bytes up to it all continue
 * one (no character is longer, so the byte at `to` continues nothing and decodes alone).
 */
function windowEnd(bytes: ByteSource, to: number): number {
  const from = to - 3;
  const tail = bytes.read(from, to + 1);
  for (let k = tail.length - 1; k >= 0; k--) if (((tail[k] ?? 0) & 0xc0) !== 0x80) return from + k;
  return to;
}

export const EXIT_OK = 0;
export const EXIT_FINDINGS = 1;
export const EXIT_ERROR = 2;

/** Compact JSON with a trailing newline: every outcome on stdout (SPEC §8). */
export function json(value: unknown): string {
  return `${JSON.stringify(value)}\n`;
}

const isHighSurrogate = (c: number) => c >= 0xd800 && c <= 0xdbff;

/** Text handed to `write` per call by writeJson: about 1 MiB (UTF-16 units). */
const JSON_PIECE = 1 << 20;

/** How deep writeJson walks into objects and arrays before it writes a value with JSON.stringify. */
const JSON_WALK_DEPTH = 4;

/** How much of a value writeJson writes with one JSON.stringify: each value counts 1, a string its length too. */
const JSON_WHOLE_UNITS = JSON_PIECE >> 3;

/**
 * Whether `v` (an object or array at `depth`) is written by one JSON.stringify: it holds no
 * RawJson down to the walk's depth, and at most JSON_WHOLE_UNITS (a value 1, a string its length
 * too). Stops counting once past. What JSON.stringify writes of it is what the walk would.
 */
function writtenWhole(v: object, depth: number): boolean {
  let left = JSON_WHOLE_UNITS;
  const fits = (x: unknown, d: number): boolean => {
    left -= typeof x === 'string' ? x.length + 1 : 1;
    if (left < 0) return false;
    if (typeof x !== 'object' || x === null) return true;
    if (x instanceof RawJson || x instanceof Utf8Text) return false;
    // Deeper, or with its own toJSON, the walk too writes it with JSON.stringify.
    if (d >= JSON_WALK_DEPTH || typeof (x as { toJSON?: unknown }).toJSON === 'function') return true;
    if (Array.isArray(x)) return x.every((e) => fits(e, d + 1));
    for (const key in x) if (Object.hasOwn(x, key) && !fits((x as Record<string, unknown>)[key], d + 1)) return false;
    return true;
  };
  return fits(v, depth);
}

/**
 * `json(value)` written in pieces of about a MiB: objects and arrays (a few levels down) property
 * by property and element by element, and a long string in escaped slices of its own, so an output
 * of hundreds of MB (`view` of a session whose outputs are kept whole) is never one string, nor a
 * copy of it as bytes; a small object or array (writtenWhole) is written with one JSON.stringify. A
 * RawJson goes to `writeBytes` as it is (as text to `write` without it).
 * The text written is exactly `json(value)`'s (electron/cli/output.test.ts).
 */
export function writeJson(value: unknown, write: (text: string) => void, writeBytes?: (bytes: Uint8Array) => void): void {
  let piece = '';
  const put = (text: string) => {
    piece += text;
    if (piece.length >= JSON_PIECE) {
      write(piece);
      piece = '';
    }
  };
  /** A long string, escaped a slice at a time (a slice never ends inside a surrogate pair). */
  const putString = (text: string) => {
    put('"');
    for (let at = 0; at < text.length; ) {
      // An escape is at most 6 characters: a slice of an eighth of a piece stays under one escaped.
      let to = Math.min(text.length, at + (JSON_PIECE >> 3));
      if (to < text.length && isHighSurrogate(text.charCodeAt(to - 1))) to--;
      put(JSON.stringify(text.slice(at, to)).slice(1, -1));
      at = to;
    }
    put('"');
  };
  const walk = (v: unknown, depth: number) => {
    if (typeof v === 'string' && v.length >= JSON_PIECE) return putString(v);
    if (v instanceof Utf8Text) {
      put('"');
      for (const text of v.windows()) put(JSON.stringify(text).slice(1, -1));
      put('"');
      return;
    }
    if (v instanceof RawJson) {
      if (!writeBytes) return put(Buffer.from(v.bytes.buffer, v.bytes.byteOffset, v.bytes.byteLength).toString('utf8'));
      if (piece.length > 0) write(piece);
      piece = '';
      writeBytes(v.bytes);
      return;
    }
    if (depth >= JSON_WALK_DEPTH || typeof v !== 'object' || v === null || typeof (v as { toJSON?: unknown }).toJSON === 'function') {
      put(JSON.stringify(v) ?? 'null');
      return;
    }
    // A small object (a message of a view) in one call: property by property, `view` of the scale
    // session's 300,000 messages spent 1.4 s here (docs/worker.md §7).
    if (writtenWhole(v, depth)) {
      put(JSON.stringify(v));
      return;
    }
    if (Array.isArray(v)) {
      put('[');
      v.forEach((element: unknown, i) => {
        if (i > 0) put(',');
        // JSON.stringify writes null for what it cannot write in an array.
        if (element === undefined || typeof element === 'function' || typeof element === 'symbol') put('null');
        else walk(element, depth + 1);
      });
      put(']');
      return;
    }
    put('{');
    let first = true;
    for (const [key, p] of Object.entries(v)) {
      // ...and leaves out such a property of an object.
      if (p === undefined || typeof p === 'function' || typeof p === 'symbol') continue;
      put(`${first ? '' : ','}${JSON.stringify(key)}:`);
      first = false;
      walk(p, depth + 1);
    }
    put('}');
  };
  walk(value, 0);
  put('\n');
  if (piece.length > 0) write(piece);
}

/** A parsed command line: the command's flags (`list` flags also in `lists`, in order) and FILE... */
export interface ParsedFlags {
  flags: Map<string, string | true>;
  lists: Map<string, string[]>;
  files: string[];
}

/** What a writer needs of node:fs (tests pass a fake). */
export interface WriteSyncFs {
  writeSync(fd: number, buffer: Uint8Array, offset: number, length: number): number;
}

/**
 * A writer of text to the file descriptor `fd` (1 stdout, 2 stderr), each call written whole before
 * it returns. Not process.stdout: on a pipe (`check … | jq`, the bench) making that stream loads
 * Node's net and stream modules, several ms of a cold start, and an outcome is one
 * short line. A reader that has gone (EPIPE: `… | head`) ends the writing silently, as bin.ts
 * ignores that error of the stream; a descriptor someone made non-blocking (EAGAIN) is waited on
 * a millisecond at a time; any other failure hands the bytes left to `fallback` (the stream).
 */
export function fdWriter(fd: number, fallback: (rest: Uint8Array) => void, fs: WriteSyncFs = process.getBuiltinModule('node:fs')): (text: string | Uint8Array) => void {
  let gone = false;
  return (text) => {
    if (gone) return;
    const bytes = typeof text === 'string' ? Buffer.from(text, 'utf8') : text;
    let at = 0;
    while (at < bytes.length) {
      try {
        at += fs.writeSync(fd, bytes, at, bytes.length - at);
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        if (code === 'EAGAIN') {
          Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1);
          continue;
        }
        if (code === 'EPIPE') {
          gone = true;
          return;
        }
        fallback(bytes.subarray(at));
        return;
      }
    }
  };
}

/**
 * process.stdout or process.stderr, made only when asked (`fdWriter`'s fallback), with an error
 * handler that ignores EPIPE: a reader that stops early (`… | head`) closes the pipe, which is not
 * an error of ours.
 */
export function processStream(name: 'stdout' | 'stderr'): NodeJS.WriteStream {
  const stream = process[name];
  if (stream.listenerCount('error') === 0) {
    stream.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code !== 'EPIPE') throw e;
    });
  }
  return stream;
}
