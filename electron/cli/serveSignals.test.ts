/**
 * SIGTERM ends `serve` promptly, even while an open is in progress (signals.ts): a served folder's
 * entry whose companion is a FIFO nothing writes, opened through the HTTP API, then SIGTERM; and a
 * process whose worker thread is stuck in a read for good, which SIGTERM ends all the same.
 */
import type { ChildProcess } from 'node:child_process';
import { execFileSync, spawn } from 'node:child_process';
import { closeSync, constants, existsSync, openSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { HostEvent } from '../../shared/index';
import { openEventStream, request } from '../host/testing/httpClient';
import { buildForeignCase } from '../loader/testing/foreignFiles';
import { tempDir } from '../../tools/testing/files';

const ROOT = join(import.meta.dirname, '../..');
const LISTENING = /^Session Inspector listening on (http:\/\/127\.0\.0\.1:(\d+)\/\?token=([A-Za-z0-9_-]{32}))$/;
/** The bound on the wait for the process to end after SIGTERM (the shutdown's grace is 3 s). */
const EXIT_WITHIN_MS = 15_000;

const tmp = tempDir('session-inspector-signals-');
afterAll(() => tmp.cleanup());
const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

function spawnScript(script: string, args: string[]) {
  const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let ended: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  child.once('exit', (code, signal) => (ended = { code, signal }));
  const firstLine = new Promise<string>((resolve) => createInterface({ input: child.stdout as NodeJS.ReadableStream }).once('line', resolve));
  return { child, firstLine, ended: () => ended };
}

/**
 * Whether a thread of process `pid` is blocked in a pipe's (a FIFO's) read, from each thread's
 * `/proc/<pid>/task/<tid>/wchan` (`pipe_read`, `anon_pipe_read` on newer kernels); null where
 * `/proc` does not say (not Linux, or symbols hidden).
 */
function threadInPipeRead(pid: number | undefined): boolean | null {
  const tasks = `/proc/${pid}/task`;
  if (pid === undefined || !existsSync(tasks)) return null;
  try {
    const waits = readdirSync(tasks).map((tid) => readFileSync(join(tasks, tid, 'wchan'), 'utf8').trim());
    // A kernel that hides the symbols says 0 for every thread.
    if (waits.every((w) => w === '' || w === '0')) return null;
    return waits.some((w) => /pipe_read|pipe_wait/.test(w));
  } catch {
    return false;
  }
}

describe('SIGTERM ends a long-running command at any moment', () => {
  const workerBuilt = existsSync(join(ROOT, 'dist/worker.cjs'));
  it.skipIf(!workerBuilt)('serve DIR, with the real worker: SIGTERM while an entry whose tool-results file is a FIFO is opened ends the host', async () => {
    const dir = tmp.path('served');
    const c = buildForeignCase(dir, tmp.path('outside'), 'tool-result', 'fifo');
    const run = spawnScript(join(ROOT, 'electron/cli/bin.ts'), ['serve', dir, '--port', '0']);
    const m = LISTENING.exec(await run.firstLine);
    expect(m).not.toBeNull();
    const port = Number(m![2]);
    const token = m![3]!;
    const api = (method: string, params: unknown = {}) =>
      request(port, { method: 'POST', path: `/api/${method}`, headers: { 'X-Session-Inspector-Token': token, 'Content-Type': 'application/json' }, body: JSON.stringify(params) });
    const listing = JSON.parse((await api('folder')).body) as { value: { entries: { id: string; name: string }[] } };
    const id = listing.value.entries.find((e) => e.name === c.main.slice(dir.length + 1))?.id;
    expect(id).toBeDefined();
    const stream = await openEventStream(port, `/api/events?token=${token}`);
    // Not awaited: before the loader read companions safely, this open never answered.
    void api('openFile', { id }).catch(() => undefined);
    // The open is under way once the host reports its progress (or its end).
    for (let e = (await stream.next()) as HostEvent; !['loadProgress', 'sessionOpened', 'loadFailed'].includes(e.name); e = (await stream.next()) as HostEvent);
    stream.close();
    run.child.kill('SIGTERM');
    // Nothing is stuck (the companion is refused, never waited on): the shutdown is the orderly one.
    await expect.poll(run.ended, { timeout: EXIT_WITHIN_MS, interval: 50 }).toEqual({ code: 0, signal: null });
  }, 60_000);

  it('a worker thread stuck in a read for good: SIGTERM ends the process once the shutdown grace is over', async () => {
    const fifo = tmp.path('never-written');
    execFileSync('mkfifo', [fifo]);
    const run = spawnScript(join(ROOT, 'electron/cli/testing/stuckShutdown.ts'), [fifo]);
    expect(await run.firstLine).toBe('ready');
    // 'ready' says the thread runs, not that it is inside its read yet: a thread still in JavaScript
    // is ended by terminate(), and the shutdown would be the orderly one. A writer that opens without
    // blocking finds a reader only once the thread is in the FIFO's open; kept open and never
    // written, it leaves the thread in its read for good.
    let writer: number | undefined;
    const openWriter = (): boolean => {
      try {
        writer = openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK);
        return true;
      } catch {
        return false;
      }
    };
    try {
      await expect.poll(openWriter, { timeout: 30_000, interval: 20 }).toBe(true);
      // Out of the open, the thread is in JavaScript until its read starts; a SIGTERM there is
      // ended by terminate() (the orderly shutdown, exit 0: seen on a loaded machine). Where the
      // kernel says what each thread waits on (Linux), wait until one waits in a pipe's read.
      await expect.poll(() => threadInPipeRead(run.child.pid), { timeout: 30_000, interval: 20 }).not.toBe(false);
      run.child.kill('SIGTERM');
      await expect.poll(run.ended, { timeout: EXIT_WITHIN_MS, interval: 50 }).toEqual({ code: null, signal: 'SIGTERM' });
    } finally {
      if (writer !== undefined) closeSync(writer);
    }
  }, 60_000);
});
