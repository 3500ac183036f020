/**
 * The benchmark's input: one large sidecar written by the sample generator's size mode
 * (`npm run generate -- --size 1GiB --out DIR`, which writes DIR/large.sidecar.jsonl and
 * DIR/large.manifest.json). Kept under bench/out/fixture-<size>/ (gitignored) and reused while its
 * manifest names the same seed and a file of the requested size; regenerated otherwise.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { BenchArgs } from './args';
import { formatBytes, repoRoot } from './util';

/** DIR/large.manifest.json, as the generator writes it. */
export interface FixtureManifest {
  seed: number;
  /** The size asked of the generator. */
  target_bytes?: number;
  /** Size of the sidecar in bytes. */
  bytes: number;
  messages: number;
  reductions: number;
  by_kind: Record<string, number>;
  /** The huge tool outputs, sorted by bytes. */
  huge: { reduction_id: string; index: number; bytes: number }[];
  /** A string planted in hidden content: `hidden_matches` times inside hidden spans. */
  needle: { text: string; hidden_matches: number };
}

export interface Fixture {
  sidecar: string;
  /** The generator's manifest; absent for a `--fixture` file without one. */
  manifest?: FixtureManifest;
  /** Size of the sidecar on disk. */
  bytes: number;
  /** How it was obtained: "reused", "generated in 93 s", "given". */
  origin: string;
}

/** Without `target_bytes` in its manifest, a file within this fraction of the requested size counts as that size. */
const SIZE_TOLERANCE = 0.1;

export function outDir(): string {
  return join(repoRoot, 'bench', 'out');
}

/** "1GiB" for 2^30, "256MiB", else plain bytes: the fixture folder's name for a size. */
export function sizeLabel(bytes: number): string {
  const GiB = 1024 ** 3;
  const MiB = 1024 ** 2;
  if (bytes % GiB === 0) return `${bytes / GiB}GiB`;
  if (bytes % MiB === 0) return `${bytes / MiB}MiB`;
  return `${bytes}B`;
}

function readManifest(path: string): FixtureManifest | undefined {
  try {
    const value = JSON.parse(readFileSync(path, 'utf8')) as Partial<FixtureManifest>;
    if (typeof value.seed !== 'number' || typeof value.bytes !== 'number' || !Array.isArray(value.huge) || typeof value.needle?.text !== 'string') return undefined;
    return value as FixtureManifest;
  } catch {
    return undefined;
  }
}

/** Why the fixture in `dir` cannot be reused, or undefined when it can. */
function staleReason(sidecar: string, manifest: FixtureManifest | undefined, args: BenchArgs): string | undefined {
  if (!existsSync(sidecar)) return 'no sidecar yet';
  if (!manifest) return 'no readable manifest';
  if (manifest.seed !== args.seed) return `its seed is ${manifest.seed}, not ${args.seed}`;
  const size = statSync(sidecar).size;
  if (size !== manifest.bytes) return `the sidecar is ${size} bytes but its manifest says ${manifest.bytes} (an interrupted write?)`;
  if (manifest.target_bytes !== undefined ? manifest.target_bytes !== args.size.bytes : Math.abs(size - args.size.bytes) > SIZE_TOLERANCE * args.size.bytes) {
    return `it was made for ${formatBytes(manifest.target_bytes ?? size)}, not ${args.size.label}`;
  }
  return undefined;
}

/** The manifest beside a sidecar given with --fixture: `<stem>.manifest.json` for `<stem>.sidecar.jsonl`. */
function siblingManifest(sidecar: string): string {
  const name = basename(sidecar).replace(/\.sidecar\.jsonl$/, '').replace(/\.jsonl$/, '');
  return join(dirname(sidecar), `${name}.manifest.json`);
}

/** Generates (or reuses) the fixture; throws with the generator's failure when it cannot be made. */
export function ensureFixture(args: BenchArgs, log: (line: string) => void): Fixture {
  if (args.fixture !== undefined) {
    const sidecar = resolve(args.fixture);
    if (!existsSync(sidecar)) throw new Error(`--fixture ${sidecar} does not exist`);
    const manifest = readManifest(siblingManifest(sidecar));
    return { sidecar, ...(manifest ? { manifest } : {}), bytes: statSync(sidecar).size, origin: 'given' };
  }
  const dir = join(outDir(), `fixture-${sizeLabel(args.size.bytes)}`);
  const sidecar = join(dir, 'large.sidecar.jsonl');
  const manifestPath = join(dir, 'large.manifest.json');
  const stale = staleReason(sidecar, readManifest(manifestPath), args);
  if (stale === undefined) {
    const manifest = readManifest(manifestPath) as FixtureManifest;
    log(`fixture: reusing ${sidecar} (${formatBytes(manifest.bytes)}, seed ${manifest.seed})`);
    return { sidecar, manifest, bytes: manifest.bytes, origin: 'reused' };
  }
  log(`fixture: generating ${sidecar} (${args.size.label}, seed ${args.seed}): ${stale}`);
  mkdirSync(dir, { recursive: true });
  const started = performance.now();
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const run = spawnSync(npm, ['run', '--silent', 'generate', '--', '--size', String(args.size.bytes), '--seed', String(args.seed), '--out', dir], {
    cwd: repoRoot,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  if (run.error) throw new Error(`could not run the generator: ${run.error.message}`);
  if (run.status !== 0) {
    throw new Error(`\`npm run generate -- --size ${args.size.bytes} --seed ${args.seed} --out ${dir}\` exited with ${run.status ?? run.signal}; pass --fixture PATH to measure an existing sidecar`);
  }
  const manifest = readManifest(manifestPath);
  const after = staleReason(sidecar, manifest, args);
  if (after !== undefined || !manifest) throw new Error(`the generator ran but ${sidecar} is not usable: ${after ?? 'no manifest'}`);
  const seconds = (performance.now() - started) / 1000;
  log(`fixture: generated ${formatBytes(manifest.bytes)} in ${seconds.toFixed(0)} s`);
  return { sidecar, manifest, bytes: manifest.bytes, origin: `generated in ${seconds.toFixed(0)} s` };
}
