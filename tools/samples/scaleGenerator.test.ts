import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChatMessage, Reduction, SidecarHeader } from '../../shared/index';
import { NATIVE_REDUCTION_KINDS, mintReductions, stubText, utf8Length } from '../../shared/index';
import type { LoadedSession } from '../../electron/loader/session';
import { nodeSha256 } from '../../electron/loader/session';
import { sessionOpener, tempDir } from '../testing/files';
import { runGenerate } from './generateCli';
import type { ScaleManifest } from './scaleGenerator';
import { GIB, MIB, SCALE_NEEDLE, parseByteSize, writeScaleSession } from './scaleGenerator';

const SIZE = 8 * MIB;
const tmp = tempDir('scale-');
const { load, closeAll } = sessionOpener();
afterAll(() => {
  closeAll();
  tmp.cleanup();
});

const sha256File = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');

let manifest: ScaleManifest;
let session: LoadedSession;
const sidecar = tmp.path('large.sidecar.jsonl');

beforeAll(async () => {
  let stdout = '';
  const status = runGenerate(['--out', tmp.dir, '--size', '8MiB', '--seed', '7'], { stdout: (t) => (stdout += t), stderr: (t) => (stdout += t) });
  expect(status, stdout).toBe(0);
  expect(stdout).toContain(`wrote ${sidecar} (`);
  manifest = JSON.parse(readFileSync(tmp.path('large.manifest.json'), 'utf8')) as ScaleManifest;
  session = await load([sidecar]);
}, 30_000);

describe('npm run generate -- --size (a large session, streamed)', () => {
  it('writes a sidecar within 5% of the size, and a manifest that describes it', () => {
    const bytes = statSync(sidecar).size;
    expect(Math.abs(bytes - SIZE) / SIZE).toBeLessThan(0.05);
    expect(manifest.bytes).toBe(bytes);
    expect(manifest).toMatchObject({ seed: 7, target_bytes: SIZE, messages: session.minted.length, reductions: session.log.length });
    expect(readFileSync(sidecar, 'utf8').endsWith('}\n')).toBe(true);
  });

  it('is a consistent session: no error-severity finding, all four kinds in the live log', () => {
    const report = session.check();
    expect(report.findings.filter((f) => f.severity === 'error')).toEqual([]);
    expect(report.findings).toEqual([]);
    const byKind = Object.fromEntries(NATIVE_REDUCTION_KINDS.map((k) => [k, session.log.filter((r) => r.kind === k).length]));
    expect(byKind).toEqual(manifest.by_kind);
    for (const kind of NATIVE_REDUCTION_KINDS) expect(byKind[kind], kind).toBeGreaterThan(0);
    expect(byKind.turns_cleared).toBe(2);
    // Most reductions hide old tool output.
    expect(byKind.tool_output_truncated).toBeGreaterThan(manifest.reductions / 2);
  });

  it('holds the huge outputs the manifest lists, truncated, at the sizes it says', () => {
    expect(manifest.huge).toHaveLength(3);
    expect(manifest.huge.map((h) => h.bytes)).toEqual([...manifest.huge.map((h) => h.bytes)].sort((a, b) => a - b));
    // About 5%, 11% and 19% of the size (50, 120 and 200 MB at 1 GiB).
    manifest.huge.forEach((h, k) => {
      const expected = [50e6, 120e6, 200e6][k] ?? 0;
      expect(h.bytes / SIZE).toBeGreaterThan((expected / GIB) * 0.97);
      expect(h.bytes / SIZE).toBeLessThan((expected / GIB) * 1.1);
      const r = session.log.find((x) => x.id === h.reduction_id);
      expect(r).toMatchObject({ kind: 'tool_output_truncated', kept_bytes: expect.any(Number) as number, ptr: { index: h.index, bytes: h.bytes } });
      const out = session.expand(h.reduction_id, [0, 1024]);
      if (!out.ok) throw new Error(out.error.message);
      expect(out.value).toMatchObject({ index: h.index, role: 'tool', total_bytes: h.bytes, range: [0, 1024], source: 'minted' });
    });
  });

  it('plants the needle: the manifest counts exactly what a search of hidden content finds', () => {
    const found = session.search(SCALE_NEEDLE, { max_matches: 10_000, max_result_bytes: 10_000_000 });
    if (!found.ok) throw new Error(found.error.message);
    expect(found.value.total_matches).toBe(manifest.needle.hidden_matches);
    expect(found.value.truncated).toBe(false);
    // Some planted occurrences are visible (a kept prefix), so they are not counted.
    expect(manifest.needle.planted).toBeGreaterThan(manifest.needle.hidden_matches);
    // Several inside each huge output, one near the middle of the largest, and some in cleared turns.
    for (const h of manifest.huge) expect(found.value.matches.filter((m) => m.reduction_id === h.reduction_id).length, h.reduction_id).toBeGreaterThanOrEqual(3);
    const largest = manifest.huge[2];
    expect(found.value.matches.some((m) => m.reduction_id === largest?.reduction_id && Math.abs(m.offset / largest.bytes - 0.5) < 0.05)).toBe(true);
    expect(found.value.matches.some((m) => m.kind === 'turns_cleared')).toBe(true);
    expect(found.value.matches.some((m) => !manifest.huge.some((h) => h.reduction_id === m.reduction_id) && m.kind === 'tool_output_truncated')).toBe(true);
  });

  it('mints exactly what mintReductions mints, pass by pass', () => {
    const lines = readFileSync(sidecar, 'utf8').trimEnd().split('\n');
    const records = lines.map((l) => JSON.parse(l) as { t: string; i?: number; msg?: ChatMessage; r?: Reduction });
    const header = records[0] as unknown as SidecarHeader;
    const policy = header.policy;
    if (!policy) throw new Error('the header has a policy');
    const view: ChatMessage[] = [];
    const log: Reduction[] = [];
    let clear: number | null = null;
    let nextId = 1;
    for (let k = 2; k < records.length; ) {
      const rec = records[k] as { t: string; i?: number; msg?: ChatMessage };
      if (rec.t === 'message') {
        expect(rec.i).toBe(view.length);
        view.push(rec.msg as ChatMessage);
        k++;
        continue;
      }
      expect(rec.t).toBe('reduction');
      const batch: Reduction[] = [];
      for (; k < records.length && records[k]?.t === 'reduction'; k++) batch.push(records[k]?.r as Reduction);
      clear = batch.find((r) => r.kind === 'turns_cleared')?.end ?? clear;
      const minted = mintReductions(view, { ...policy, clear_turns_before: clear }, log, { nextId, sha256: nodeSha256 });
      expect(minted).toEqual(batch);
      log.push(...batch);
      nextId += batch.length;
    }
    expect(log).toHaveLength(manifest.reductions);
    // Nothing left to mint at the end, and the header holds the last clear.
    expect(mintReductions(view, { ...policy, clear_turns_before: clear }, log, { nextId, sha256: nodeSha256 })).toEqual([]);
    expect(policy.clear_turns_before).toBe(clear);
    for (const r of log) expect(r.stub).toBe(stubText(r.id, r.kind, r.kind === 'tool_output_truncated' ? (r.ptr.bytes ?? 0) - (r.kept_bytes ?? 0) : (r.ptr.bytes ?? 0)));

    // Realistic sizes: short prompts, longer replies, tool outputs from ~200 B to a large fraction of the file.
    const sizes = (role: string) => view.filter((m) => m.role === role).map((m) => utf8Length(m.content));
    const users = sizes('user');
    const assistants = sizes('assistant');
    const tools = sizes('tool');
    expect(Math.min(...users)).toBeGreaterThanOrEqual(40);
    expect(Math.max(...users)).toBeLessThan(2600);
    expect(Math.max(...assistants)).toBeLessThan(4600);
    expect(Math.min(...tools)).toBeLessThan(1000);
    expect(tools.filter((n) => n > 16 * 1024).length).toBeGreaterThan(10);
    expect(view.some((m) => m.role === 'assistant' && (m.tool_calls?.length ?? 0) > 1)).toBe(true);
  });

  it('is deterministic: the same seed gives a byte-identical file, another seed another file', () => {
    const again = writeScaleSession({ out: tmp.path('again'), size: SIZE, seed: 7 });
    expect(sha256File(again.sidecarPath)).toBe(sha256File(sidecar));
    expect(again.manifest).toEqual(manifest);
    const other = writeScaleSession({ out: tmp.path('other'), size: 2 * MIB, seed: 8, stem: 'small' });
    expect(other.sidecarPath).toBe(tmp.path('other/small.sidecar.jsonl'));
    expect(Math.abs(other.manifest.bytes - 2 * MIB) / (2 * MIB)).toBeLessThan(0.05);
    expect(other.manifest.session_id).not.toBe(manifest.session_id);
  });
});

describe('parseByteSize', () => {
  it.each([
    ['1GiB', GIB],
    ['512MiB', 512 * MIB],
    ['64MiB', 64 * MIB],
    ['300MB', 300_000_000],
    ['1.5GiB', 1.5 * GIB],
    ['64KiB', 65_536],
    ['2kB', 2000],
    ['1048576', 1_048_576],
    ['1048576B', 1_048_576],
  ])('%s is %d bytes', (text, bytes) => expect(parseByteSize(text)).toBe(bytes));

  it.each(['', '1G', '1gib', '1 GiB', ' 1GiB', '-1MiB', '1e9', '0x100000', '1.5', '1.5B', 'MiB', '1.GiB', '1MiBs', '12345678901234567'])('rejects %j', (text) => {
    expect(parseByteSize(text)).toBeUndefined();
  });
});
