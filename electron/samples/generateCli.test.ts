import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runGenerate } from './generateCli';
import { inspectSample } from './sampleCheck';

const tmp = mkdtempSync(join(tmpdir(), 'generate-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function run(...argv: string[]) {
  let stdout = '';
  let stderr = '';
  const status = runGenerate(argv, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t) });
  return { status, stdout, stderr };
}

describe('npm run generate', () => {
  it('writes DIR/session.* by default and says what it wrote', () => {
    const dir = join(tmp, 'default');
    const { status, stdout } = run('--out', dir, '--messages', '60', '--seed', '9');
    expect(status).toBe(0);
    expect(stdout).toContain(`wrote ${join(dir, 'session.sidecar.jsonl')} (`);
    expect(stdout).toContain(`wrote ${join(dir, 'session.session.json')} (`);
    expect(stdout).toMatch(/records: \d+ \(header 1, system 1, message \d+, reduction \d+/);
    expect(stdout).toMatch(/live reductions: tool_output_truncated \d+, tool_output_elided \d+, duplicate_output \d+, turns_cleared \d+/);
    const sidecar = readFileSync(join(dir, 'session.sidecar.jsonl'), 'utf8');
    expect(sidecar.endsWith('\n')).toBe(true);
    expect(sidecar.split('\n').filter(Boolean).every((l) => !l.includes('\n') && l.startsWith('{"t":'))).toBe(true);
    expect(inspectSample({ sidecar, snapshot: readFileSync(join(dir, 'session.session.json'), 'utf8') }).findings).toEqual([]);
  });

  it('--legacy defaults the stem to legacy; --name overrides it', () => {
    const dir = join(tmp, 'legacy');
    expect(run('--out', dir, '--legacy').status).toBe(0);
    expect(existsSync(join(dir, 'legacy.sidecar.jsonl'))).toBe(true);
    expect(run('--out', dir, '--legacy', '--name', 'old-runtime').stdout).toContain('capped in history (legacy)');
    expect(existsSync(join(dir, 'old-runtime.session.json'))).toBe(true);
  });

  it('--broken writes one file set per finding code and a manifest', () => {
    const dir = join(tmp, 'broken');
    const { status, stdout } = run('--out', dir, '--broken');
    expect(status).toBe(0);
    expect(stdout).toContain('broken samples: hash_mismatch');
    expect(existsSync(join(dir, 'manifest.json'))).toBe(true);
    expect(existsSync(join(dir, 'log_differs.session.json'))).toBe(true);
  });

  it.each([
    [[], /--out DIR is required/],
    [['--out', 'x', '--messages', 'abc'], /--messages must be a whole number/],
    [['--out', 'x', '--messages', '0'], /--messages must be between 1 and/],
    [['--out', 'x', '--seed', '4294967296'], /--seed must be between 0 and 4294967295/],
    [['--out', 'x', '--seed', '-3'], /--seed|argument/],
    [['--out', 'x', '--name', '../up'], /--name must be a plain file stem/],
    [['--out', 'x', '--broken', '--legacy'], /--legacy applies to a single session/],
    [['--out', 'x', '--broken', '--all'], /cannot be combined/],
    [['--out', 'x', '--frobnicate'], /Unknown option '--frobnicate'/],
    [['--out', 'x', 'stray'], /positional/],
  ])('rejects %j with exit status 2 and a clear message', (argv, message) => {
    const { status, stdout, stderr } = run(...argv);
    expect(status).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toMatch(message);
    expect(stderr).toContain('usage:');
  });

  it('--help prints the usage', () => {
    const { status, stdout } = run('--help');
    expect(status).toBe(0);
    expect(stdout).toContain('npm run generate -- --out samples --all');
  });
});
