/**
 * The library's index of an appended file (docs/library.md "The cache"): a held file of a format
 * that only appends is indexed on from where it stopped, reading the appended bytes (and the
 * fixed fingerprint of the prefix already read), and its counts are those of a cold index of the
 * whole file, whatever the split into a prefix and appends.
 */
import fc from 'fast-check';
import { appendFileSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FINGERPRINT_BYTES } from '../loader/follow';
import type { IndexJob, IndexReply } from './index';
import { indexFile, releaseHeld } from './index';
import { REAL } from './testing/libraryHome';

const FILES = {
  'claude-code': join(REAL, 'claude-code', 'cc-2.0.76-compact-boundary.jsonl'),
  codex: join(REAL, 'codex', 'rollout-0.40.0-vscode-unmodified.jsonl'),
  supercode: join(import.meta.dirname, '../../samples/session.sidecar.jsonl'),
};

let base: string;
beforeAll(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'library-incremental-')));
});
afterEach(() => releaseHeld());
afterAll(() => rmSync(base, { recursive: true, force: true }));

let n = 0;
const job = (path: string, hold: boolean): IndexJob => ({ path, root: base, place: { rel: path.slice(base.length + 1), rootId: '0' }, hold });

function counts(reply: IndexReply) {
  if (!reply.ok) throw new Error(reply.message);
  return reply.counts;
}

describe('an appended file', () => {
  it.each(Object.entries(FILES))('%s: indexed on from where it stopped: the counts of a cold index, only the appended bytes read', async (_format, source) => {
    const bytes = readFileSync(source);
    // Cut after a line about two thirds in: the prefix is most of the file.
    const cut = bytes.indexOf(0x0a, Math.floor((bytes.length * 2) / 3)) + 1;
    const path = join(base, `split-${n++}.jsonl`);
    writeFileSync(path, bytes.subarray(0, cut));
    const first = await indexFile(job(path, true));
    expect(first.ok && first.read?.bytes).toBeGreaterThanOrEqual(cut);
    appendFileSync(path, bytes.subarray(cut));
    const appended = bytes.length - cut;
    const next = await indexFile(job(path, true));
    const cold = await indexFile(job(path, false));
    expect(counts(next)).toEqual(counts(cold));
    // Read: the appended bytes, plus the prefix's fingerprint (its first and last bytes) checked and taken again.
    if (!next.ok || !next.read) throw new Error('no read count');
    expect(next.read.from).toBe(cut);
    expect(next.read.before).toBeLessThanOrEqual(3 * FINGERPRINT_BYTES + 1);
    expect(next.read.bytes - next.read.before).toBeGreaterThanOrEqual(appended);
    expect(next.read.bytes - next.read.before).toBeLessThanOrEqual(appended + FINGERPRINT_BYTES + 1);
    expect(next.read.bytes).toBeLessThan(bytes.length);
  });

  it('a prefix rewritten is read again whole, and counted as it is now', async () => {
    const path = join(base, `rewritten-${n++}.jsonl`);
    const bytes = readFileSync(FILES['claude-code']);
    const cut = bytes.indexOf(0x0a, Math.floor(bytes.length / 2)) + 1;
    writeFileSync(path, bytes.subarray(0, cut));
    await indexFile(job(path, true));
    // Same file (same inode), rewritten with other records longer than what was read.
    const other = readFileSync(FILES.codex);
    writeFileSync(path, other);
    const next = await indexFile(job(path, true));
    expect(counts(next)).toEqual(counts(await indexFile(job(path, false))));
    expect(next.ok && next.read?.bytes).toBeGreaterThanOrEqual(other.length);
  });

  it('any split of a file into a prefix and appends gives the entry of a cold index of the whole', async () => {
    const sources = Object.values(FILES).map((p) => readFileSync(p));
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: sources.length - 1 }), fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 1, maxLength: 4 }), async (which, fractions) => {
        const bytes = sources[which] as Buffer;
        const cuts = [...new Set(fractions.map((f) => Math.floor(f * bytes.length)))].sort((a, b) => a - b);
        const path = join(base, `any-${n++}.jsonl`);
        writeFileSync(path, bytes.subarray(0, cuts[0]));
        await indexFile(job(path, true));
        for (const [k, at] of cuts.entries()) {
          appendFileSync(path, bytes.subarray(at, cuts[k + 1] ?? bytes.length));
          await indexFile(job(path, true));
        }
        const held = await indexFile(job(path, true));
        expect(counts(held)).toEqual(counts(await indexFile(job(path, false))));
        releaseHeld();
        rmSync(path);
      }),
      { numRuns: 12 },
    );
  }, 120_000);
});
