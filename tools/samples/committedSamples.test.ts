import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runGenerate } from './generateCli';
import { inspectSample } from './sampleCheck';
import { committedSampleSet } from './sampleSet';

const samplesDir = join(import.meta.dirname, '..', '..', 'samples');
const tmp = mkdtempSync(join(tmpdir(), 'samples-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((p) => statSync(join(dir, p)).isFile())
    .map((p) => relative(dir, join(dir, p)).split('\\').join('/'))
    .sort();
}

const set = committedSampleSet();

describe('committed samples (samples/)', () => {
  it('are byte-identical to what `npm run generate -- --out samples --all` writes', () => {
    const out: string[] = [];
    expect(runGenerate(['--out', tmp, '--all'], { stdout: (t) => out.push(t), stderr: (t) => out.push(t) })).toBe(0);
    const generated = filesUnder(tmp);
    expect(generated).toEqual(set.files.map((f) => f.path).sort());
    for (const path of generated) {
      const committed = join(samplesDir, path);
      // If this fails after a generator change, regenerate: npm run generate -- --out samples --all
      expect(readFileSync(committed).equals(readFileSync(join(tmp, path))), `${path} drifted from the generator`).toBe(true);
    }
    // broken/ holds nothing but the generated set; demo.sidecar.jsonl stays beside it.
    expect(filesUnder(join(samplesDir, 'broken'))).toEqual(generated.filter((p) => p.startsWith('broken/')).map((p) => p.slice('broken/'.length)));
    expect(filesUnder(samplesDir)).toContain('demo.sidecar.jsonl');
  });

  it('every file is under 1 MB', () => {
    for (const path of filesUnder(samplesDir)) expect(statSync(join(samplesDir, path)).size, path).toBeLessThan(1024 * 1024);
  });

  it.each(['session', 'legacy'])('%s has zero findings: sidecar alone, snapshot alone, both', (stem) => {
    const sidecar = readFileSync(join(samplesDir, `${stem}.sidecar.jsonl`), 'utf8');
    const snapshot = readFileSync(join(samplesDir, `${stem}.session.json`), 'utf8');
    expect(inspectSample({ sidecar }).findings).toEqual([]);
    expect(inspectSample({ snapshot }).findings).toEqual([]);
    expect(inspectSample({ sidecar, snapshot }).findings).toEqual([]);
  });

  it('the demo of SPEC §9 has zero findings', () => {
    expect(inspectSample({ sidecar: readFileSync(join(samplesDir, 'demo.sidecar.jsonl'), 'utf8') }).findings).toEqual([]);
  });

  it('each committed broken sample produces the code its manifest names', () => {
    const manifest = JSON.parse(readFileSync(join(samplesDir, 'broken', 'manifest.json'), 'utf8')) as { samples: { code: string; files: string[] }[] };
    expect(manifest.samples.length).toBeGreaterThanOrEqual(14);
    for (const m of manifest.samples) {
      const read = (suffix: string) => {
        const name = m.files.find((f) => f.endsWith(suffix));
        return name ? { [suffix === '.sidecar.jsonl' ? 'sidecar' : 'snapshot']: readFileSync(join(samplesDir, 'broken', name), 'utf8') } : {};
      };
      const codes = new Set(inspectSample({ ...read('.sidecar.jsonl'), ...read('.session.json') }).findings.map((f) => f.code));
      expect([...codes], m.files.join(' + ')).toEqual([m.code]);
    }
  });
});
