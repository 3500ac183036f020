/**
 * Repro bundles (SPEC §12) through the command line: a bundle of every broken sample reproduces its
 * code and is smaller than its source; a bundle of named reductions expands them to the source's
 * bytes; what bundle.json says is true of the files; DIR rules; the written spec type-checks.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import MarkdownIt from 'markdown-it';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';
import type { Finding } from '../../shared/index';
import { nameText } from '../../shared/format/visibleText';
import { runCli } from '../cli/testing/runCli';
import { brokenSamples } from '../../tools/samples/brokenSamples';
import { generateSession, sidecarText, snapshotText } from '../../tools/samples/sessionGenerator';
import { BAD_CORPUS_DIR, MARKDOWN_ID } from '../../tools/testing/badCorpus';
import { tempDir } from '../../tools/testing/files';
import type { BundleManifest } from './manifest';
import { packEntry, readArchive, writeZip } from './evalArchive';

const ROOT = join(import.meta.dirname, '../..');
const tmp = tempDir('session-inspector-bundle-test-');
afterAll(() => tmp.cleanup());

let serial = 0;
/** A fresh folder holding `files` (name → content). */
function writeFiles(files: Record<string, string>): string[] {
  const dir = tmp.path(`src-${serial++}`);
  mkdirSync(dir);
  return Object.entries(files).map(([name, content]) => {
    writeFileSync(join(dir, name), content);
    return join(dir, name);
  });
}

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

interface Made {
  out: string;
  manifest: BundleManifest;
  /** The bundle's session files, as paths. */
  files: string[];
}

async function bundle(args: string[]): Promise<Made> {
  const out = tmp.path(`out-${serial++}`);
  const r = await runCli(['bundle', '--out', out, ...args]);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  const printed = JSON.parse(r.stdout) as { out: string; files: string[] };
  expect(printed.out).toBe(out);
  expect([...printed.files].sort()).toEqual(readdirSync(out).sort());
  const manifest = JSON.parse(readFileSync(join(out, 'bundle.json'), 'utf8')) as BundleManifest;
  return { out, manifest, files: manifest.files.map((f) => join(out, f.name)) };
}

async function codes(files: string[]): Promise<string[]> {
  const r = await runCli(['check', ...files]);
  expect([0, 1]).toContain(r.code);
  return (JSON.parse(r.stdout) as { findings: Finding[] }).findings.map((f) => f.code);
}

const bytesOf = (paths: string[]) => paths.reduce((n, p) => n + readFileSync(p).length, 0);

describe('a bundle of each broken sample', () => {
  for (const sample of brokenSamples()) {
    it(`${Object.keys(sample.files).join(' + ')} reproduces ${sample.code} and is smaller than its source`, async () => {
      const sources = writeFiles(sample.files);
      const made = await bundle(sources);
      const sourceCodes = await codes(sources);
      const bundleCodes = await codes(made.files);
      expect(bundleCodes).toContain(sample.code);
      // Nothing the source does not show (the oracle's second half).
      for (const c of bundleCodes) expect(sourceCodes).toContain(c);
      expect(made.manifest.codes).toEqual([...new Set(sourceCodes)]);
      expect(bytesOf(made.files)).toBeLessThan(bytesOf(sources));
      // bundle.json tells the truth about both sides, and the minimizer stayed under its cap.
      expect(made.manifest.sources.map((s) => s.sha256)).toEqual(sources.map((p) => sha256(readFileSync(p))));
      expect(made.manifest.files.map((f) => [f.bytes, f.sha256])).toEqual(made.files.map((p) => [readFileSync(p).length, sha256(readFileSync(p))]));
      expect(made.manifest.minimizer.oracle_calls).toBeLessThanOrEqual(made.manifest.minimizer.max_oracle_calls);
      expect(made.manifest.minimizer.bytes_after).toBe(bytesOf(made.files));
      // The sources are only read.
      sources.forEach((p, k) => expect(readFileSync(p, 'utf8')).toBe(Object.values(sample.files)[k]));
    }, 120_000);
  }
});

describe('a bundle of named reductions', () => {
  const session = generateSession({ seed: 7, messages: 40, compact: true });
  const live = session.snapshot.reductions ?? [];
  const kinds = ['tool_output_truncated', 'duplicate_output', 'turns_cleared'] as const;
  const ids = kinds.map((k) => live.find((r) => r.kind === k)?.id).filter((id): id is string => id !== undefined);

  it('expand of every named id prints the same bytes on the bundle as on the source, and check finds nothing new', async () => {
    expect(ids.length).toBe(kinds.length);
    const sources = writeFiles({ 's.sidecar.jsonl': sidecarText(session.records), 's.session.json': snapshotText(session.snapshot) });
    const made = await bundle([...ids.flatMap((id) => ['--id', id]), ...sources]);
    expect(made.manifest.ids).toEqual(ids);
    expect(made.manifest.codes).toEqual([]);
    for (const id of ids) {
      const before = await runCli(['expand', '--id', id, ...sources]);
      const after = await runCli(['expand', '--id', id, ...made.files]);
      expect(before.code).toBe(0);
      expect(after.stdout).toBe(before.stdout);
    }
    expect(await codes(made.files)).toEqual([]);
    expect(bytesOf(made.files)).toBeLessThan(bytesOf(sources));
    // The README names the exact commands.
    const readme = readFileSync(join(made.out, 'README.md'), 'utf8');
    expect(readme).toContain(`npx session-inspector check ${made.manifest.files.map((f) => f.name).join(' ')}`);
    for (const id of ids) expect(readme).toContain(`npx session-inspector expand --id ${id} `);
  }, 120_000);

  it('the same source gives byte-identical bundles', async () => {
    const sources = writeFiles({ 's.sidecar.jsonl': sidecarText(session.records) });
    const a = await bundle(['--id', ids[0] as string, ...sources]);
    const b = await bundle(['--id', ids[0] as string, ...sources]);
    for (const name of readdirSync(a.out)) expect(readFileSync(join(b.out, name))).toEqual(readFileSync(join(a.out, name)));
  }, 120_000);

  it('the written bundle.spec.ts type-checks against this repository’s Playwright', async () => {
    const sources = writeFiles({ 's.sidecar.jsonl': sidecarText(session.records) });
    const made = await bundle(['--id', ids[0] as string, ...sources]);
    const spec = join(made.out, 'bundle.spec.ts');
    const program = ts.createProgram([spec], {
      noEmit: true,
      strict: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      types: ['node'],
      typeRoots: [join(ROOT, 'node_modules/@types')],
      baseUrl: ROOT,
      paths: { '@playwright/test': [join(ROOT, 'node_modules/@playwright/test')] },
      skipLibCheck: true,
    });
    const diagnostics = ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    expect(diagnostics).toEqual([]);
    expect(readFileSync(spec, 'utf8')).toContain(`"id": "${ids[0]}"`);
  }, 120_000);
});

describe('a bundle of an imported session', () => {
  const fixture = (path: string) => join(ROOT, 'e2e/fixtures', path);

  it('a Codex rollout is minimized by its records: a named id expands to the same bytes, a torn file keeps its codes', async () => {
    const rollout = fixture('synthetic/codex/reinjected-context.jsonl');
    const made = await bundle(['--id', 'codex-L12-1', rollout]);
    expect(made.manifest.minimizer.units.map((u) => u.kind)).toEqual(['record_group']);
    expect((await runCli(['expand', '--id', 'codex-L12-1', ...made.files])).stdout).toBe((await runCli(['expand', '--id', 'codex-L12-1', rollout])).stdout);
    expect(bytesOf(made.files)).toBeLessThan(bytesOf([rollout]));
    const torn = fixture('synthetic/codex/torn.jsonl');
    const tornBundle = await bundle([torn]);
    expect(new Set(await codes(tornBundle.files))).toEqual(new Set(await codes([torn])));
    expect(bytesOf(tornBundle.files)).toBeLessThan(bytesOf([torn]));
  }, 120_000);

  it('a SWE-agent trajectory (one JSON document) is copied whole', async () => {
    const traj = fixture('synthetic/swe-agent/torn.traj');
    const made = await bundle([traj]);
    expect(made.manifest.minimizer.units).toEqual([{ name: 'torn.traj', kind: 'whole', before: 0, after: 0 }]);
    expect(readFileSync(made.files[0] as string)).toEqual(readFileSync(traj));
  }, 60_000);
});

/** A real file with one record planted that our loader warns about (`unknown_record`), so the bundle has a finding to keep. */
type Planted = { path: string; format: string; plant: (doc: unknown) => void };
const robot = (m: unknown): void => {
  (m as { role: string }).role = 'robot';
};
const lastOf = (list: unknown): unknown => (list as unknown[])[(list as unknown[]).length - 1];
const PLANTED: Planted[] = [
  { path: 'swe-agent/marshmallow-1867-function-calling-replace-from-source.traj', format: 'swe-agent-traj', plant: (d) => robot(((d as { history: unknown[] }).history)[9]) },
  { path: 'mini-swe-agent/sqlfluff-2419-2.2.7-submitted.traj.json', format: 'mini-swe-agent-traj', plant: (d) => robot(((d as { messages: unknown[] }).messages)[41]) },
  { path: 'openhands/basic_gui_mode.json', format: 'openhands-v0', plant: (d) => (d as unknown[]).splice(9, 0, { id: 9999, timestamp: '2025-01-01T00:00:00', source: 'agent', planted: true }) },
  { path: 'inspect/2025-05-12T20-28-26-04-00_security-guide.json', format: 'inspect-json', plant: (d) => robot(lastOf((((d as { samples: { id: unknown; messages: unknown[] }[] }).samples).find((x) => x.id === 1) ?? { messages: [] }).messages)) },
];

describe('a bundle of a real file of each JSON document format is minimized by its records', () => {
  it.each(PLANTED)('$format ($path): smaller, same findings, and the cut list sums to the bytes removed', async ({ path, format, plant }) => {
    const doc = JSON.parse(readFileSync(join(ROOT, 'e2e/fixtures/real', path), 'utf8')) as unknown;
    plant(doc);
    const [source] = writeFiles({ [path.split('/').pop() as string]: JSON.stringify(doc, null, 2) + '\n' }) as [string];
    const sourceCodes = await codes([source]);
    expect(sourceCodes).toContain('unknown_record');
    const made = await bundle([source]);
    expect(made.manifest.files.map((f) => f.format)).toEqual([format]);
    expect(new Set(await codes(made.files))).toEqual(new Set(sourceCodes));
    const [unit] = made.manifest.minimizer.units;
    expect(unit?.kind).toBe('document_part');
    expect(unit?.after).toBeLessThan(unit?.before ?? 0);
    expect(bytesOf(made.files)).toBeLessThan(bytesOf([source]));
    const { cut, bytes_before, bytes_after } = made.manifest.minimizer;
    expect(cut.removed_units).toBe((unit?.before ?? 0) - (unit?.after ?? 0));
    expect(cut.by_kind.reduce((n, k) => n + k.bytes, 0)).toBe(cut.removed_bytes);
    expect(bytes_before - cut.removed_bytes - cut.rewritten.reduce((n, r) => n + r.bytes_before - r.bytes_after, 0)).toBe(bytes_after);
    expect(bytes_after).toBe(bytesOf(made.files));
    expect(made.manifest.minimizer.stopped_early).toBeNull();
  }, 120_000);

  it('an Inspect .eval archive: the other samples are dropped, the sample is cut by its records, the summaries name only the samples kept', async () => {
    const entries = await readArchive(join(ROOT, 'e2e/fixtures/real/inspect/2025-02-11T15-18-04-05-00_popularity_mj7khqpMM4GBCfVQozKgzB.eval'));
    if (!entries) throw new Error('the real archive does not read');
    const planted = entries.map((e) => {
      if (e.name !== 'samples/1_epoch_1.json') return packEntry(e);
      const sample = JSON.parse(new TextDecoder().decode(e.bytes)) as { messages: { role: string }[] };
      (sample.messages.at(-1) as { role: string }).role = 'robot';
      return packEntry({ name: e.name, bytes: new TextEncoder().encode(JSON.stringify(sample)) });
    });
    const dir = tmp.path(`src-${serial++}`);
    mkdirSync(dir);
    const source = join(dir, 'popularity.eval');
    writeFileSync(source, writeZip(planted));
    const sourceCodes = await codes([source]);
    expect(sourceCodes).toContain('unknown_record');
    const made = await bundle([source]);
    expect(new Set(await codes(made.files))).toEqual(new Set(sourceCodes));
    expect(bytesOf(made.files)).toBeLessThan(bytesOf([source]));
    const { cut, bytes_before, bytes_after } = made.manifest.minimizer;
    expect(cut.by_kind.find((k) => k.kind === 'sample')?.units).toBe(9);
    expect(bytes_before - cut.removed_bytes - cut.rewritten.reduce((n, r) => n + r.bytes_before - r.bytes_after, 0)).toBe(bytes_after);
    const kept = (await readArchive(made.files[0] as string)) ?? [];
    expect(kept.filter((e) => e.name.startsWith('samples/')).map((e) => e.name)).toEqual(['samples/1_epoch_1.json']);
    for (const e of kept.filter((x) => /^(summaries\.json|_journal\/summaries\/)/.test(x.name))) {
      expect((JSON.parse(new TextDecoder().decode(e.bytes)) as { id: unknown }[]).map((r) => r.id)).toEqual([1]);
    }
  }, 120_000);

  it('an elision of a SWE-agent trajectory named by id expands to the same bytes from the bundle', async () => {
    const traj = join(ROOT, 'e2e/fixtures/real/swe-agent/marshmallow-1867-function-calling-replace-from-source.traj');
    // The trajectory's last elision: step 12's input gives history[17] as a placeholder.
    const id = 'swe-step12-m17';
    const made = await bundle(['--id', id, traj]);
    expect((await runCli(['expand', '--id', id, ...made.files])).stdout).toBe((await runCli(['expand', '--id', id, traj])).stdout);
    expect(bytesOf(made.files)).toBeLessThan(bytesOf([traj]));
  }, 120_000);
});

describe('a bundle of a reduction whose id is Markdown', () => {
  /** The README's structure as a CommonMark parser (raw HTML recognized) reads it. */
  function structure(readme: string) {
    const tokens = new MarkdownIt('commonmark').parse(readme, {}).flatMap((t) => (t.type === 'inline' ? [t, ...(t.children ?? [])] : [t]));
    const headings = tokens.flatMap((t, i) => (t.type === 'heading_open' ? [`${t.tag} ${tokens[i + 1]?.content ?? ''}`] : []));
    return {
      headings,
      fences: tokens.filter((t) => t.type === 'fence' || t.type === 'code_block').map((t) => t.info),
      other: tokens.filter((t) => /^(link|image|html|hr|blockquote|table|strong|em)/.test(t.type)).map((t) => t.type),
      spans: tokens.filter((t) => t.type === 'code_inline').map((t) => t.content),
      commands: tokens.find((t) => t.type === 'fence')?.content ?? '',
    };
  }

  it('the README has exactly the headings, fences and no links of the template; the id sits whole and visible in code, and its command reads back as the id', async () => {
    // The corpus file, under a file name that is Markdown too (a bundle names its sources).
    const [source] = writeFiles({ '[docs](mailto:x@evil.example) `x`\n# Name.sidecar.jsonl': readFileSync(join(BAD_CORPUS_DIR, 'markdown-names.sidecar.jsonl'), 'utf8') });
    const made = await bundle(['--id', MARKDOWN_ID, source as string]);
    const readme = readFileSync(join(made.out, 'README.md'), 'utf8');
    const shown = structure(readme);
    expect(shown.headings).toEqual(['h1 Repro bundle', 'h2 Commands (run in this folder)', 'h2 Playwright', 'h2 How it was made']);
    expect(shown.fences).toEqual(['sh', 'sh']);
    expect(shown.other).toEqual([]);
    expect(shown.spans).toContain(nameText(MARKDOWN_ID));
    expect(shown.spans).toContain(nameText(source as string));
    // Nothing in the README can reorder or break what the reader sees.
    // eslint-disable-next-line no-control-regex -- control characters are exactly what this looks for
    expect(readme).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2066-\u2069]/);
    // The expand command is one line, and a shell reads its words back as the id and the file name.
    const expand = shown.commands.split('\n').find((l) => l.startsWith('npx session-inspector expand '));
    const words = execFileSync('bash', ['-c', `set -- ${expand ?? ''}; printf '%s\\0' "$@"`], { encoding: 'utf8' }).split('\0').slice(0, -1);
    expect(words).toEqual(['npx', 'session-inspector', 'expand', '--id', MARKDOWN_ID, made.manifest.files[0]?.name]);
  }, 120_000);
});

describe('bundle refuses', () => {
  const session = generateSession({ seed: 7, messages: 40, compact: true });
  const error = (stdout: string) => (JSON.parse(stdout) as { error: { code: string } }).error.code;

  it('a DIR that exists and is not empty, and leaves it as it was', async () => {
    const sources = writeFiles({ 's.sidecar.jsonl': sidecarText(session.records) });
    const out = tmp.path(`taken-${serial++}`);
    mkdirSync(out);
    writeFileSync(join(out, 'notes.txt'), 'mine');
    const r = await runCli(['bundle', '--out', out, '--id', session.snapshot.reductions?.[0]?.id ?? 'r1', ...sources]);
    expect(r.code).toBe(2);
    expect(error(r.stdout)).toBe('out_exists');
    expect(readdirSync(out)).toEqual(['notes.txt']);
    // The inputs' own folder is never empty: a bundle never lands beside them.
    const beside = await runCli(['bundle', '--out', join(sources[0] as string, '..'), '--id', 'r1', ...sources]);
    expect(error(beside.stdout)).toBe('out_exists');
  }, 60_000);

  it('a finding the source does not show, an id it does not hold, a clean session with nothing named, and no --out', async () => {
    const sources = writeFiles({ 's.sidecar.jsonl': sidecarText(session.records) });
    const out = tmp.path(`never-${serial++}`);
    expect(error((await runCli(['bundle', '--out', out, '--finding', 'hash_mismatch', ...sources])).stdout)).toBe('not_reproduced');
    expect(error((await runCli(['bundle', '--out', out, '--id', 'r9999', ...sources])).stdout)).toBe('unknown_reduction');
    expect(error((await runCli(['bundle', '--out', out, ...sources])).stdout)).toBe('not_reproduced');
    expect(error((await runCli(['bundle', ...sources])).stdout)).toBe('usage');
    expect(() => readdirSync(out)).toThrow();
  }, 60_000);
});
