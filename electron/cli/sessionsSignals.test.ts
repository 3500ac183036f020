import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { writeSmallSessions } from '../library/testing/generated';

const ROOT = resolve(import.meta.dirname, '../..');
const base = mkdtempSync(join(tmpdir(), 'sessions-signal-'));
afterAll(() => rmSync(base, { recursive: true, force: true }));

describe('sessions under SIGINT', () => {
  it('stops a search across sessions at once: exit 2, cancelled, not every session printed', async () => {
    const dir = join(base, 'sessions');
    const total = 400;
    writeSmallSessions(dir, total);
    const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'electron/cli/bin.ts'), 'sessions', dir, '--no-default-roots', '--jsonl', '--query', 'list the files'], {
      cwd: ROOT,
      env: { ...process.env, SESSION_INSPECTOR_CACHE_DIR: join(base, 'cache') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let signalled = false;
    const exited = new Promise<number | null>((resolveExit) => child.on('exit', (code) => resolveExit(code)));
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      // The first session printed: the search is under way.
      if (!signalled && stdout.includes('\n')) {
        signalled = true;
        child.kill('SIGINT');
      }
    });
    const code = await exited;
    expect(signalled).toBe(true);
    expect(code).toBe(2);
    const lines = stdout.trimEnd().split('\n');
    expect(JSON.parse(lines.at(-1) as string)).toMatchObject({ error: { code: 'cancelled' } });
    expect(lines.length - 1).toBeLessThan(total);
  }, 120_000);
});
