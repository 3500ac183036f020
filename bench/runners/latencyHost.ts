/**
 * Latencies through the real worker client, each open in a fresh worker thread:
 *
 * - first rows: from sending `open` until a `rows` request for rows 0–50 answers with a row. The
 *   probe is sent on the first of {the progressive-open event, if the contract has one; the open
 *   reply}, and again on the next trigger while it answers no rows.
 * - first bytes of a stub: `expand(id, [0, 64 KiB])` right after the open, for a small reduction and
 *   for the largest one.
 * - a 64 KiB slice from the middle of the largest original: cold (the first request of a fresh
 *   open) and warm (the same request repeated).
 *
 * Each run opens twice: open A measures first rows and both first-bytes probes, open B the middle
 * slice cold then warm, so every cold figure is the first request of its open.
 */
import type { WorkerResolverClient } from '../../electron/worker/client';
import { events } from '../../shared/index';
import { median } from '../report';
import { PREVIEW_EVENT, elapsedMs, readInput, runMain } from './common';
import { SLICE, startClient, value } from './workerClient';

const WARM_REPEATS = 5;

interface Input {
  workerPath: string;
  sidecar: string;
  runs: number;
  /** The largest reduction (from the manifest); default: the largest `ptr.bytes` of the log. */
  hugeId?: string;
}

export interface LatencyResult {
  previewEvent: boolean;
  /** Opens whose first rows came through the progressive-open event. */
  viaPreview: number;
  small: { id: string; totalBytes: number };
  huge: { id: string; totalBytes: number };
  firstRowsMs: number[];
  openMs: number[];
  smallFirstBytesMs: number[];
  hugeFirstBytesMs: number[];
  middleColdMs: number[];
  middleWarmMs: number[];
}

interface Opened {
  client: WorkerResolverClient;
  firstRowsMs: number;
  openMs: number;
  via: 'preview' | 'open';
}

let generation = 0;

/** Opens `sidecar` in a fresh worker and measures the time to the first rows. */
async function openAndFirstRows(workerPath: string, sidecar: string): Promise<Opened> {
  const client = startClient(workerPath);
  // The worker has started once it answers anything: thread start-up is not part of the open.
  await client.request('log', {});
  const gen = ++generation;
  let firstRowsAt: number | undefined;
  let via: Opened['via'] = 'open';
  let inFlight: Promise<void> | undefined;
  let again: Opened['via'] | undefined;

  const probe = (why: Opened['via']): Promise<void> => {
    if (firstRowsAt !== undefined) return Promise.resolve();
    if (inFlight) {
      // One probe at a time; a trigger during one asks again after it, if it found nothing.
      again = why;
      return inFlight;
    }
    const current = client.request('rows', { start: 0, end: 50 }).then((reply) => {
      if (firstRowsAt === undefined && reply.ok && reply.value.rows.length > 0) {
        firstRowsAt = performance.now();
        via = why;
      }
    });
    inFlight = current.finally(() => (inFlight = undefined));
    return inFlight.then(() => {
      if (firstRowsAt !== undefined || again === undefined) return;
      const next = again;
      again = undefined;
      return probe(next);
    });
  };

  const off = client.onEvent((event) => {
    if ((event.name as string) === PREVIEW_EVENT) void probe('preview');
  });
  const started = performance.now();
  const opening = client.open([sidecar], gen);
  const info = value('open', await opening);
  const openMs = elapsedMs(started);
  await probe('open');
  off();
  if (firstRowsAt === undefined) throw new Error(`rows 0–50 answered no rows after opening ${sidecar} (${info.rows} rows)`);
  return { client, firstRowsMs: firstRowsAt - started, openMs, via };
}

async function timed<T>(run: () => Promise<T>): Promise<{ ms: number; out: T }> {
  const started = performance.now();
  const out = await run();
  return { ms: elapsedMs(started), out };
}

runMain(async (): Promise<LatencyResult> => {
  const input = readInput<Input>();
  const { workerPath, sidecar } = input;

  // Choose the reductions once, in a worker of their own.
  const prep = await openAndFirstRows(workerPath, sidecar);
  const { entries } = value('log', await prep.client.request('log', {}));
  const perMessage = entries.map((e) => e.reduction).filter((r) => r.kind !== 'turns_cleared' && (r.ptr.bytes ?? 0) > 0);
  const smallR = perMessage.find((r) => (r.ptr.bytes ?? 0) <= SLICE) ?? perMessage[0];
  const hugeR = input.hugeId !== undefined ? entries.find((e) => e.reduction.id === input.hugeId)?.reduction : perMessage.reduce((a, b) => ((b.ptr.bytes ?? 0) > (a.ptr.bytes ?? 0) ? b : a));
  if (!smallR || !hugeR) throw new Error(`no reduction to expand in ${sidecar}${input.hugeId !== undefined ? ` (or no ${input.hugeId})` : ''}`);
  const smallTotal = value(`expand ${smallR.id}`, await prep.client.request('expand', { id: smallR.id, range: [0, 1] })).total_bytes;
  const hugeTotal = value(`expand ${hugeR.id}`, await prep.client.request('expand', { id: hugeR.id, range: [0, 1] })).total_bytes;
  await prep.client.dispose();

  const result: LatencyResult = {
    previewEvent: Object.hasOwn(events, PREVIEW_EVENT),
    viaPreview: 0,
    small: { id: smallR.id, totalBytes: smallTotal },
    huge: { id: hugeR.id, totalBytes: hugeTotal },
    firstRowsMs: [],
    openMs: [],
    smallFirstBytesMs: [],
    hugeFirstBytesMs: [],
    middleColdMs: [],
    middleWarmMs: [],
  };
  const mid = Math.floor(hugeTotal / 2);
  for (let run = 0; run < input.runs; run++) {
    const a = await openAndFirstRows(workerPath, sidecar);
    result.firstRowsMs.push(a.firstRowsMs);
    result.openMs.push(a.openMs);
    if (a.via === 'preview') result.viaPreview++;
    result.smallFirstBytesMs.push((await timed(async () => value('expand small', await a.client.request('expand', { id: smallR.id, range: [0, SLICE] })))).ms);
    result.hugeFirstBytesMs.push((await timed(async () => value('expand largest', await a.client.request('expand', { id: hugeR.id, range: [0, SLICE] })))).ms);
    await a.client.dispose();

    const b = await openAndFirstRows(workerPath, sidecar);
    result.firstRowsMs.push(b.firstRowsMs);
    result.openMs.push(b.openMs);
    if (b.via === 'preview') result.viaPreview++;
    const middle = async () => value('expand middle', await b.client.request('expand', { id: hugeR.id, range: [mid, mid + SLICE] }));
    result.middleColdMs.push((await timed(middle)).ms);
    const warm: number[] = [];
    for (let k = 0; k < WARM_REPEATS; k++) warm.push((await timed(middle)).ms);
    result.middleWarmMs.push(median(warm));
    await b.client.dispose();
  }
  return result;
});
