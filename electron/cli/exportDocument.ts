/**
 * SPEC §16 `export --as markdown|html [--redact] [--calls N:M] [--out F] FILE...`: the session as
 * one readable document (shared/export/), on stdout or into F. F is written only where the user
 * names it, never over a file of the session (the same file by any path or link is refused) and
 * never into anything but a regular file (a FIFO would hang the export). With `--redact`, how many
 * secrets of each kind were replaced goes to stderr: a sentence, then `{"redacted":{kind:n},"total":n}`.
 * docs/export-documents.md says what the documents hold, and how they are written as they are
 * made ("Written as it is made": a MiB at a time, each after the files are looked at).
 */
import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, openSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { SESSION_FORMAT_OF_FILE } from '../../shared/index';
import { CallRangeError } from '../../shared/export/document';
import { writeSessionDocumentPieces, type DocumentFormat } from '../../shared/export/sessionDocument';
import type { LoadOptions } from '../loader/session';
import { FileChangedError } from '../loader/session';
import { CliError, asFileChange, usageError, writtenWhileUnchanged } from './errors';
import type { CliIo, ParsedFlags } from './output';
import { EXIT_OK, json } from './output';
import { openExportSession } from './exportSession';
import { documentSourceWithTokens } from '../tokens/documentTokens';

/** `--calls N:M` (inclusive) or `--calls N`; undefined without it: every call. */
export function parseCalls(flags: ReadonlyMap<string, string | true>): [number, number] | undefined {
  const v = flags.get('calls');
  if (typeof v !== 'string') return undefined;
  const m = /^(\d{1,9})(?::(\d{1,9}))?$/.exec(v);
  if (!m) throw usageError(`--calls must be N:M or N (model call numbers, 1-based, inclusive), not ${JSON.stringify(v)}`);
  const from = Number(m[1]);
  return [from, m[2] === undefined ? from : Number(m[2])];
}

/** The files' identities (device and inode), so a path that reaches one of them by another name is still refused. */
function identities(paths: readonly string[]): Set<string> {
  const ids = new Set<string>();
  for (const p of paths) {
    try {
      const s = statSync(p);
      ids.add(`${s.dev}:${s.ino}`);
    } catch {
      // A file that cannot be read was never loaded.
    }
  }
  return ids;
}

/**
 * Writes what `produce` hands its `write` to `out`, as it is made: refused when `out` is one of
 * `sessionPaths` (by any name) or exists as anything but a regular file; written to a fresh file
 * beside `out` and renamed over it once `produce` returns, so a link at `out` is replaced, never
 * written through, and `out` never holds half a document (an error in `produce` removes the fresh
 * file and is thrown as it is).
 */
export function writeOut(out: string, sessionPaths: readonly string[], produce: (write: (text: string) => void) => void): void {
  const target = resolve(out);
  let existing;
  try {
    existing = statSync(target);
  } catch {
    existing = undefined;
  }
  if (existing) {
    if (identities(sessionPaths).has(`${existing.dev}:${existing.ino}`)) throw usageError(`--out ${out} is a file of the session: the export never writes over the session`);
    if (!existing.isFile()) throw usageError(`--out ${out} exists and is not a regular file`);
  }
  const temp = join(dirname(target), `.${basename(target)}.${randomBytes(6).toString('hex')}.tmp`);
  /** A step on the file: its failure is `cannot write` (one of `produce`'s own is thrown as it is). */
  const onFile = <T>(step: () => T): T => {
    try {
      return step();
    } catch (e) {
      throw new CliError('unreadable_file', `cannot write ${out}: ${(e as Error).message}`);
    }
  };
  let fd: number | undefined;
  try {
    const opened = (fd = onFile(() => openSync(temp, 'wx', 0o644)));
    produce((text) => onFile(() => writeSync(opened, text)));
    onFile(() => {
      fsyncSync(opened);
      closeSync(opened);
      fd = undefined;
      renameSync(temp, target);
    });
  } catch (e) {
    if (fd !== undefined) closeSync(fd);
    rmSync(temp, { force: true });
    throw e;
  }
}

/** Text handed on per write: pieces (a section each) gathered to about this many UTF-16 units. */
const WRITE_UNITS = 1 << 20;

/** One sentence and one JSON line for stderr: what redaction replaced. */
export function redactionReport(counts: Readonly<Record<string, number>>): string {
  const kinds = Object.keys(counts).sort();
  const total = kinds.reduce((n, k) => n + (counts[k] ?? 0), 0);
  const sentence = total === 0 ? 'session-inspector: redacted nothing: no secret found.' : `session-inspector: redacted ${total} ${total === 1 ? 'secret' : 'secrets'}: ${kinds.map((k) => `${k} ${counts[k]}`).join(', ')}.`;
  return `${sentence}\n${json({ redacted: Object.fromEntries(kinds.map((k) => [k, counts[k]])), total })}`;
}

/** `export --as markdown|html`: the dispatch of `export` calls this for those two formats. */
export async function runExportDocument(as: DocumentFormat, { flags, files }: ParsedFlags, io: CliIo, loadOptions: LoadOptions = {}): Promise<number> {
  const range = parseCalls(flags);
  const out = flags.get('out');
  if (out === true) throw usageError('--out needs a file name');
  const session = await openExportSession(files, flags, loadOptions);
  try {
    const first = session.files[0];
    const request = {
      as,
      redact: flags.has('redact'),
      format: first ? SESSION_FORMAT_OF_FILE[first.format] : 'supercode',
      files: session.files.map((f) => basename(f.path)),
      title: session.sessions?.[0]?.title ?? null,
      ...(range ? { range } : {}),
    };
    /** Writes the document as it is made, a MiB at a time; each MiB only when the files are still as they were opened, so no byte of a changed file goes out. */
    const produce = (write: (text: string) => void) => {
      const handOn = writtenWhileUnchanged(session, write);
      let gathered = '';
      const hand = () => {
        handOn(gathered);
        gathered = '';
      };
      let redacted;
      try {
        redacted = writeSessionDocumentPieces(documentSourceWithTokens(session), request, (piece) => {
          gathered += piece;
          if (gathered.length >= WRITE_UNITS) hand();
        }).redacted;
      } catch (e) {
        if (e instanceof CallRangeError) throw usageError(e.message);
        if (e instanceof FileChangedError) throw new CliError('file_changed', e.message);
        throw asFileChange(session, e);
      }
      hand();
      return redacted;
    };
    let redacted = {};
    if (typeof out === 'string') {
      writeOut(out, [...files, ...session.files.map((f) => f.path)], (write) => {
        redacted = produce(write);
      });
    } else {
      redacted = produce((text) => io.stdout(text));
    }
    if (flags.has('redact')) io.stderr(redactionReport(redacted));
    return EXIT_OK;
  } finally {
    session.close();
  }
}
