/**
 * `bundle --out DIR [--id ID]... [--finding CODE]... [--max-calls N] [--max-time S] [--progress] FILE...`
 * (SPEC §12; docs/bundles.md): builds the repro bundle (electron/bundle/bundle.ts) and writes it
 * into DIR, a new or empty folder. Prints `{"out","files","minimizer"}`; every failure is a §8
 * error (exit 2).
 *
 * While it searches, its progress goes to stderr: a line redrawn in place when stderr is a
 * terminal, one JSON line per report with `--progress`, nothing otherwise. SIGINT (Ctrl-C) or
 * SIGTERM stops the search and writes the smallest bundle found so far (it reproduces: the oracle
 * accepted it); a second signal ends the process at once.
 */
import { resolve } from 'node:path';
import type { BundleProgress } from '../bundle/bundle';
import { BundleError, buildBundle, writeBundle } from '../bundle/bundle';
import { CliError, usageError } from './errors';
import type { CliIo } from './output';

/** A terminal's progress line is redrawn at most this often; JSON lines are written at most this often too (and always the last). */
const PROGRESS_EVERY_MS = 100;

function positive(flags: Map<string, string | true>, name: string, what: string): number | undefined {
  const v = flags.get(name);
  if (v === undefined) return undefined;
  if (typeof v !== 'string' || !/^\d+(\.\d+)?$/.test(v) || !(Number(v) > 0) || !Number.isFinite(Number(v))) throw usageError(`--${name} must be ${what}, not ${JSON.stringify(v)}`);
  return Number(v);
}

const kib = (bytes: number): string => `${(bytes / 1024).toFixed(1)} KiB`;

/** The progress line of a terminal: `bundle: 412/2000 oracle calls · 1017.0 KiB → 40.2 KiB · 12.3 s`. */
export function progressLine(p: BundleProgress): string {
  return `bundle: ${p.oracle_calls}/${p.max_oracle_calls} oracle calls · ${kib(p.bytes_before)} → ${kib(p.bytes_now)} (${p.units_now}/${p.units_before} records) · ${(p.elapsed_ms / 1000).toFixed(1)} s`;
}

export async function runBundle(flags: Map<string, string | true>, lists: Map<string, string[]>, files: string[], io: CliIo): Promise<number> {
  const out = flags.get('out');
  if (typeof out !== 'string' || out === '') throw usageError('bundle needs --out DIR (a new or empty folder)');
  if (files.length === 0) throw usageError('bundle needs FILE...: a sidecar and/or a session snapshot');
  if (files.length > 2) throw usageError(`bundle takes one or two files (a sidecar and/or a session snapshot), not ${files.length}`);
  const maxCalls = positive(flags, 'max-calls', 'a whole number of oracle calls (1, 2, …)');
  if (maxCalls !== undefined && !Number.isSafeInteger(maxCalls)) throw usageError(`--max-calls must be a whole number of oracle calls (1, 2, …), not ${JSON.stringify(flags.get('max-calls'))}`);
  const maxTime = positive(flags, 'max-time', 'a number of seconds');
  const session = flags.get('session');
  const format = flags.get('format');
  const json = flags.get('progress') === true;
  const terminal = !json && io.stderrIsTerminal?.() === true;
  let lastShown = -Infinity;
  const onProgress = (p: BundleProgress): void => {
    if (!json && !terminal) return;
    if (p.stage !== 'done' && p.stage !== 'start' && p.elapsed_ms - lastShown < PROGRESS_EVERY_MS) return;
    lastShown = p.elapsed_ms;
    if (json) io.stderr(`${JSON.stringify({ progress: p })}\n`);
    else io.stderr(`\r\x1b[2K${progressLine(p)}${p.stage === 'done' ? '\n' : ''}`);
  };
  // The first signal stops the search (the best bundle so far is written); a second ends the process.
  let signalled = false;
  const stop = (signal: NodeJS.Signals): void => {
    signalled = true;
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
    process.once(signal, () => process.kill(process.pid, signal));
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  try {
    const bundle = await buildBundle({
      paths: files,
      ids: lists.get('id') ?? [],
      codes: lists.get('finding') ?? [],
      ...(typeof session === 'string' ? { session } : {}),
      ...(typeof format === 'string' ? { format } : {}),
      ...(maxCalls !== undefined ? { maxCalls } : {}),
      ...(maxTime !== undefined ? { maxTimeMs: maxTime * 1000 } : {}),
      cancelled: () => signalled,
      onProgress,
    });
    writeBundle(out, bundle);
    const m = bundle.manifest.minimizer;
    if (m.stopped_early && (json || terminal || m.stop === 'cancelled')) io.stderr(`session-inspector: ${m.stopped_early.message}\n`);
    io.stdout(`${JSON.stringify({ out: resolve(out), files: bundle.files.map((f) => f.name), minimizer: { ...m, cut: { ...m.cut, units: undefined, rewritten: m.cut.rewritten.length } } })}\n`);
    return 0;
  } catch (e) {
    if (e instanceof BundleError) throw new CliError(e.code, e.message);
    throw e;
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
  }
}
