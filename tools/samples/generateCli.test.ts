import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
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
    [['--out', 'x', '--size', '1G'], /--size must be a whole number of bytes or a number with a unit .* got "1G"/],
    [['--out', 'x', '--size', 'big'], /--size must be a whole number of bytes or a number with a unit/],
    [['--out', 'x', '--size', '-1MiB'], /--size|argument/],
    [['--out', 'x', '--size', '1.5'], /--size must be a whole number of bytes/],
    [['--out', 'x', '--size', '1000000'], /--size must be between 1MiB and 8GiB .* got 1000000 \(1000000 bytes\)/],
    [['--out', 'x', '--size', '9GiB'], /--size must be between 1MiB and 8GiB/],
    [['--out', 'x', '--size', '0'], /--size must be between 1MiB and 8GiB/],
    [['--out', 'x', '--size', '64MiB', '--messages', '100'], /--size cannot be combined with --messages/],
    [['--out', 'x', '--size', '64MiB', '--broken'], /--size cannot be combined with --broken/],
    [['--out', 'x', '--size', '64MiB', '--all'], /--size cannot be combined with --all/],
    [['--out', 'x', '--size', '64MiB', '--legacy'], /--size cannot be combined with --legacy/],
    [['--out', 'x', '--size', '64MiB', '--name', 'a/b'], /--name must be a plain file stem/],
  ])('rejects %j with exit status 2 and a clear message', (argv, message) => {
    const { status, stdout, stderr } = run(...argv);
    expect(status).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toMatch(message);
    expect(stderr).toContain('usage:');
  });

  it('--size writes DIR/STEM.sidecar.jsonl and DIR/STEM.manifest.json and says what it planted', () => {
    const dir = join(tmp, 'scale');
    const { status, stdout } = run('--out', dir, '--size', '1MiB', '--name', 'bench-1m', '--seed', '3');
    expect(status).toBe(0);
    const sidecar = join(dir, 'bench-1m.sidecar.jsonl');
    const bytes = statSync(sidecar).size;
    expect(stdout).toContain(`wrote ${sidecar} (${bytes} bytes)`);
    expect(stdout).toContain(`wrote ${join(dir, 'bench-1m.manifest.json')}`);
    expect(stdout).toMatch(/1 MiB asked, \d+ bytes written; view: \d+ messages; live reductions: tool_output_truncated \d+, tool_output_elided \d+, duplicate_output \d+, turns_cleared 2/);
    expect(stdout).toMatch(/huge tool outputs \(truncated\): r\d+ at view index \d+, \d+ bytes; r\d+/);
    expect(stdout).toMatch(/needle "ZQXJ-needle-7": \d+ occurrences in hidden content/);
    expect(Math.abs(bytes - 1024 * 1024)).toBeLessThan(0.05 * 1024 * 1024);
    const manifest = JSON.parse(readFileSync(join(dir, 'bench-1m.manifest.json'), 'utf8')) as { seed: number; bytes: number };
    expect(manifest).toMatchObject({ seed: 3, bytes });
    expect(existsSync(join(dir, 'bench-1m.session.json'))).toBe(false);
  });

  it('--size defaults the stem to large', () => {
    const dir = join(tmp, 'scale-default');
    expect(run('--out', dir, '--size', '1048576').status).toBe(0);
    expect(existsSync(join(dir, 'large.sidecar.jsonl'))).toBe(true);
    expect(existsSync(join(dir, 'large.manifest.json'))).toBe(true);
  });

  it('--help prints the usage', () => {
    const { status, stdout } = run('--help');
    expect(status).toBe(0);
    expect(stdout).toContain('npm run generate -- --out samples --all');
    expect(stdout).toContain('npm run generate -- --out DIR --size SIZE [--seed S] [--name STEM]');
  });
});
