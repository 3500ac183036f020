/** Serving a folder and uploads on the command line: `serve DIR` and `--max-upload`, refused before anything starts when misused. */
import { mkdirSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../tools/testing/files';
import { parseMaxUpload } from './serve';
import { runCli } from './testing/runCli';

const tmp = tempDir('session-inspector-serve-dir-');
afterAll(() => tmp.cleanup());

describe('serve DIR and --max-upload', () => {
  it('parses --max-upload as bytes, or KiB, MiB, GiB with K, M, G', () => {
    expect(parseMaxUpload('1000')).toBe(1000);
    expect(parseMaxUpload('64K')).toBe(64 * 1024);
    expect(parseMaxUpload('3m')).toBe(3 * 1024 * 1024);
    expect(parseMaxUpload('2G')).toBe(2 * 1024 ** 3);
    for (const bad of ['0', '-1', '1.5G', '2T', '', 'G', '1e9', '99999999999999G']) expect(() => parseMaxUpload(bad), bad).toThrow(/--max-upload/);
  });

  it('refuses a bad --max-upload, and --session or --format with a folder, as usage errors (exit 2)', async () => {
    const dir = tmp.path('folder');
    mkdirSync(dir);
    const bad = await runCli(['serve', '--max-upload', 'lots', dir]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--max-upload must be/);
    for (const flag of [['--format', 'codex'], ['--session', 'x']]) {
      const run = await runCli(['serve', dir, ...flag]);
      expect(run.code, flag.join(' ')).toBe(2);
      expect(run.stderr).toMatch(/serve DIR lists the session files of a folder/);
    }
  });
});
