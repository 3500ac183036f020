/**
 * The corpus of bad inputs (e2e/fixtures/bad/) through the loader: `loadSession`, `check()`, and
 * expand and search of every live reduction never throw, and each file gets its expected finding
 * codes or error code. Then the inputs made at test time: a 300 MB line, a directory, a missing
 * path, a file without read permission, and a file that shrinks or is overwritten while open.
 */
import { chmodSync, closeSync, existsSync, mkdirSync, openSync, readFileSync, readSync, renameSync, statSync, truncateSync, utimesSync, writeFileSync, writeSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ExpandOutcome } from '../../shared/index';
import type { BadInputExpectation } from '../../tools/testing/badCorpus';
import { BAD_CORPUS_DIR, badCorpus, badCorpusManifest, badInputPath, findingCodesAsStated, statedFindingCodes } from '../../tools/testing/badCorpus';
import { makeHeader, messageRecord, tempDir, sessionOpener } from '../../tools/testing/files';
import { unverifiedOutcome } from '../../tools/testing/verifyOutcome';
import type { ReadSync } from './common/lines';
import type { LoadedSession } from './session';
import { FileChangedError, loadSession, MAX_RECORD_BYTES } from './session';

const manifest = (JSON.parse(readFileSync(join(BAD_CORPUS_DIR, 'manifest.json'), 'utf8')) as { files: BadInputExpectation[] }).files;
const corpusPath = (name: string) => join(BAD_CORPUS_DIR, name);

const tmp = tempDir('session-inspector-bad-');
afterAll(() => tmp.cleanup());
/** A committed corpus file, or a generated one (made once for every suite, badInputPath). */
const inputPath = (name: string) => badInputPath(name);

const { load, track, closeAll } = sessionOpener();
afterEach(closeAll);

/**
 * Expands every live reduction (or, for a generated input with thousands, the ones its manifest
 * names) whole and in pieces; returns the outcome or error code of each whole expansion.
 */
function expandEvery(session: LoadedSession, only?: readonly string[]): Record<string, string> {
  const outcomes: Record<string, string> = {};
  const live = only ? session.log.filter((r) => only.includes(r.id)) : session.log;
  for (const r of live) {
    const whole = session.expand(r.id);
    if (!whole.ok) {
      outcomes[r.id] = whole.error.code;
      continue;
    }
    expect(unverifiedOutcome(session.log, session.minted, whole.value)).toBeUndefined();
    outcomes[r.id] = 'ok';
    const total = whole.value.total_bytes;
    // Ranges at the edges answer a slice or invalid_byte_range, never a throw.
    for (const range of [
      [0, 1],
      [total, total],
      [total + 1, total + 2],
      [Math.floor(total / 2), total * 2],
    ] as const) {
      const part = session.expand(r.id, range);
      if (part.ok) expect(whole.value.content).toContain(part.value.content);
      else expect(part.error.code).toBe('invalid_byte_range');
    }
  }
  return outcomes;
}

describe('the committed corpus', () => {
  it('is what the corpus builder writes, and the README lists every file', () => {
    const inputs = badCorpus();
    for (const input of inputs) expect(readFileSync(corpusPath(input.name)), input.name).toEqual(input.bytes);
    expect(readFileSync(corpusPath('manifest.json'), 'utf8')).toBe(badCorpusManifest(inputs));
    const readme = readFileSync(corpusPath('README.md'), 'utf8');
    for (const input of manifest) expect(readme, input.name).toContain(`| \`${input.name}\` |`);
    // Generated inputs are made at test time, never committed.
    for (const input of manifest.filter((m) => m.generated)) expect(existsSync(corpusPath(input.name)), input.name).toBe(false);
  });

  for (const expected of manifest) {
    // A generated input is large (5–80 MB, read again by every command): it gets a longer bound.
    it(`${expected.name}: ${expected.error ?? (expected.findings.join(', ') || 'no findings')}`, async () => {
      const path = inputPath(expected.name);
      const before = digest(path);
      try {
        await readEvery(path, expected);
      } finally {
        // Nothing is written: the file has the same bytes after the load, check, expand and search.
        expect(digest(path), `${expected.name} was changed`).toBe(before);
      }
    }, expected.generated ? 180_000 : undefined);
  }
});

/** Loads a corpus file and reads it every way the manifest states an answer for. */
async function readEvery(path: string, expected: BadInputExpectation): Promise<void> {
  const result = await loadSession([path]);
  if (expected.error) {
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error.code).toBe(expected.error);
      expect(result.error.message).toContain(path);
    }
    return;
  }
  if (!result.ok) throw new Error(`${expected.name} did not open: ${result.error.message}`);
  const session = result.session;
  track(session);
  const report = session.check();
  expect(findingCodesAsStated(report.findings.map((f) => f.code), expected)).toEqual(statedFindingCodes(expected));
  // A damaged line is named: each finding's line, as the manifest states them.
  if (expected.finding_lines) expect(report.findings.map((f) => f.line ?? null)).toEqual(expected.finding_lines);
  expect(report.summary.errors > 0 ? 1 : 0).toBe(expected.check_exit);
  if (expected.messages !== undefined) expect(session.minted.length).toBe(expected.messages);
  // Every finding says something (one assertion over all: 100,000 of them, one `expect` each, took seconds).
  expect(report.findings.filter((f) => f.message.length === 0)).toEqual([]);

  if (session.stopped) {
    // Nothing past the newer version was read: no log to expand.
    expect(session.log).toEqual([]);
    expect(Object.values(expected.expand).every((v) => v === 'unsupported_version')).toBe(true);
    return;
  }
  expect(expandEvery(session, expected.generated ? Object.keys(expected.expand) : undefined)).toEqual(expected.expand);
  expect(session.expand('no-such-id')).toMatchObject({ ok: false, error: { code: 'unknown_reduction' } });
  const search = session.search(expected.search.query);
  expect(search.ok && search.value.total_matches).toBe(expected.search.matches);
  // Hostile patterns are linear-time and bad ones are an error value.
  expect(session.search('(a+)+$', { mode: 'regex' }).ok).toBe(true);
  expect(session.search('(', { mode: 'regex' })).toMatchObject({ ok: false, error: { code: 'invalid_query' } });
  // Every row index answers, holes included.
  for (let i = -1; i <= session.minted.length; i++) session.minted.at(i);
}

const digest = (path: string): string => createHash('sha256').update(readFileSync(path)).digest('hex');

describe('a directory, a missing path, a file without read permission', () => {
  it('refuses a directory as unreadable_file (EISDIR)', async () => {
    const dir = tmp.path('a-directory.sidecar.jsonl');
    mkdirSync(dir);
    expect(await loadSession([dir])).toMatchObject({ ok: false, error: { code: 'unreadable_file', message: expect.stringContaining('EISDIR') as unknown } });
  });

  it('refuses a path that does not exist as unreadable_file (ENOENT), alone and as half of a pair', async () => {
    const missing = tmp.path('does-not-exist.sidecar.jsonl');
    expect(await loadSession([missing])).toMatchObject({ ok: false, error: { code: 'unreadable_file', message: expect.stringContaining('ENOENT') as unknown } });
    expect(await loadSession([corpusPath('snapshot-without-sidecar.session.json'), missing])).toMatchObject({ ok: false, error: { code: 'unreadable_file' } });
  });

  const root = process.getuid?.() === 0;
  if (root) console.log('[badInputs] skipping the chmod 000 test: running as root, which reads any file; the injected EACCES reader below covers the error path');
  it.skipIf(root)('refuses a file without read permission as unreadable_file (EACCES)', async () => {
    const path = tmp.path('secret.sidecar.jsonl');
    writeFileSync(path, readFileSync(corpusPath('torn-last-line.sidecar.jsonl')));
    chmodSync(path, 0o000);
    expect(await loadSession([path])).toMatchObject({ ok: false, error: { code: 'unreadable_file', message: expect.stringContaining('EACCES') as unknown } });
  });

  it('reports a reader that fails with EACCES as unreadable_file, naming the file, and closes it', async () => {
    const denied: ReadSync = () => {
      throw Object.assign(new Error('EACCES: permission denied, read'), { code: 'EACCES', syscall: 'read', errno: -13 });
    };
    const path = corpusPath('torn-last-line.sidecar.jsonl');
    const result = await loadSession([path], { readSync: denied });
    expect(result).toMatchObject({ ok: false, error: { code: 'unreadable_file', message: expect.stringContaining('permission denied (EACCES)') as unknown } });
    expect(!result.ok && result.error.message).toContain(path);
    // Denied half-way through the indexing pass (after detection read the head) too.
    let reads = 0;
    const late: ReadSync = (fd, buffer, offset, length, position) => {
      if (++reads > 2) return denied(fd, buffer, offset, length, position);
      return readSync(fd, buffer, offset, length, position);
    };
    expect(await loadSession([path], { readSync: late })).toMatchObject({ ok: false, error: { code: 'unreadable_file' } });
  });
});

describe('a line of 300 MB', () => {
  const MB300 = 300 * 1024 * 1024;
  const big = tmp.path('huge-line.sidecar.jsonl');
  const bigFirst = tmp.path('huge-first-line.sidecar.jsonl');

  const bigContent = tmp.path('huge-content.sidecar.jsonl');

  /**
   * Writes a sidecar whose message 1 holds 300 MB, in 1 MiB writes (never one big string): as its
   * tool output (read by range), or in its metadata (a record that can only be read whole).
   */
  function writeHuge(path: string, first: boolean, where: 'content' | 'metadata' = 'metadata'): void {
    const fd = openSync(path, 'w');
    try {
      if (!first) writeSync(fd, `${JSON.stringify(makeHeader())}\n${JSON.stringify(messageRecord(0, { role: 'user', content: 'cat the log' }))}\n`);
      writeSync(fd, `{"t":"message","i":${first ? 0 : 1},"msg":{"role":"tool","tool_call_id":"call_1",${where === 'content' ? '"content":"' : '"content":"see metadata","metadata":{"blob":"'}`);
      const chunk = Buffer.alloc(1024 * 1024, 'x');
      chunk.write('\\n\\"middle\\"', chunk.length / 2);
      for (let k = 0; k < MB300 / chunk.length; k++) writeSync(fd, chunk);
      writeSync(fd, `"}${where === 'content' ? '' : '}'}}\n${JSON.stringify(messageRecord(first ? 1 : 2, { role: 'assistant', content: 'That log is long.' }))}\n`);
    } finally {
      closeSync(fd);
    }
  }

  beforeAll(() => {
    writeHuge(big, false);
    writeHuge(bigFirst, true, 'content');
    writeHuge(bigContent, false, 'content');
  });
  afterAll(() => {
    for (const p of [big, bigFirst, bigContent]) if (existsSync(p)) truncateSync(p, 0);
  });

  it('as a tool output, is read by range: no finding, no string of it, buffers of a few MiB', async () => {
    const { read, peak } = sampling();
    const before = process.memoryUsage();
    const s = await load([bigContent], { maxRecordBytes: 1024 * 1024, readSync: read });
    expect(s.loadFindings).toEqual([]);
    const msg = s.minted.at(1);
    const escaped = Buffer.byteLength('\\n\\"middle\\"') - Buffer.byteLength('\n"middle"');
    expect(msg?.large?.length).toBe(MB300 - 300 * escaped);
    expect(msg?.content.length).toBe(64 * 1024);
    // A slice across the escapes in the middle of the 150th MiB.
    const mid = 150 * (1024 * 1024 - escaped) + 512 * 1024 - 2;
    expect(Buffer.from(msg?.large?.read(mid, mid + 14) ?? []).toString()).toBe('xx\n"middle"xxx');
    expect(s.minted.at(2)?.content).toBe('That log is long.');
    expect(s.check().findings).toEqual([]);
    expect(peak().arrayBuffers - before.arrayBuffers).toBeLessThan(16 * 1024 * 1024);
    expect(peak().heapUsed - before.heapUsed).toBeLessThan(64 * 1024 * 1024);
  });

  /** A reader that samples memory every few reads: the peak of buffers and of the JS heap over a load. */
  function sampling(): { read: ReadSync; peak: () => { arrayBuffers: number; heapUsed: number } } {
    let arrayBuffers = 0;
    let heapUsed = 0;
    let n = 0;
    return {
      read: (fd, buffer, offset, length, position) => {
        if (++n % 8 === 0) {
          const m = process.memoryUsage();
          arrayBuffers = Math.max(arrayBuffers, m.arrayBuffers);
          heapUsed = Math.max(heapUsed, m.heapUsed);
        }
        return readSync(fd, buffer, offset, length, position);
      },
      peak: () => ({ arrayBuffers, heapUsed }),
    };
  }

  it('is a malformed_line finding under a small maxRecordBytes, its index a hole, later records read', async () => {
    const { read, peak } = sampling();
    const before = process.memoryUsage();
    const s = await load([big], { maxRecordBytes: 1024 * 1024, readSync: read });
    expect(s.loadFindings).toMatchObject([{ code: 'malformed_line', line: 3, index: 1 }]);
    expect(s.loadFindings[0]?.message).toMatch(/line 3 is 3145\d+ bytes \(300\.0 MiB\), too long/);
    expect(s.minted.length).toBe(3);
    expect(s.minted.at(1)).toBeUndefined();
    expect(s.minted.at(2)?.content).toBe('That log is long.');
    expect(s.check().findings.map((f) => f.code)).toEqual(['malformed_line']);
    // Never more than a few read buffers: the line is skipped, not gathered.
    expect(peak().arrayBuffers - before.arrayBuffers).toBeLessThan(16 * 1024 * 1024);
    expect(peak().heapUsed - before.heapUsed).toBeLessThan(64 * 1024 * 1024);
  });

  it('is the same finding with the real default limit, without a string of it and with buffers capped at the limit', async () => {
    expect(MAX_RECORD_BYTES).toBeLessThan(MB300);
    const { read, peak } = sampling();
    const before = process.memoryUsage();
    const s = await load([big], { readSync: read });
    expect(s.loadFindings).toMatchObject([{ code: 'malformed_line', line: 3, index: 1 }]);
    expect(s.loadFindings[0]?.message).toContain(`the limit is ${MAX_RECORD_BYTES} bytes`);
    expect(s.minted.at(2)?.content).toBe('That log is long.');
    // A 300 MB string would show in the heap; the bytes gathered before giving up stop at the limit.
    expect(peak().heapUsed - before.heapUsed).toBeLessThan(64 * 1024 * 1024);
    expect(peak().arrayBuffers - before.arrayBuffers).toBeLessThan(MAX_RECORD_BYTES + 16 * 1024 * 1024);
  });

  it('as the first line, is recognized as a sidecar from its head and never read whole as a snapshot', async () => {
    const { read, peak } = sampling();
    const before = process.memoryUsage();
    const s = await load([bigFirst], { maxRecordBytes: 1024 * 1024, readSync: read });
    expect(s.files[0]?.format).toBe('supercode-sidecar');
    // The line is too long to read, and the first record of a sidecar should have been its header.
    expect(s.loadFindings.map((f) => [f.code, f.line])).toEqual([
      ['malformed_line', 1],
      ['malformed_line', 1],
    ]);
    expect(s.loadFindings.map((f) => f.message).join('\n')).toMatch(/too long[^]*starts with a header record, but its first record is t="message"|starts with a header record, but its first record is t="message"[^]*too long/);
    expect(s.minted.length).toBe(2);
    expect(s.minted.at(0)).toBeUndefined();
    expect(s.minted.at(1)?.content).toBe('That log is long.');
    expect(peak().arrayBuffers - before.arrayBuffers).toBeLessThan(16 * 1024 * 1024);
    expect(peak().heapUsed - before.heapUsed).toBeLessThan(64 * 1024 * 1024);
  });
});

describe('a file that shrinks or is overwritten while open', () => {
  const SESSION = join(import.meta.dirname, '../../samples/session.sidecar.jsonl');
  const LEGACY = [join(import.meta.dirname, '../../samples/legacy.sidecar.jsonl'), join(import.meta.dirname, '../../samples/legacy.session.json')];

  /**
   * Everything a reader of the session does; none of it may throw (but check, with
   * FileChangedError, once a file changed), and every expansion must verify.
   */
  function exercise(s: LoadedSession): { expanded: ExpandOutcome[]; errors: string[] } {
    const expanded: ExpandOutcome[] = [];
    const errors: string[] = [];
    try {
      s.check();
    } catch (e) {
      if (!(e instanceof FileChangedError)) throw e;
      errors.push(e.code);
    }
    for (const r of s.log) {
      const e = s.expand(r.id);
      if (e.ok) {
        expect(unverifiedOutcome(s.log, s.minted, e.value)).toBeUndefined();
        expanded.push(e.value);
      } else errors.push(e.error.code);
    }
    const found = s.search('e');
    if (!found.ok) errors.push(found.error.code);
    for (let i = 0; i < s.minted.length; i++) s.minted.at(i);
    return { expanded, errors };
  }

  it('truncated after loading: check, expand and search answer file_changed, never bytes that do not verify', async () => {
    const path = tmp.path('shrinks.sidecar.jsonl');
    writeFileSync(path, readFileSync(SESSION));
    const s = await load([path], { cacheBytes: 0 });
    const whole = exercise(s);
    expect(whole.errors).toEqual([]);
    truncateSync(path, Math.floor(statSync(path).size / 3));
    const after = exercise(s);
    expect(after.expanded).toEqual([]);
    expect(after.errors).toHaveLength(s.log.length + 2);
    expect(new Set(after.errors)).toEqual(new Set(['file_changed']));
    expect(s.fileChange()?.message).toMatch(/shrinks\.sidecar\.jsonl changed on disk since it was opened: its size went from \d+ to \d+ bytes/);
    truncateSync(path, 0);
    expect(exercise(s).expanded).toEqual([]);
  });

  it('overwritten in place with other bytes of the same size: file_changed, never the new bytes', async () => {
    const path = tmp.path('overwritten.sidecar.jsonl');
    const original = readFileSync(SESSION);
    writeFileSync(path, original);
    const s = await load([path], { cacheBytes: 0 });
    expect(exercise(s).errors).toEqual([]);
    // Every lowercase letter becomes another: the same lengths and JSON shapes, other content.
    const shift = (value: string) => value.replace(/(?<!\\)[a-y]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 1));
    const text = original.toString('latin1').replace(/("content":")((?:[^"\\]|\\.)*)"/g, (_m, key: string, value: string) => `${key}${shift(value)}"`);
    expect(text.length).toBe(original.length);
    const { mtime, atime } = statSync(path);
    writeFileSync(path, Buffer.from(text, 'latin1'));
    // The modification time set back: the status change time still moves.
    utimesSync(path, atime, mtime);
    const { expanded, errors } = exercise(s);
    expect(expanded).toEqual([]);
    expect(new Set(errors)).toEqual(new Set(['file_changed']));
  });

  it('replaced by a new file (rename over it): file_changed, and nothing more is read', async () => {
    const path = tmp.path('replaced.sidecar.jsonl');
    writeFileSync(path, readFileSync(SESSION));
    const s = await load([path], { cacheBytes: 0 });
    const before = exercise(s);
    expect(before.errors).toEqual([]);
    writeFileSync(`${path}.new`, readFileSync(SESSION));
    renameSync(`${path}.new`, path);
    const after = exercise(s);
    expect(after.expanded).toEqual([]);
    expect(new Set(after.errors)).toEqual(new Set(['file_changed']));
    expect(s.fileChange()?.message, s.fileChange()?.message).toMatch(/replaced by another file/);
  });

  // The file can shrink between any two reads of one operation: at every read of check, expand
  // and search in turn, the reads start failing (as a truncated file's do). Nothing may throw.
  for (const [name, paths] of [
    ['session', [SESSION]],
    ['legacy pair', LEGACY],
  ] as const) {
    it(`${name}: shrinking at any read of check, expand or search never throws`, async () => {
      let failFrom = Number.POSITIVE_INFINITY;
      let reads = 0;
      const shrinking: ReadSync = (fd, buffer, offset, length, position) => (++reads >= failFrom ? 0 : readSync(fd, buffer, offset, length, position));
      const s = await load([...paths], { cacheBytes: 0, readSync: shrinking });
      const ops: [string, () => unknown][] = [
        ['check', () => s.check()],
        ['expand', () => s.log.map((r) => s.expand(r.id))],
        ['search', () => s.search('e')],
      ];
      for (const [op, run] of ops) {
        // How many reads the operation makes when nothing fails, then fail from each one in turn.
        reads = 0;
        failFrom = Number.POSITIVE_INFINITY;
        run();
        const total = reads;
        const step = Math.max(1, Math.floor(total / 60));
        for (let k = 1; k <= total; k += step) {
          reads = 0;
          failFrom = k;
          expect(run, `${op}, reads failing from read ${k} of ${total}`).not.toThrow();
        }
        failFrom = Number.POSITIVE_INFINITY;
        for (const r of s.log) {
          const e = s.expand(r.id);
          if (e.ok) expect(unverifiedOutcome(s.log, s.minted, e.value)).toBeUndefined();
        }
      }
    });
  }
});
