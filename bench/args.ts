/**
 * The command line of `npm run bench`:
 *
 *   npm run bench -- [--size 1GiB] [--import-size 100MB] [--seed N] [--only indexing,import,memory,latency,search,renderer,calls,follow,cli,policy,hugeline]
 *                    [--runs N] [--fixture PATH] [--strict] [--eval-size 1100MB] [--eval-samples 500]
 */
import { parseArgs } from 'node:util';
import { parseByteSize } from '../tools/samples/scaleGenerator';

export const GROUPS = ['indexing', 'import', 'memory', 'latency', 'search', 'renderer', 'calls', 'follow', 'cli', 'policy', 'hugeline', 'library', 'tokens', 'agents', 'inspect', 'bundle'] as const;
export type Group = (typeof GROUPS)[number];

/** The generator's default seed (tools/samples/sessionGenerator.ts), passed explicitly so a reused fixture can be checked against it. */
export const BENCH_SEED = 1130;
export const DEFAULT_SIZE = '1GiB';
export const DEFAULT_RUNS = 3;
/** The import rows open a 100 MB transcript (decimal MB, as the target is written). */
export const DEFAULT_IMPORT_SIZE = '100MB';
/** The inspect group's `.eval`: 500 samples, about 1.1 GB of sample JSON together. */
export const DEFAULT_EVAL_SIZE = '1100MB';
export const DEFAULT_EVAL_SAMPLES = 500;

export interface BenchArgs {
  /** The size as written ("1GiB") and in bytes. */
  size: { label: string; bytes: number };
  /** True when `--size` was given (the agents group then generates its session at that size, else at 512 MiB). */
  sizeGiven: boolean;
  /** Size of each generated file of the import group (a Claude Code transcript, a Codex rollout). */
  importSize: { label: string; bytes: number };
  seed: number;
  /** The inspect group's generated `.eval`: its sample JSON together, and its sample count. */
  evalSize: { label: string; bytes: number };
  evalSamples: number;
  groups: Group[];
  runs: number;
  /** An existing sidecar to measure instead of the generated fixture (its manifest beside it, if any). */
  fixture?: string;
  /** The search group's sizes, each its own generated fixture and rows (`--search-sizes`); without it, the search group measures the fixture. */
  searchSizes?: { label: string; bytes: number }[];
  strict: boolean;
}

export const USAGE = `usage: npm run bench -- [options]
  --size SIZE      fixture size: 1GiB (default), 256MiB, 500MB, or bytes; the agents group's session (default 512MiB)
  --import-size S  size of the import group's generated transcript and rollout (default ${DEFAULT_IMPORT_SIZE})
  --eval-size S    sample JSON of the inspect group's generated .eval, all samples together (default ${DEFAULT_EVAL_SIZE})
  --eval-samples N samples of that .eval (default ${DEFAULT_EVAL_SAMPLES})
  --seed N         generator seed of the fixture (default ${BENCH_SEED})
  --only LIST      comma-separated groups to run: ${GROUPS.join(',')} (default: all)
  --runs N         runs per measurement; medians are reported (default ${DEFAULT_RUNS})
  --fixture PATH   measure this sidecar instead of generating one (PATH's <stem>.manifest.json is used when present)
  --search-sizes L the search group at each size of the comma-separated list (e.g. 64MiB,256MiB,1GiB), one
                   generated fixture and one set of rows per size, in this one run
  --strict         exit 1 when a target fails (default: exit 0 and print FAIL)
`;

export class UsageError extends Error {}

export function parseBenchArgs(argv: readonly string[]): BenchArgs | 'help' {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        size: { type: 'string' },
        'import-size': { type: 'string' },
        'eval-size': { type: 'string' },
        'eval-samples': { type: 'string' },
        seed: { type: 'string' },
        only: { type: 'string' },
        runs: { type: 'string' },
        fixture: { type: 'string' },
        'search-sizes': { type: 'string' },
        strict: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  if (values.help) return 'help';
  const label = values.size ?? DEFAULT_SIZE;
  // The generator's own parser: the size given here is the size it is asked to write.
  const bytes = parseByteSize(label);
  if (bytes === undefined) throw new UsageError(`--size must be a size such as 1GiB, 256MiB or 500MB, got ${JSON.stringify(label)}`);
  const importLabel = values['import-size'] ?? DEFAULT_IMPORT_SIZE;
  const importBytes = parseByteSize(importLabel);
  if (importBytes === undefined) throw new UsageError(`--import-size must be a size such as 100MB or 16MiB, got ${JSON.stringify(importLabel)}`);
  const evalLabel = values['eval-size'] ?? DEFAULT_EVAL_SIZE;
  const evalBytes = parseByteSize(evalLabel);
  if (evalBytes === undefined) throw new UsageError(`--eval-size must be a size such as 1100MB or 64MiB, got ${JSON.stringify(evalLabel)}`);
  const evalSamples = values['eval-samples'] === undefined ? DEFAULT_EVAL_SAMPLES : Number(values['eval-samples']);
  if (!Number.isInteger(evalSamples) || evalSamples < 1 || evalSamples > 60000) throw new UsageError(`--eval-samples must be a whole number from 1 to 60000, got ${JSON.stringify(values['eval-samples'])}`);
  const groups = values.only === undefined ? [...GROUPS] : values.only.split(',').map((g) => g.trim()).filter((g) => g.length > 0);
  for (const g of groups) {
    if (!(GROUPS as readonly string[]).includes(g)) throw new UsageError(`--only: unknown group ${JSON.stringify(g)}; the groups are ${GROUPS.join(', ')}`);
  }
  const runs = values.runs === undefined ? DEFAULT_RUNS : Number(values.runs);
  if (!Number.isInteger(runs) || runs < 1 || runs > 100) throw new UsageError(`--runs must be a whole number from 1 to 100, got ${JSON.stringify(values.runs)}`);
  const seed = values.seed === undefined ? BENCH_SEED : Number(values.seed);
  if (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff) throw new UsageError(`--seed must be an unsigned 32-bit integer, got ${JSON.stringify(values.seed)}`);
  let searchSizes: { label: string; bytes: number }[] | undefined;
  if (values['search-sizes'] !== undefined) {
    if (values.fixture !== undefined) throw new UsageError('--search-sizes generates a fixture per size: it cannot be given with --fixture');
    searchSizes = [];
    for (const part of values['search-sizes'].split(',').map((p) => p.trim()).filter((p) => p.length > 0)) {
      const b = parseByteSize(part);
      if (b === undefined) throw new UsageError(`--search-sizes must list sizes such as 64MiB,256MiB,1GiB, got ${JSON.stringify(part)}`);
      searchSizes.push({ label: part, bytes: b });
    }
    if (searchSizes.length === 0) throw new UsageError('--search-sizes needs at least one size');
  }
  return {
    size: { label, bytes },
    sizeGiven: values.size !== undefined,
    importSize: { label: importLabel, bytes: importBytes },
    seed,
    evalSize: { label: evalLabel, bytes: evalBytes },
    evalSamples,
    groups: groups as Group[],
    runs,
    ...(values.fixture !== undefined ? { fixture: values.fixture } : {}),
    ...(searchSizes ? { searchSizes } : {}),
    strict: values.strict ?? false,
  };
}
