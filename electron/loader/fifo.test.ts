/**
 * A path that is, or is swapped for, a FIFO between a check and the open: the loader
 * opens non-blocking and checks what it opened on the descriptor (fstat), so it refuses the FIFO
 * with `unreadable_file` and never waits for a writer. The swap is simulated by a `statSync` that
 * still sees the regular file the path named a moment before.
 */
import type { ChildProcess } from 'node:child_process';
import { execFileSync, spawn } from 'node:child_process';
import type { PathLike } from 'node:fs';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { makeHeader, makeSnapshot, messageRecord, tempDir, writeSidecar, writeSnapshot } from '../../tools/testing/files';

const swap = vi.hoisted(() => ({ from: '', to: '' }));

vi.mock('node:fs', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs')>();
  // The path checked (`from`) still looks like the regular file `to`: the FIFO arrived after the check.
  const statSync = ((path: PathLike, ...rest: unknown[]) => (String(path) === swap.from ? real.statSync(swap.to) : (real.statSync as (...a: unknown[]) => unknown)(path, ...rest))) as typeof real.statSync;
  return { ...real, statSync };
});

const { loadSession } = await import('./session');
const { runCli } = await import('../cli/testing/runCli');

const tmp = tempDir('session-inspector-fifo-');
afterAll(() => tmp.cleanup());

const regular = writeSidecar(tmp.path('regular.sidecar.jsonl'), [makeHeader(), messageRecord(0, { role: 'user', content: 'hello' })]);
const fifo = tmp.path('swapped.sidecar.jsonl');
execFileSync('mkfifo', [fifo]);

/**
 * A writer waiting to open the FIFO: should a regression open it blocking, the open pairs with this
 * writer and returns instead of hanging the test run (and the test then fails on what it read).
 */
let writer: ChildProcess | undefined;
function startWriter(): void {
  writer = spawn('sh', ['-c', 'exec 3>"$1"', 'sh', fifo], { stdio: 'ignore' });
}
afterEach(() => {
  if (writer?.exitCode === null && writer.pid !== undefined) writer.kill();
  writer = undefined;
  swap.from = '';
});

describe('a FIFO in place of a session file', () => {
  it('is refused by the loader as unreadable_file, not a regular file', async () => {
    startWriter();
    const loaded = await loadSession([fifo]);
    expect(loaded).toMatchObject({ ok: false, error: { code: 'unreadable_file' } });
    if (!loaded.ok) expect(loaded.error.message).toMatch(/FIFO.*not a regular file/);
  });

  it('is refused by the loader when it replaced a regular file after the path was checked', async () => {
    swap.from = fifo;
    swap.to = regular;
    startWriter();
    const loaded = await loadSession([fifo]);
    expect(loaded).toMatchObject({ ok: false, error: { code: 'unreadable_file' } });
    if (!loaded.ok) expect(loaded.error.message).toMatch(/FIFO.*not a regular file/);
  });

  it('is refused by the command line (exit 2, unreadable_file), swapped in after the check or not', async () => {
    for (const swapped of [false, true]) {
      swap.from = swapped ? fifo : '';
      swap.to = regular;
      startWriter();
      const r = await runCli(['check', fifo]);
      expect(r.code).toBe(2);
      const { error } = JSON.parse(r.stdout) as { error: { code: string; message: string } };
      expect(error.code).toBe('unreadable_file');
      expect(error.message).toMatch(/FIFO/);
      writer?.kill();
    }
  });

  it('as the sibling sidecar of a snapshot is refused too', async () => {
    const dir = tempDir('session-inspector-fifo-sibling-');
    try {
      const snapshot = dir.path('s.session.json');
      execFileSync('mkfifo', [dir.path('s.sidecar.jsonl')]);
      writeSnapshot(snapshot, makeSnapshot([{ role: 'user', content: 'hi' }]));
      const loaded = await loadSession([snapshot]);
      expect(loaded).toMatchObject({ ok: false, error: { code: 'unreadable_file' } });
      if (!loaded.ok) expect(loaded.error.message).toMatch(/FIFO.*sibling sidecar/);
    } finally {
      dir.cleanup();
    }
  });
});
