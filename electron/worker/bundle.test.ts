/**
 * The `reproBundle` method over an open session. Its files, packed by shared/links/tar.ts and
 * extracted by the system's tar, reproduce the finding on their own; a bundle over the cap is a
 * clear `too_large` naming the CLI command; what was not shown is `not_reproduced`.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { methods } from '../../shared/index';
import { ustar } from '../../shared/links/tar';
import { runCli } from '../cli/testing/runCli';
import { brokenSamples } from '../../tools/samples/brokenSamples';
import { tempDir } from '../../tools/testing/files';
import { reproBundleReply } from './handlers/bundle';
import { SessionService } from './service';

const tmp = tempDir('session-inspector-worker-bundle-');
afterAll(() => tmp.cleanup());

const sample = brokenSamples().find((s) => s.code === 'duplicate_bytes_differ');
if (!sample) throw new Error('no duplicate_bytes_differ sample');
const sources = Object.entries(sample.files).map(([name, content]) => {
  writeFileSync(tmp.path(name), content);
  return tmp.path(name);
});

async function opened(): Promise<SessionService> {
  const service = new SessionService();
  const reply = await service.open({ paths: sources, generation: 1 });
  expect(reply.ok).toBe(true);
  return service;
}

describe('reproBundle', () => {
  it('answers files that, packed into a .tar and extracted, reproduce the finding code', async () => {
    const service = await opened();
    const reply = await service.handle('reproBundle', methods.reproBundle.params.parse({ codes: ['duplicate_bytes_differ'] }));
    service.close();
    if (!reply.ok) throw new Error(reply.error.message);
    // The reply is what the contract promises the renderer.
    expect(methods.reproBundle.result.safeParse(reply.value).success).toBe(true);
    expect(reply.value.name).toBe('repro-duplicate_bytes_differ');
    expect(reply.value.command).toContain('session-inspector bundle --out repro-duplicate_bytes_differ --finding duplicate_bytes_differ ');
    expect(reply.value.bytes_after).toBeLessThan(reply.value.bytes_before);
    const archive = ustar([{ name: `${reply.value.name}/` }, ...reply.value.files.map((f) => ({ name: `${reply.value.name}/${f.name}`, bytes: new Uint8Array(Buffer.from(f.base64, 'base64')) }))]);
    const out = tmp.path('x');
    mkdirSync(out);
    writeFileSync(`${out}.tar`, archive);
    execFileSync('tar', ['-xf', `${out}.tar`, '-C', out]);
    const dir = join(out, reply.value.name);
    expect(readdirSync(dir).sort()).toEqual(['README.md', 'bundle.json', 'bundle.spec.ts', 'duplicate_bytes_differ.sidecar.jsonl']);
    const check = await runCli(['check', join(dir, 'duplicate_bytes_differ.sidecar.jsonl')]);
    expect((JSON.parse(check.stdout) as { findings: { code: string }[] }).findings.map((f) => f.code)).toContain('duplicate_bytes_differ');
    // The sources were only read.
    expect(readFileSync(sources[0] as string, 'utf8')).toBe(Object.values(sample.files)[0]);
  }, 60_000);

  it('a bundle over the cap is too_large and names the command line; a code the session lacks is not_reproduced; no session is no_session', async () => {
    const service = await opened();
    const state = await service.open({ paths: sources, generation: 2 });
    if (!state.ok) throw new Error(state.error.message);
    const big = await reproBundleReply(state.value, methods.reproBundle.params.parse({ codes: ['duplicate_bytes_differ'] }), 1024);
    expect(big.ok).toBe(false);
    if (!big.ok) {
      expect(big.error.code).toBe('too_large');
      expect(big.error.message).toContain('session-inspector bundle --out');
    }
    // Files of a line format past the cap: refused from their sizes, before they are read again.
    const absentPath = tmp.path('not-there.jsonl');
    const huge = { ...state.value, format: 'claude-code' as const, files: [{ path: absentPath, format: 'claude-code' as const, bytes: 10 * 1024 * 1024 }] };
    const early = await reproBundleReply(huge, methods.reproBundle.params.parse({ ids: ['r1'] }), 8 * 1024 * 1024);
    expect(early.ok ? '' : early.error.code).toBe('too_large');
    expect(early.ok ? '' : early.error.message).toContain(`at least ${10 * 1024 * 1024} bytes`);
    expect(early.ok ? '' : early.error.message).toContain(`session-inspector bundle --out repro-r1 --id r1 --format claude-code ${absentPath}`);
    // A format written again may shrink: it is not refused by its size, and the file is read (here it is not there).
    const rewritten = { ...huge, format: 'inspect' as const, files: [{ path: absentPath, format: 'inspect-json' as const, bytes: 10 * 1024 * 1024 }] };
    const read = await reproBundleReply(rewritten, methods.reproBundle.params.parse({ ids: ['r1'] }), 8 * 1024 * 1024);
    expect(read.ok ? '' : read.error.code).not.toBe('too_large');
    const absent = await service.handle('reproBundle', methods.reproBundle.params.parse({ codes: ['hash_mismatch'] }));
    expect(absent.ok ? 'ok' : absent.error.code).toBe('not_reproduced');
    service.close();
    const none = await service.handle('reproBundle', methods.reproBundle.params.parse({}));
    expect(none.ok ? 'ok' : none.error.code).toBe('no_session');
  }, 60_000);
});
