/**
 * Import speed: opening a generated 100 MB Claude Code transcript (and a Codex
 * rollout) against the least any JSONL reader does with the same file — read it, split its lines,
 * `JSON.parse` each (bench/runners/indexBaseline.ts) — and a generated SWE-agent `.traj` (one JSON
 * document) against reading it whole and `JSON.parse`-ing it (bench/runners/wholeBaseline.ts), and an Inspect AI `.eval`
 * (~100 MB of sample JSON, deflated) against inflating and parsing the same entries
 * (bench/runners/inflateBaseline.ts); each
 * in the same kind of fresh `node` process, alternating, after the file was read once to warm the
 * page cache. Ours is `loadSession([file])` until the session is ready to serve rows
 * (bench/runners/indexOurs.ts). Target: ours ≥ 0.5× the baseline's MB/s (medians). The note gives
 * both times, the session's counts and both processes' peak RSS (the imported messages are held in
 * memory).
 */
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { GeneratedTranscript } from '../electron/loader/claudeCode/testing/generate';
import { generateClaudeTranscript } from '../electron/loader/claudeCode/testing/generate';
import type { GeneratedEval } from '../electron/loader/inspect/testing/generate';
import { generateInspectEval } from '../electron/loader/inspect/testing/generate';
import type { GeneratedTraj } from '../electron/loader/sweAgent/testing/generate';
import { generateTraj } from '../electron/loader/sweAgent/testing/generate';
import type { GeneratedRollout } from './codexFixture';
import { generateCodexRollout } from './codexFixture';
import type { BenchRow } from './report';
import { alternatingRow } from './indexing';
import { MB, formatBytes, warmPageCache } from './util';

export const IMPORT_TARGET = 0.5;

export interface ImportContext {
  /** Target size of each generated file, in bytes. */
  bytes: number;
  seed: number;
  runs: number;
  outDir: string;
  log: (line: string) => void;
}

interface Made {
  path: string;
  bytes: number;
  /** What the generator wrote, for the note. */
  summary: string;
  origin: string;
}

/** Generates `dir`'s file unless its manifest names the same generator, seed and size and the file is intact. */
function ensure<T extends { path: string; bytes: number }>(dir: string, key: Record<string, unknown>, generate: () => T, describe: (made: T) => string, log: (line: string) => void): Made {
  const manifestPath = join(dir, 'manifest.json');
  try {
    const m = JSON.parse(readFileSync(manifestPath, 'utf8')) as { key: unknown; made: T };
    if (JSON.stringify(m.key) === JSON.stringify(key) && existsSync(m.made.path) && statSync(m.made.path).size === m.made.bytes) {
      log(`import: reusing ${m.made.path} (${formatBytes(m.made.bytes)})`);
      return { path: m.made.path, bytes: m.made.bytes, summary: describe(m.made), origin: 'reused' };
    }
  } catch {
    // no manifest yet, or an unreadable one: generate
  }
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const started = performance.now();
  const made = generate();
  writeFileSync(manifestPath, `${JSON.stringify({ key, made }, null, 2)}\n`);
  const seconds = (performance.now() - started) / 1000;
  log(`import: generated ${made.path} (${formatBytes(made.bytes)}) in ${seconds.toFixed(1)} s`);
  return { path: made.path, bytes: made.bytes, summary: describe(made), origin: `generated in ${seconds.toFixed(0)} s` };
}

async function measure(name: string, made: Made, ctx: ImportContext, whole = false): Promise<BenchRow> {
  warmPageCache(made.path);
  const metric = `${name} import, ${(made.bytes / MB).toFixed(0)} MB: loadSession until ready`;
  // A one-document format's baseline parses the document whole (bench/runners/wholeBaseline.ts).
  const baseline = whole ? { baselineName: 'read+JSON.parse', baseline: { runner: 'wholeBaseline' as const, input: { path: made.path } } } : { baselineName: 'read+split+JSON.parse' };
  return alternatingRow({ group: 'import', metric, ...baseline, target: IMPORT_TARGET, about: `generated (${made.origin}): ${made.summary}` }, made.path, made.bytes, ctx.runs, ctx.log);
}

export async function runImportBench(ctx: ImportContext): Promise<BenchRow[]> {
  const label = `${Math.round(ctx.bytes / MB)}MB`;
  const cc = ensure<GeneratedTranscript>(
    join(ctx.outDir, `claude-code-${label}`),
    { generator: 'claudeCode/testing/generate.ts', version: 1, seed: ctx.seed, bytes: ctx.bytes },
    () => generateClaudeTranscript(join(ctx.outDir, `claude-code-${label}`), { bytes: ctx.bytes, seed: ctx.seed }),
    (g) => `${g.lines} lines, ${g.turns} turns, ${g.toolCalls} tool calls, ${g.compactions} compactions, ${g.microcompactions} microcompactions, ${g.persisted} persisted outputs (${g.persistedMissing} missing)`,
    ctx.log,
  );
  const codex = ensure<GeneratedRollout>(
    join(ctx.outDir, `codex-${label}`),
    { generator: 'bench/codexFixture.ts', version: 1, seed: ctx.seed, bytes: ctx.bytes },
    () => generateCodexRollout(join(ctx.outDir, `codex-${label}`), { bytes: ctx.bytes, seed: ctx.seed }),
    (g) => `${g.lines} lines, ${g.turns} turns, ${g.toolCalls} tool calls, ${g.compactions} compactions`,
    ctx.log,
  );
  let read: GeneratedEval['read'] = [];
  const inspect = ensure<GeneratedEval>(
    join(ctx.outDir, `inspect-${label}`),
    { generator: 'inspect/testing/generate.ts', version: 1, seed: ctx.seed, bytes: ctx.bytes },
    () => generateInspectEval(join(ctx.outDir, `inspect-${label}`), { bytes: ctx.bytes, seed: ctx.seed }),
    (g) => {
      read = g.read;
      return `a .eval of ${g.bytes} bytes holding ${g.sampleBytes} bytes of sample JSON: ${g.messages} messages, ${g.calls} model calls (input_refs), ${g.truncated} truncated tool outputs`;
    },
    ctx.log,
  );
  // The baseline inflates and parses exactly the entries the importer reads (header, summaries, the first sample).
  warmPageCache(inspect.path);
  const inspectRow = await alternatingRow(
    { group: 'import', metric: `Inspect AI .eval import, ${(inspect.bytes / MB).toFixed(0)} MB: loadSession until ready`, baselineName: 'inflate+JSON.parse of the same entries', target: IMPORT_TARGET, about: `generated (${inspect.origin}): ${inspect.summary}`, baseline: { runner: 'inflateBaseline', input: { path: inspect.path, read } } },
    inspect.path,
    inspect.bytes,
    ctx.runs,
    ctx.log,
  );
  const traj = ensure<GeneratedTraj>(
    join(ctx.outDir, `swe-agent-${label}`),
    { generator: 'sweAgent/testing/generate.ts', version: 2, seed: ctx.seed, bytes: ctx.bytes },
    () => generateTraj(join(ctx.outDir, `swe-agent-${label}`), { bytes: ctx.bytes, seed: ctx.seed }),
    (g) => `${g.turns} steps, each with its query; ${g.elided} observations elided (derived reductions)`,
    ctx.log,
  );
  return [await measure('Claude Code', cc, ctx), await measure('Codex', codex, ctx), await measure('SWE-agent .traj', traj, ctx, true), inspectRow];
}
