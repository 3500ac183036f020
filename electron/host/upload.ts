/**
 * Uploads: a session file the user drops on the HTTP host's page or picks with its file
 * input, streamed into a private temporary file and opened from there.
 *
 * Invariants:
 *  - The file is written in a folder of its own made by `mkdtemp` under the system temporary
 *    folder (mode 0700), under a random name (mode 0600, created exclusively): no name or path
 *    from the request is ever used to make a path. The name the browser gave is only a label,
 *    sanitized (its last path segment, no control, bidi or zero-width characters, at most 200
 *    characters).
 *  - `Content-Length` is required and at most `maxBytes`; exactly that many bytes must arrive.
 *    Anything else (no length, too long, fewer bytes, more bytes, the client gone midway) removes
 *    the folder before the answer: a refused or aborted upload leaves nothing on disk.
 *  - Nothing is written anywhere else. A kept upload is removed by its `discard`: the session host
 *    calls it when that upload's own open fails or is superseded, and when its session is closed or
 *    replaced (never for another upload); any left at process exit are removed then.
 */
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { mkdtemp, open, rm } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UPLOAD_NAME_HEADER } from '../../shared/contract';
import type { UploadedFile } from './types';

/** Largest upload accepted by default (`serve --max-upload` changes it). */
export const DEFAULT_MAX_UPLOAD_BYTES = 2 * 1024 * 1024 * 1024;
/** In the name of every upload's private folder and file: what the session host looks for to hide them. */
export const UPLOAD_MARK = 'upload-';
/** Every upload's private folder starts with this, under the system temporary folder. */
export const UPLOAD_DIR_PREFIX = `session-inspector-${UPLOAD_MARK}`;
const MAX_LABEL_CHARS = 200;

/** Upload folders not yet removed: removed at exit if still there. */
const live = new Set<string>();
let exitHook = false;
function track(dir: string): void {
  live.add(dir);
  if (exitHook) return;
  exitHook = true;
  process.once('exit', () => {
    for (const d of live) rmSync(d, { recursive: true, force: true });
  });
}

async function remove(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
  live.delete(dir);
}

/**
 * The label shown for an upload: the last segment of the name the browser sent (percent-decoded),
 * without control, bidi, zero-width or lone-surrogate characters, at most 200 characters; `upload`
 * when nothing is left.
 */
export function uploadLabel(raw: string | undefined): string {
  let name = raw ?? '';
  try {
    name = decodeURIComponent(name);
  } catch {
    // Not percent-encoded: taken as it is.
  }
  name = name.split(/[\\/]/).pop() ?? '';
  // eslint-disable-next-line no-control-regex
  name = name.replace(/[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '');
  name = Array.from(name).slice(0, MAX_LABEL_CHARS).join('').trim();
  return name === '' || name === '.' || name === '..' ? 'upload' : name;
}

export type UploadOutcome = { ok: true; file: UploadedFile } | { ok: false; status: number; message: string };

export interface ReceiveOptions {
  maxBytes: number;
  /** Where the private folder is made (default: the system temporary folder; tests use their own). */
  tmpRoot?: string;
}

/** Streams `req`'s body into a private temporary file; see the header for what is refused. */
export async function receiveUpload(req: IncomingMessage, options: ReceiveOptions): Promise<UploadOutcome> {
  const header = req.headers['content-length'];
  if (header === undefined || !/^\d{1,16}$/.test(header)) return { ok: false, status: 411, message: 'an upload needs a Content-Length header' };
  const declared = Number(header);
  if (declared > options.maxBytes) return { ok: false, status: 413, message: `the file is larger than the upload limit of ${options.maxBytes} bytes` };
  const named = req.headers[UPLOAD_NAME_HEADER];
  const label = uploadLabel(typeof named === 'string' ? named : undefined);
  const dir = await mkdtemp(join(options.tmpRoot ?? tmpdir(), UPLOAD_DIR_PREFIX));
  track(dir);
  const path = join(dir, `${UPLOAD_MARK}${randomBytes(12).toString('hex')}`);
  let received = 0;
  try {
    const handle = await open(path, 'wx', 0o600);
    try {
      for await (const chunk of req as AsyncIterable<Buffer>) {
        received += chunk.length;
        // Node stops at the declared length; counted here too, so no lie about it is ever written past.
        if (received > declared || received > options.maxBytes) {
          req.destroy();
          await remove(dir);
          return { ok: false, status: 413, message: `the upload sent more than its declared ${declared} bytes` };
        }
        await handle.write(chunk);
      }
    } finally {
      await handle.close();
    }
  } catch (e) {
    await remove(dir);
    // An error of the file system names the temporary path: the label stands for it.
    const reason = (e instanceof Error ? e.message : String(e)).split(path).join(label).split(dir).join(label);
    return { ok: false, status: 400, message: `the upload did not complete: ${reason}` };
  }
  if (received !== declared || req.readableAborted) {
    await remove(dir);
    return { ok: false, status: 400, message: `the upload ended after ${received} of its declared ${declared} bytes` };
  }
  let discarded: Promise<void> | undefined;
  return { ok: true, file: { path, label, discard: () => (discarded ??= remove(dir)) } };
}
