/**
 * The `generate` command (see generate.ts for usage). Kept apart from the entry file so tests can
 * run it in-process with their own output streams.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import type { SidecarRecord } from '../../shared/index';
import { REDUCTION_KINDS } from '../../shared/index';
import type { BrokenSample } from './brokenSamples';
import { brokenSamples } from './brokenSamples';
import type { SampleFile } from './sampleSet';
import { brokenFiles, committedSampleSet, sessionSample } from './sampleSet';
import type { ScaleManifest } from './scaleGenerator';
import { DEFAULT_SCALE_STEM, MAX_SCALE_BYTES, MIN_SCALE_BYTES, formatByteSize, parseByteSize, writeScaleSession } from './scaleGenerator';
import type { GeneratedSession } from './sessionGenerator';
import { DEFAULT_MESSAGES, DEFAULT_SEED, MAX_MESSAGES } from './sessionGenerator';

export const USAGE = `usage:
  npm run generate -- --out DIR [--messages N] [--seed S] [--legacy] [--name STEM]
      one session: DIR/STEM.sidecar.jsonl and DIR/STEM.session.json
      (STEM defaults to "session", or "legacy" with --legacy; N defaults to ${DEFAULT_MESSAGES}, S to ${DEFAULT_SEED})
  npm run generate -- --out DIR --broken [--seed S]
      one broken sample per integrity finding code, and DIR/manifest.json
  npm run generate -- --out DIR --all [--seed S]
      the committed set: session.*, legacy.* and broken/ (npm run generate -- --out samples --all)
  npm run generate -- --out DIR --size SIZE [--seed S] [--name STEM]
      one large session for benchmarks, streamed to disk: DIR/STEM.sidecar.jsonl of about SIZE bytes
      (within 5%) and DIR/STEM.manifest.json (what was planted in it); STEM defaults to "${DEFAULT_SCALE_STEM}".
      SIZE is bytes or a number with a unit (1GiB, 512MiB, 300MB, 64KiB...), from 1MiB to 8GiB
`;

export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

class UsageError extends Error {}

function integerArg(name: string, value: string | undefined, min: number, max: number, fallback: number): number {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value)) throw new UsageError(`--${name} must be a whole number, got ${JSON.stringify(value)}`);
  const n = Number(value);
  if (n < min || n > max) throw new UsageError(`--${name} must be between ${min} and ${max}, got ${value}`);
  return n;
}

function sizeArg(value: string): number {
  const size = parseByteSize(value);
  if (size === undefined) {
    throw new UsageError(`--size must be a whole number of bytes or a number with a unit (B, KB, KiB, MB, MiB, GB, GiB), like 1GiB, 512MiB or 300MB; got ${JSON.stringify(value)}`);
  }
  if (size < MIN_SCALE_BYTES || size > MAX_SCALE_BYTES) {
    throw new UsageError(`--size must be between 1MiB and 8GiB (${MIN_SCALE_BYTES} and ${MAX_SCALE_BYTES} bytes), got ${value} (${size} bytes)`);
  }
  return size;
}

interface Plan {
  out: string;
  mode: 'session' | 'broken' | 'all' | 'scale';
  seed: number;
  /** Target bytes of a large session (mode 'scale'). */
  size: number;
  messages: number;
  legacy: boolean;
  stem: string;
}

export function parseGenerateArgs(argv: readonly string[]): Plan | 'help' {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        out: { type: 'string' },
        messages: { type: 'string' },
        seed: { type: 'string' },
        legacy: { type: 'boolean' },
        name: { type: 'string' },
        broken: { type: 'boolean' },
        all: { type: 'boolean' },
        size: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  if (values.help) return 'help';
  if (values.out === undefined || values.out === '') throw new UsageError('--out DIR is required');
  if (values.size !== undefined) {
    for (const flag of ['messages', 'broken', 'all', 'legacy'] as const) {
      if (values[flag] !== undefined) throw new UsageError(`--size cannot be combined with --${flag}`);
    }
  }
  if (values.broken && values.all) throw new UsageError('--broken and --all cannot be combined');
  const mode = values.size !== undefined ? 'scale' : values.broken ? 'broken' : values.all ? 'all' : 'session';
  if (mode === 'broken' || mode === 'all') {
    for (const flag of ['messages', 'legacy', 'name'] as const) {
      if (values[flag] !== undefined) throw new UsageError(`--${flag} applies to a single session, not to --${mode}`);
    }
  }
  const legacy = values.legacy ?? false;
  const stem = values.name ?? (mode === 'scale' ? DEFAULT_SCALE_STEM : legacy ? 'legacy' : 'session');
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(stem)) throw new UsageError(`--name must be a plain file stem (letters, digits, . _ -), got ${JSON.stringify(stem)}`);
  return {
    out: values.out,
    mode,
    seed: integerArg('seed', values.seed, 0, 0xffffffff, DEFAULT_SEED),
    messages: integerArg('messages', values.messages, 1, MAX_MESSAGES, DEFAULT_MESSAGES),
    size: values.size === undefined ? 0 : sizeArg(values.size),
    legacy,
    stem,
  };
}

function countBy<T>(items: readonly T[], key: (item: T) => string, order: readonly string[] = []): string {
  const counts = new Map<string, number>(order.map((k) => [k, 0]));
  for (const item of items) counts.set(key(item), (counts.get(key(item)) ?? 0) + 1);
  return [...counts].map(([k, n]) => `${k} ${n}`).join(', ');
}

function describeSession(session: GeneratedSession): string[] {
  const { records, snapshot, landmarks } = session;
  const lines = [
    `  records: ${records.length} (${countBy(records, (r: SidecarRecord) => r.t)})`,
    `  view: ${snapshot.messages.length} messages; live reductions: ${countBy(snapshot.reductions ?? [], (r) => r.kind, REDUCTION_KINDS)}`,
  ];
  if (landmarks.capped.length > 0) lines.push(`  capped in history (legacy): ${landmarks.capped.length} tool outputs`);
  return lines;
}

function writeAll(out: string, files: readonly SampleFile[], io: CliIo): void {
  for (const f of files) {
    const path = join(out, ...f.path.split('/'));
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, f.content);
    io.stdout(`wrote ${path} (${Buffer.byteLength(f.content)} bytes)\n`);
  }
}

function describeScale(m: ScaleManifest): string[] {
  return [
    `  ${formatByteSize(m.target_bytes)} asked, ${m.bytes} bytes written; view: ${m.messages} messages; live reductions: ${Object.entries(m.by_kind).map(([k, n]) => `${k} ${n}`).join(', ')}`,
    `  huge tool outputs (truncated): ${m.huge.map((h) => `${h.reduction_id} at view index ${h.index}, ${h.bytes} bytes`).join('; ')}`,
    `  needle ${JSON.stringify(m.needle.text)}: ${m.needle.hidden_matches} occurrences in hidden content (${m.needle.planted} planted)`,
  ];
}

function describeBroken(samples: readonly BrokenSample[]): string[] {
  return [`  ${samples.length} broken samples: ${samples.map((s) => s.code).join(', ')}`];
}

/** Runs the command; returns the exit status (0, or 2 for a usage error). */
export function runGenerate(argv: readonly string[], io: CliIo): number {
  let plan: Plan | 'help';
  try {
    plan = parseGenerateArgs(argv);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    io.stderr(`generate: ${e.message}\n${USAGE}`);
    return 2;
  }
  if (plan === 'help') {
    io.stdout(USAGE);
    return 0;
  }
  if (plan.mode === 'scale') {
    const { sidecarPath, manifestPath, manifest } = writeScaleSession({ out: plan.out, stem: plan.stem, size: plan.size, seed: plan.seed });
    io.stdout(`wrote ${sidecarPath} (${manifest.bytes} bytes)\nwrote ${manifestPath}\n`);
    for (const line of describeScale(manifest)) io.stdout(line + '\n');
    return 0;
  }
  let files: SampleFile[];
  let summary: string[];
  if (plan.mode === 'broken') {
    const samples = brokenSamples(plan.seed);
    files = brokenFiles(samples);
    summary = describeBroken(samples);
  } else if (plan.mode === 'all') {
    const set = committedSampleSet(plan.seed);
    files = set.files;
    summary = ['session:', ...describeSession(set.session.session), 'legacy:', ...describeSession(set.legacy.session), 'broken/:', ...describeBroken(set.broken)];
  } else {
    const sample = sessionSample(plan.stem, { seed: plan.seed, messages: plan.messages, legacy: plan.legacy });
    files = sample.files;
    summary = describeSession(sample.session);
  }
  writeAll(plan.out, files, io);
  for (const line of summary) io.stdout(line + '\n');
  return 0;
}
