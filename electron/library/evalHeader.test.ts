/**
 * An Inspect `.eval` archive's entry fields while it is indexed (docs/library.md "Scale"): taken
 * from the header the load parsed (LoadOptions.onLogHeader), they are what a second open of the
 * archive reads (`evalHeaderInfo`), for any header, either entry name, damaged archives and the
 * real and synthetic fixtures.
 */
import { copyFileSync, readdirSync, realpathSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { tempDir } from '../../tools/testing/files';
import { zipLayout } from '../loader/inspect/testing/synthetic';
import { evalHeaderInfo } from './evalHeader';

// Counts the archive's second opens for its header (the former way, kept for a header the load could not parse).
vi.mock('./evalHeader', async (original) => {
  const actual = await original<typeof import('./evalHeader')>();
  return { ...actual, evalHeaderInfo: vi.fn(actual.evalHeaderInfo) };
});
import type { IndexedCounts } from './index';
import { countsOf, indexFile, withLogHeader } from './index';
import { loadSession } from '../loader/session';

const ROOT = join(import.meta.dirname, '../..');
const tmp = tempDir('session-inspector-eval-header-');
afterAll(() => tmp.cleanup());
const dir = realpathSync(tmp.dir);

/** What indexing answers of the archive's head and models, or its error. */
async function indexed(path: string): Promise<Pick<IndexedCounts, 'head' | 'models'> | { error: string }> {
  const r = await indexFile({ path, root: dir, place: { rel: basename(path), rootId: '0' }, format: 'inspect-eval' });
  return r.ok ? { head: r.counts.head, models: r.counts.models } : { error: r.message };
}

/** The same the former way: the session loaded alone, then the archive opened again for its header (`evalHeaderInfo`). */
async function opened(path: string): Promise<Pick<IndexedCounts, 'head' | 'models'>> {
  const loaded = await loadSession([path], { roots: [dir] });
  if (!loaded.ok) throw new Error(loaded.error.message);
  const counts = countsOf(loaded.session);
  loaded.session.close();
  const h = await evalHeaderInfo(path, dir);
  if (h) withLogHeader(counts, h);
  return { head: counts.head, models: counts.models };
}

const sample = (model: string): Buffer => Buffer.from(JSON.stringify({ id: 1, epoch: 1, input: 'What is 2 + 2?', messages: [{ role: 'user', content: 'What is 2 + 2?' }, { role: 'assistant', content: '4', model }], output: { model } }));

describe('an .eval archive’s entry fields, from the header the load parsed', () => {
  it('any header, under either name, valid or not: the fields a second open reads', async () => {
    const text = fc.oneof(fc.string({ maxLength: 30 }), fc.constantFrom('popularity', 'é漢', ''));
    const header = fc.record(
      {
        status: fc.constantFrom('success', 'started', 'error', 7),
        eval: fc.record({ task: text, run_id: text, model: fc.oneof(text, fc.constant(42)), created: fc.constantFrom('2025-02-11T15:18:04-05:00', 'not a time', '2025-02-11T20:18:04Z') }, { requiredKeys: [] }),
        stats: fc.record({ started_at: fc.constantFrom('2025-02-11T15:18:05-05:00', ''), completed_at: fc.constantFrom('2025-02-11T15:20:00-05:00', 3) }, { requiredKeys: [] }),
      },
      { requiredKeys: [] },
    );
    let k = 0;
    await fc.assert(
      fc.asyncProperty(header, fc.constantFrom('header.json', '_journal/start.json'), fc.constantFrom('json', 'not json', 'array'), async (doc, name, form) => {
        // Not JSON: the document without its closing brace (cut anywhere else, `{}` would still parse).
        const body = form === 'json' ? JSON.stringify(doc) : form === 'array' ? JSON.stringify([doc]) : JSON.stringify(doc).slice(0, -1);
        const path = join(dir, `generated-${k++}.eval`);
        writeFileSync(path, zipLayout([{ name, data: Buffer.from(body) }, { name: 'samples/1_epoch_1.json', data: sample('openai/gpt-4o') }]).bytes);
        const before = vi.mocked(evalHeaderInfo).mock.calls.length;
        const got = await indexed(path);
        if ('error' in got) throw new Error(got.error);
        // A header the load parsed is not read again.
        expect(vi.mocked(evalHeaderInfo).mock.calls.length - before).toBe(form === 'not json' ? 1 : 0);
        expect(got).toEqual(await opened(path));
      }),
      { numRuns: 120 },
    );
  });

  it('the real and synthetic archives, damaged ones too: the fields a second open reads', async () => {
    const fixtures = [...readdirSync(join(ROOT, 'e2e/fixtures/real/inspect')).filter((n) => n.endsWith('.eval')).map((n) => join(ROOT, 'e2e/fixtures/real/inspect', n)), ...readdirSync(join(ROOT, 'e2e/fixtures/synthetic/inspect')).filter((n) => n.endsWith('.eval')).map((n) => join(ROOT, 'e2e/fixtures/synthetic/inspect', n))];
    expect(fixtures.length).toBeGreaterThan(10);
    let withHead = 0;
    for (const fixture of fixtures) {
      const path = join(dir, `fixture-${fixture.split('/').pop()}`);
      copyFileSync(fixture, path);
      const got = await indexed(path);
      if ('error' in got) continue;
      expect(got, fixture).toEqual(await opened(path));
      if (got.head?.title !== undefined) withHead++;
    }
    expect(withHead).toBeGreaterThan(3);
  });
});
