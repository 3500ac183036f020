/**
 * The listing thread: scans run off the calling thread, a scan asked for while one runs is read
 * after it was asked, and a folder that cannot be read is refused without stopping later scans.
 */
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../tools/testing/files';
import { threadScanner } from './thread';

const ROOT = join(import.meta.dirname, '../..');
const DEMO = join(ROOT, 'samples/demo.sidecar.jsonl');

const tmp = tempDir('session-inspector-listing-thread-test-');
afterAll(() => tmp.cleanup());

describe('the listing thread', () => {
  it('a listing asked for while one runs reads the folder after it was asked (a file added meanwhile is in it)', async () => {
    const dir = tmp.path('refresh');
    mkdirSync(dir);
    copyFileSync(DEMO, join(dir, 'a.sidecar.jsonl'));
    const gate = new Int32Array(new SharedArrayBuffer(8));
    const scan = threadScanner({ gate: gate.buffer, timeoutMs: 60_000 });
    const first = scan(dir, 100);
    // The first scan holds before its first file: it has read the folder's names already.
    await expect.poll(() => Atomics.load(gate, 1), { timeout: 30_000 }).toBe(1);
    copyFileSync(DEMO, join(dir, 'b.sidecar.jsonl'));
    const second = scan(dir, 100);
    const third = scan(dir, 100);
    Atomics.store(gate, 0, 1);
    Atomics.notify(gate, 0);
    await first;
    const [later, same] = await Promise.all([second, third]);
    expect(later.entries.map((e) => e.name).sort()).toEqual(['a.sidecar.jsonl', 'b.sidecar.jsonl']);
    // Requests that came during one scan share the next one.
    expect(same).toBe(later);
  });

  it('refuses a folder that cannot be read, and scans the next one', async () => {
    const scan = threadScanner();
    await expect(scan(tmp.path('missing'), 100)).rejects.toThrow(/ENOENT/);
    const dir = tmp.path('present');
    mkdirSync(dir);
    copyFileSync(DEMO, join(dir, 'a.sidecar.jsonl'));
    expect((await scan(dir, 100)).entries).toEqual([{ name: 'a.sidecar.jsonl', format: 'supercode', bytes: 1120 }]);
  });
});
