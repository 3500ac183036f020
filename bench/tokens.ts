/**
 * The tokens group (docs/token-estimates.md): estimating 100 MB of hidden text — a tool output of
 * generated agent text (prose, code, JSON lines, paths, hashes) in one file — against reading and
 * decoding the same bytes as UTF-8 in the same run (bench/runners/tokensHost.ts), each in a fresh
 * process, alternating, page cache warmed; medians. Target: ≥ 5 MB/s on one core (the estimate is
 * sampled above 8 MiB, so its time is bounded whatever the size). Also reported: the tokenizer's
 * own speed counting every byte (of the first 16 MB), and `view --at N` with the estimates against
 * without on the largest real Claude Code file and a real SWE-agent file.
 */
import { closeSync, existsSync, mkdirSync, openSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { agentText } from '../electron/tokens/testing/agentText';
import type { BenchRow } from './report';
import { median } from './report';
import type { TokensRunResult } from './runners/tokensHost';
import { MB, repoRoot, runChild, warmPageCache } from './util';

export const HIDDEN_BYTES = 100_000_000;
const EXACT_BYTES = 16_000_000;
const TARGET_MB_S = 5;

export interface TokensContext {
  runs: number;
  outDir: string;
  log: (line: string) => void;
}

function writeHidden(path: string): number {
  if (existsSync(path) && statSync(path).size >= HIDDEN_BYTES) return statSync(path).size;
  const fd = openSync(path, 'w');
  try {
    for (let written = 0, seed = 1; written < HIDDEN_BYTES; seed++) {
      const piece = Buffer.from(agentText(Math.min(4_000_000, HIDDEN_BYTES - written), seed));
      writeSync(fd, piece);
      written += piece.length;
    }
  } finally {
    closeSync(fd);
  }
  return statSync(path).size;
}

const mbPerS = (r: TokensRunResult) => r.bytes / MB / (r.ms / 1000);

export async function runTokensBench(ctx: TokensContext): Promise<BenchRow[]> {
  const dir = join(ctx.outDir, 'tokens');
  mkdirSync(dir, { recursive: true });
  const path = join(dir, 'hidden-100MB.txt');
  const size = writeHidden(path);
  warmPageCache(path);
  const decode: TokensRunResult[] = [];
  const estimate: TokensRunResult[] = [];
  const exact: TokensRunResult[] = [];
  for (let run = 1; run <= ctx.runs; run++) {
    decode.push(await runChild<TokensRunResult>('tokensHost', { mode: 'decode', path }));
    estimate.push(await runChild<TokensRunResult>('tokensHost', { mode: 'estimate', path }));
    exact.push(await runChild<TokensRunResult>('tokensHost', { mode: 'exact', path, exactBytes: EXACT_BYTES }));
    ctx.log(`tokens: run ${run}/${ctx.runs}: decode ${mbPerS(decode.at(-1) as TokensRunResult).toFixed(0)} MB/s, estimate ${mbPerS(estimate.at(-1) as TokensRunResult).toFixed(1)} MB/s, exact ${mbPerS(exact.at(-1) as TokensRunResult).toFixed(1)} MB/s`);
  }
  const est = median(estimate.map(mbPerS));
  const dec = median(decode.map(mbPerS));
  const ex = median(exact.map(mbPerS));
  const estPeak = median(estimate.map((r) => r.peakRss));
  const decPeak = median(decode.map((r) => r.peakRss));
  const exPeak = median(exact.map((r) => r.peakRss));
  const rows: BenchRow[] = [
    {
      group: 'tokens',
      metric: `estimate ${(size / MB).toFixed(0)} MB of hidden text (sampled) (median of ${ctx.runs})`,
      value: est,
      unit: 'MB/s',
      baseline: { name: 'read+UTF-8 decode', value: dec },
      ratio: est / dec,
      target: `≥ ${TARGET_MB_S} MB/s on one core`,
      pass: est >= TARGET_MB_S,
      note: `${estimate[0]?.tokens ?? 0} tokens estimated (sampled: ${String(estimate[0]?.sampled)}); read+decode of the same file ${dec.toFixed(0)} MB/s; peak RSS ${(estPeak / MB).toFixed(0)} MB against the baseline's ${(decPeak / MB).toFixed(0)} MB`,
    },
    {
      group: 'tokens',
      metric: `peak RSS estimating ${(size / MB).toFixed(0)} MB (median of ${ctx.runs})`,
      value: estPeak / MB,
      unit: 'MB',
      baseline: { name: 'read+UTF-8 decode', value: decPeak / MB },
      ratio: decPeak / estPeak,
      note: 'the whole process: Node, the o200k ranks and one 1 MiB block at a time',
    },
    {
      group: 'tokens',
      metric: `count every byte of ${(EXACT_BYTES / MB).toFixed(0)} MB, no sampling (median of ${ctx.runs})`,
      value: ex,
      unit: 'MB/s',
      baseline: { name: 'read+UTF-8 decode', value: dec },
      ratio: ex / dec,
      note: `the tokenizer's own speed on this text (what sampling saves above 8 MiB); peak RSS ${(exPeak / MB).toFixed(0)} MB`,
    },
  ];
  const files = [
    { name: 'Claude Code, 2.4 MB, 294 calls', path: join(repoRoot, 'e2e/fixtures/real/claude-code/cc-2.1.17-microcompactions-then-compact.jsonl') },
    { name: 'SWE-agent, 0.4 MB', path: join(repoRoot, 'e2e/fixtures/real/swe-agent/marshmallow-1867-function-calling-replace-from-source.traj') },
  ];
  for (const file of files) {
    const withEst: TokensRunResult[] = [];
    const plain: TokensRunResult[] = [];
    for (let run = 1; run <= ctx.runs; run++) {
      plain.push(await runChild<TokensRunResult>('tokensHost', { mode: 'viewPlain', path: file.path }));
      withEst.push(await runChild<TokensRunResult>('tokensHost', { mode: 'view', path: file.path }));
    }
    const w = median(withEst.map((r) => r.ms));
    const p = median(plain.map((r) => r.ms));
    rows.push({
      group: 'tokens',
      metric: `view --at N (the last call) with tokens_est and context_breakdown, ${file.name} (median of ${ctx.runs})`,
      value: w,
      unit: 'ms',
      baseline: { name: 'view without estimates', value: p },
      ratio: p / w,
      note: `the view's output built after loadSession, cold estimate cache (tokenizer loading included); without estimates ${p.toFixed(0)} ms`,
    });
  }
  return rows;
}
