/**
 * A repro bundle's search reports its progress and may be stopped (electron/bundle/bundle.ts;
 * docs/bundles.md): progress is monotone and ends with the manifest's figures; a cancel or a time
 * limit ends the search with files that still reproduce, and bundle.json says it stopped early and
 * why; the cut list accounts for every byte removed; `bundle --progress`, `--max-calls` and SIGINT
 * on the command line. Stops are driven by the oracle's own count or an injected clock: no sleeps.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, describe, expect, it } from 'vitest';
import { loadSession } from '../loader/session';
import { runCli } from '../cli/testing/runCli';
import { tempDir } from '../../tools/testing/files';
import type { Bundle, BundleProgress, BundleRequest } from './bundle';
import { buildBundle, writeBundle } from './bundle';
import type { BundleManifest } from './manifest';

const ROOT = join(import.meta.dirname, '../..');
const REAL = join(ROOT, 'e2e/fixtures/real');
const CLAUDE = join(REAL, 'claude-code/cc-2.0.76-compact-boundary.jsonl');
const CLAUDE_ID = 'cc-compact-L31';
const CODEX = join(ROOT, 'e2e/fixtures/synthetic/codex/reinjected-context.jsonl');
const CODEX_ID = 'codex-L12-1';
const tmp = tempDir('session-inspector-bundle-progress-');
afterAll(() => tmp.cleanup());
let serial = 0;

/** What the source and a bundle show for `ids`: each expansion's outcome, and check's codes. */
async function shows(paths: string[], ids: readonly string[]): Promise<{ codes: string[]; outcomes: unknown[] }> {
  const r = await loadSession(paths);
  if (!r.ok) throw new Error(r.error.message);
  try {
    return { codes: [...new Set(r.session.check().findings.map((f) => f.code))].sort(), outcomes: ids.map((id) => r.session.expand(id)) };
  } finally {
    r.session.close();
  }
}

async function made(request: BundleRequest): Promise<{ bundle: Bundle; progress: BundleProgress[]; files: string[] }> {
  const progress: BundleProgress[] = [];
  const bundle = await buildBundle({
    ...request,
    onProgress: (p) => {
      progress.push(p);
      request.onProgress?.(p);
    },
  });
  const out = tmp.path(`out-${serial++}`);
  writeBundle(out, bundle);
  return { bundle, progress, files: bundle.manifest.files.map((f) => join(out, f.name)) };
}

function expectMonotone(progress: readonly BundleProgress[], manifest: BundleManifest): void {
  expect(progress[0]?.stage).toBe('start');
  expect(progress.at(-1)?.stage).toBe('done');
  for (let k = 1; k < progress.length; k++) {
    const [a, b] = [progress[k - 1] as BundleProgress, progress[k] as BundleProgress];
    expect(b.oracle_calls).toBeGreaterThanOrEqual(a.oracle_calls);
    expect(b.bytes_now).toBeLessThanOrEqual(a.bytes_now);
    expect(b.units_now).toBeLessThanOrEqual(a.units_now);
    expect(b.elapsed_ms).toBeGreaterThanOrEqual(a.elapsed_ms);
    expect(b.oracle_calls).toBeLessThanOrEqual(b.max_oracle_calls);
  }
  const last = progress.at(-1) as BundleProgress;
  expect(last.oracle_calls).toBe(manifest.minimizer.oracle_calls);
  expect(last.bytes_before).toBe(manifest.minimizer.bytes_before);
  expect(last.units_now).toBe(manifest.minimizer.units.reduce((n, u) => n + u.after, 0));
}

/** bytes_before − Σ removed units − Σ (rewritten: before − after) = bytes_after, and each removed range is those bytes of the source. */
function expectCutAccounts(manifest: BundleManifest, sources: string[]): void {
  const m = manifest.minimizer;
  const cut = m.cut;
  expect(cut.removed_bytes).toBe(cut.units.reduce((n, u) => n + u.bytes, 0));
  expect(cut.by_kind.reduce((n, k) => n + k.bytes, 0)).toBe(cut.removed_bytes);
  expect(cut.by_kind.reduce((n, k) => n + k.units, 0)).toBe(cut.removed_units);
  const rewrite = cut.rewritten.reduce((n, r) => n + r.bytes_before - r.bytes_after, 0);
  expect(m.bytes_before - cut.removed_bytes - rewrite).toBe(m.bytes_after);
  for (const u of cut.units) {
    const source = readFileSync(sources[manifest.files.findIndex((f) => f.name === u.file)] as string);
    expect(u.ranges.reduce((n, [s, e]) => n + e - s, 0)).toBe(u.bytes);
    // Each range is whole lines of the source: it starts a line and ends with one's newline (or the file).
    for (const [s, e] of u.ranges) {
      expect(s === 0 || source[s - 1] === 0x0a).toBe(true);
      expect(e === source.length || source[e - 1] === 0x0a).toBe(true);
    }
  }
}

describe('bundle progress and stops', () => {
  it('a run to the end: progress is monotone, ends with the manifest figures; the cut list accounts for every byte (Claude Code)', async () => {
    const { bundle, progress, files } = await made({ paths: [CLAUDE], ids: [CLAUDE_ID] });
    const m = bundle.manifest.minimizer;
    expect(m.stop).toBe('minimal');
    expect(m.stopped_early).toBeNull();
    expect(m.cut.removed_units).toBeGreaterThan(0);
    expectMonotone(progress, bundle.manifest);
    expectCutAccounts(bundle.manifest, [CLAUDE]);
    expect((await shows(files, [CLAUDE_ID])).outcomes).toEqual((await shows([CLAUDE], [CLAUDE_ID])).outcomes);
  }, 180_000);

  it('a cancel after a few oracle calls keeps the smallest bundle found so far, which still reproduces, and says so', async () => {
    let calls = 0;
    const { bundle, progress, files } = await made({
      paths: [CLAUDE],
      ids: [CLAUDE_ID],
      cancelled: () => calls >= 6,
      onProgress: (p) => (calls = p.oracle_calls),
    });
    expect(progress.at(-1)?.oracle_calls).toBe(6);
    const m = bundle.manifest.minimizer;
    expect(m.stop).toBe('cancelled');
    expect(m.stopped_early?.reason).toBe('cancelled');
    expect(m.stopped_early?.message).toMatch(/cancel/);
    expect(readFileSync(join(files[0] as string, '..', 'README.md'), 'utf8')).toContain('Stopped early: stopped by a cancel');
    expect(m.bytes_after).toBeLessThanOrEqual(m.bytes_before);
    expect((await shows(files, [CLAUDE_ID])).outcomes).toEqual((await shows([CLAUDE], [CLAUDE_ID])).outcomes);
    expectCutAccounts(bundle.manifest, [CLAUDE]);
  }, 180_000);

  it('a time limit (an injected clock) stops the search with a reproducing bundle; a call cap too (Codex)', async () => {
    const source = await shows([CODEX], [CODEX_ID]);
    let clock = 0;
    const timed = await made({ paths: [CODEX], ids: [CODEX_ID], maxTimeMs: 5_000, now: () => (clock += 1_000) });
    expect(timed.bundle.manifest.minimizer.stop).toBe('time_limit');
    expect(timed.bundle.manifest.minimizer.stopped_early?.message).toMatch(/time limit of 5 s/);
    expect(await shows(timed.files, [CODEX_ID])).toEqual(source);
    expectCutAccounts(timed.bundle.manifest, [CODEX]);
    expectMonotone(timed.progress, timed.bundle.manifest);

    const capped = await made({ paths: [CODEX], ids: [CODEX_ID], maxCalls: 7 });
    expect(capped.bundle.manifest.minimizer.stop).toBe('call_cap');
    expect(capped.bundle.manifest.minimizer.oracle_calls).toBe(7);
    expect(await shows(capped.files, [CODEX_ID])).toEqual(source);
    expectCutAccounts(capped.bundle.manifest, [CODEX]);
  }, 180_000);
});

describe('bundle on the command line', () => {
  it('--progress prints monotone JSON progress lines on stderr; --max-calls stops early and the bundle says so', async () => {
    const out = tmp.path(`cli-${serial++}`);
    const r = await runCli(['bundle', '--out', out, '--id', CLAUDE_ID, '--max-calls', '4', '--progress', CLAUDE]);
    expect(r.code).toBe(0);
    const lines = r.stderr.trim().split('\n');
    const events = lines.filter((l) => l.startsWith('{')).map((l) => (JSON.parse(l) as { progress: BundleProgress }).progress);
    expect(events.length).toBeGreaterThanOrEqual(2);
    const manifest = JSON.parse(readFileSync(join(out, 'bundle.json'), 'utf8')) as BundleManifest;
    expectMonotone(events, manifest);
    expect(manifest.minimizer.stop).toBe('call_cap');
    expect(lines.at(-1)).toMatch(/^session-inspector: stopped at the cap of 4 oracle calls/);
    expect((JSON.parse(r.stdout) as { minimizer: { stop: string } }).minimizer.stop).toBe('call_cap');
  }, 120_000);

  const built = existsSync(join(ROOT, 'dist/cli.cjs'));
  it.skipIf(!built)('SIGINT during the search writes the best bundle so far, which reproduces, and exits 0', async () => {
    const out = tmp.path(`sigint-${serial++}`);
    const child = spawn(process.execPath, [join(ROOT, 'bin/session-inspector.cjs'), 'bundle', '--out', out, '--id', CLAUDE_ID, '--progress', CLAUDE], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    // Interrupted once the search has made a call (a progress line past the start).
    await new Promise<void>((resolve) => {
      const lines = createInterface({ input: child.stderr as NodeJS.ReadableStream });
      lines.on('line', (l) => {
        if (/"oracle_calls":[1-9]/.test(l)) {
          lines.close();
          child.kill('SIGINT');
          resolve();
        }
      });
    });
    expect(await exited).toBe(0);
    const manifest = JSON.parse(readFileSync(join(out, 'bundle.json'), 'utf8')) as BundleManifest;
    expect(manifest.minimizer.stop).toBe('cancelled');
    const files = manifest.files.map((f) => join(out, f.name));
    expect((await shows(files, [CLAUDE_ID])).outcomes).toEqual((await shows([CLAUDE], [CLAUDE_ID])).outcomes);
  }, 120_000);
});
