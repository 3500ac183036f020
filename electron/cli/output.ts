/**
 * What every command shares, kept apart from main.ts so that each command's chunk (scripts/build.mjs
 * bundles the commands into separate files, loaded on demand) needs nothing of main.ts at run time.
 */

export const EXIT_OK = 0;
export const EXIT_FINDINGS = 1;
export const EXIT_ERROR = 2;

/** Compact JSON with a trailing newline: every outcome on stdout (SPEC §8). */
export function json(value: unknown): string {
  return `${JSON.stringify(value)}\n`;
}

/** Text handed to `write` per call by writeJson: about 1 MiB (UTF-16 units). */
const JSON_PIECE = 1 << 20;

/**
 * `json(value)` written in pieces of about a MiB: a top-level object's properties one by one, and a
 * top-level property that is an array element by element, so an output of tens of MB (`view` of
 * a session whose outputs are kept whole) is never one string, nor a copy of it as bytes. The
 * bytes written are exactly `json(value)`'s (electron/cli/output.test.ts); `value` is plain data.
 */
export function writeJson(value: unknown, write: (text: string) => void): void {
  if (typeof value !== 'object' || value === null || Array.isArray(value) || typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    write(json(value));
    return;
  }
  let piece = '';
  const put = (text: string) => {
    piece += text;
    if (piece.length >= JSON_PIECE) {
      write(piece);
      piece = '';
    }
  };
  put('{');
  let first = true;
  for (const [key, v] of Object.entries(value)) {
    // JSON.stringify leaves out a property whose value it cannot write.
    if (v === undefined || typeof v === 'function' || typeof v === 'symbol') continue;
    put(`${first ? '' : ','}${JSON.stringify(key)}:`);
    first = false;
    if (!Array.isArray(v)) {
      put(JSON.stringify(v));
      continue;
    }
    put('[');
    v.forEach((element: unknown, i) => put(`${i > 0 ? ',' : ''}${JSON.stringify(element) ?? 'null'}`));
    put(']');
  }
  put('}\n');
  write(piece);
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
 * Node's net and stream modules, several ms of a cold start (issue 16), and an outcome is one
 * short line. A reader that has gone (EPIPE: `… | head`) ends the writing silently, as bin.ts
 * ignores that error of the stream; a descriptor someone made non-blocking (EAGAIN) is waited on
 * a millisecond at a time; any other failure hands the bytes left to `fallback` (the stream).
 */
export function fdWriter(fd: number, fallback: (rest: Uint8Array) => void, fs: WriteSyncFs = process.getBuiltinModule('node:fs')): (text: string) => void {
  let gone = false;
  return (text) => {
    if (gone) return;
    const bytes = Buffer.from(text, 'utf8');
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
