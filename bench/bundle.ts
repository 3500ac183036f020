/**
 * The bundle group (docs/bundles.md): the repro-bundle minimizer on a real ~1 MB Claude Code
 * session — the first ~1 MB of records of `e2e/fixtures/real/claude-code/cc-2.1.14-two-compactions.jsonl`
 * (whole lines, written under the OS temp folder and removed) — asked to keep the expansion of a
 * persisted tool output. Measured: time, oracle calls, size before and after, for the format units
 * (a tool call with its result, a response, a compaction's records; Claude Code parents re-linked)
 * against, in the same run, the baseline of one unit per line (the minimizer before format units),
 * both under the same 2,000-call cap. Each run in this process, alternating; medians.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SessionFileFormat } from '../shared/index';
import type { Bundle } from '../electron/bundle/bundle';
import { buildBundle } from '../electron/bundle/bundle';
import type { FileUnits } from '../electron/bundle/units';
import { splitLines } from '../electron/bundle/units';
import { loadSession } from '../electron/loader/session';
import type { BenchRow } from './report';
import { median } from './report';
import { repoRoot } from './util';

const SOURCE = 'e2e/fixtures/real/claude-code/cc-2.1.14-two-compactions.jsonl';
const TARGET_BYTES = 1_050_000;

export interface BundleBenchContext {
  runs: number;
  log: (line: string) => void;
}

/** The baseline: every line a unit of its own, nothing grouped or re-linked. */
export function lineUnits(name: string, format: SessionFileFormat, bytes: Uint8Array): FileUnits {
  const lines = splitLines(bytes);
  let at = 0;
  const units = lines.map((l, k) => {
    const range: [number, number] = [at, at + l.length];
    at += l.length;
    return { kind: 'line', lines: [k + 1], ranges: [range], ids: [], bytes: l.length };
  });
  const render = (kept: readonly number[]): Uint8Array => Buffer.concat(kept.map((k) => lines[k] as Uint8Array));
  return { name, format, kind: 'line', count: lines.length, shapes: lines.map(() => ({})), units, render, rewrites: () => [] };
}

/** A row of a count where smaller is better, against the line baseline's. */
function fewerThanLines(metric: string, value: number, baseline: number, unit: string, target: string, pass: boolean): BenchRow {
  return { group: 'bundle', metric, value, unit, baseline: { name: 'one unit per line', value: baseline }, ratio: baseline / Math.max(value, 1), target, pass };
}

interface Run {
  ms: number;
  bundle: Bundle;
}

async function once(path: string, id: string, baseline: boolean): Promise<Run> {
  const started = performance.now();
  const bundle = await buildBundle({ paths: [path], ids: [id], ...(baseline ? { unitsOf: lineUnits } : {}) });
  return { ms: performance.now() - started, bundle };
}

export async function runBundleBench(ctx: BundleBenchContext): Promise<BenchRow[]> {
  const dir = mkdtempSync(join(tmpdir(), 'session-inspector-bench-bundle-'));
  try {
    const lines = splitLines(readFileSync(join(repoRoot, SOURCE)));
    const kept: Uint8Array[] = [];
    let bytes = 0;
    for (const l of lines) {
      if (bytes + l.length > TARGET_BYTES) break;
      kept.push(l);
      bytes += l.length;
    }
    const path = join(dir, 'session-1mb.jsonl');
    writeFileSync(path, Buffer.concat(kept));
    const loaded = await loadSession([path]);
    if (!loaded.ok) throw new Error(loaded.error.message);
    const id = loaded.session.log.find((r) => r.kind === 'tool_output_truncated')?.id;
    const messages = loaded.session.minted.length;
    loaded.session.close();
    if (!id) throw new Error(`${SOURCE}: its first ${bytes} bytes hold no persisted tool output`);
    const units: Run[] = [];
    const line: Run[] = [];
    for (let run = 1; run <= ctx.runs; run++) {
      units.push(await once(path, id, false));
      line.push(await once(path, id, true));
      const [u, l] = [(units.at(-1) as Run).bundle.manifest.minimizer, (line.at(-1) as Run).bundle.manifest.minimizer];
      ctx.log(`bundle: run ${run}/${ctx.runs}: format units ${((units.at(-1) as Run).ms / 1000).toFixed(1)} s, ${u.oracle_calls} calls, ${u.bytes_after} bytes (${u.stop}); lines ${((line.at(-1) as Run).ms / 1000).toFixed(1)} s, ${l.oracle_calls} calls, ${l.bytes_after} bytes (${l.stop})`);
    }
    const u = (units[0] as Run).bundle.manifest.minimizer;
    const l = (line[0] as Run).bundle.manifest.minimizer;
    const uMs = median(units.map((r) => r.ms));
    const lMs = median(line.map((r) => r.ms));
    const what = `a ${(bytes / 1024).toFixed(0)} KiB real Claude Code session (${messages} messages, ${kept.length} records), --id ${id}`;
    return [
      {
        group: 'bundle',
        metric: `minimize ${(bytes / 1024).toFixed(0)} KiB real session (median of ${ctx.runs})`,
        value: uMs,
        unit: 'ms',
        baseline: { name: 'one unit per line', value: lMs },
        ratio: lMs / uMs,
        target: 'faster than one unit per line',
        pass: uMs < lMs,
        note: `${what}: format units ${u.oracle_calls} oracle calls (stop ${u.stop}), ${u.bytes_before} → ${u.bytes_after} bytes, ${u.units[0]?.before ?? 0} → ${u.units[0]?.after ?? 0} units; one unit per line ${l.oracle_calls} oracle calls (stop ${l.stop}), ${l.bytes_before} → ${l.bytes_after} bytes`,
      },
      fewerThanLines('oracle calls to minimize it', u.oracle_calls, l.oracle_calls, 'calls', 'fewer than one unit per line', u.oracle_calls < l.oracle_calls),
      fewerThanLines('bundle size after minimizing', u.bytes_after, l.bytes_after, 'bytes', `≤ one unit per line (source ${u.bytes_before} bytes)`, u.bytes_after <= l.bytes_after),
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
