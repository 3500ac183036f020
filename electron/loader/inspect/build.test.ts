/**
 * buildSample on samples edited by hand, where what the history must show is read off the sample's
 * own events: a model event recorded again for an output an earlier call already produced.
 */
import { describe, expect, it } from 'vitest';
import { buildSample } from './build';
import { syntheticSamples } from './testing/synthetic';

type Obj = Record<string, unknown>;
const objects = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter((x): x is Obj => typeof x === 'object' && x !== null) : []);

describe('buildSample: a model event repeated for an output already produced', () => {
  // The trim sample: calls for a2, a4 and a6; a trim compaction before the third drops messages 2–3.
  const trim = syntheticSamples().trim1;
  const events = objects(trim.events);
  const models = events.filter((e) => e.event === 'model');
  const compaction = events.find((e) => e.event === 'compaction')!;
  const clean = buildSample(trim, 'trim');

  it('is not a call again: it reduces nothing, and the compaction stays the origin of what it dropped', () => {
    // Inspect logs a retried generate as another model event: here the second call's output again,
    // given a shorter input (only messages 0–1) than the call that produced it.
    const again: Obj = { ...models[1], uuid: 'ev-model-retry', input: objects(models[0]!.input) };
    const at = events.indexOf(models[1]!) + 1;
    const repeated = { ...trim, events: [...events.slice(0, at), again, ...events.slice(at)] };
    const built = buildSample(repeated, 'trim');
    // Read off the sample: one reduction, the trim's run 2–4, recorded with the compaction event as its origin.
    const shape = built.log.map((r): unknown[] => [r.kind, r.ptr.index, r.end, r.provenance, r.origin && 'event' in r.origin ? r.origin.event : undefined]);
    expect(shape).toEqual([['turns_cleared', 2, 4, 'recorded', compaction.uuid]]);
    expect(built.findings).toEqual([]);
    expect(built.view).toEqual(clean.view);
    expect(built.log.map((r) => r.kind)).toEqual(clean.log.map((r) => r.kind));
  });

  it('repeated as recorded, with the same input, changes nothing either', () => {
    const at = events.indexOf(models[2]!) + 1;
    const built = buildSample({ ...trim, events: [...events.slice(0, at), { ...models[2], uuid: 'ev-model-again' }, ...events.slice(at)] }, 'trim');
    expect(built.log).toEqual(clean.log);
    expect(built.findings).toEqual([]);
  });
});
