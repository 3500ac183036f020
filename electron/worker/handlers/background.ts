/**
 * The worker's idle work after an open (docs/worker.md): the hidden contents' hashes verified on a
 * background thread, then the first search's once-per-state work and a few warm-up searches, each
 * giving way to any request. Nothing here answers a request; it makes the next ones faster.
 */
import type { EventPayload, LoadedSession, Reduction } from '../../../shared/index';
import { canonicalFullyVisible, isRangeKind, methods } from '../../../shared/index';
import { startBackgroundVerify } from '../../loader/content/backgroundVerify';
import type { OpenSession, SearchSignal, SessionState } from '../state';
import { PREPARE_SLICE_MS, searchInSlices } from './search';

/**
 * What the warm-up searches after an open's preparation look for when the hidden text gives them no
 * word (warmUpQueries): plain ASCII, as most queries are, so it runs the raw substring path over both
 * cores; unlikely to occur. Its result is dropped whatever it finds.
 */
export const WARM_UP_QUERY = 'session-inspector:warm-up:9f3c1e7a';

/**
 * Warm-up searches after an open's preparation (warmUp). A search's code runs faster once V8 has
 * compiled it for what it meets, on every thread. Scripted at 1 GiB, the bench's needle sent as
 * the first search once the idle work had ended, in fresh workers:
 * - six warm-ups: the first search took 146–195 ms, 0.75–1.22× the median of the five after it
 *   (median 0.92×, 12 workers); the idle work ended 4.5–5.4 s after the open reply;
 * - against the median of the three after it, per worker, the median over 10 workers (before
 *   WARM_UP_TIME_LIMIT_MS): 1.03× and 1.05× with six warm-ups, 1.09× and 1.14× with three (two
 *   batches each);
 * - the same measure over 8 workers, before the warm-ups were sent as searches are (three, one
 *   word, one scan shared, of another shape): 1.25× and 1.39×, the first search 162–254 ms;
 * - at 256 MiB, each warm-up for one content's longest word (found a few times): the first search
 *   63–82 ms against 42–62 for the three after it; with the first warm-up for a word the hidden
 *   text repeats (warmUpQueries), 57–63 against 44–63 (docs/background-work.md).
 */
export const WARM_UP_SEARCHES = 6;

/**
 * A warm-up search stops (with `timeout`, its result dropped as any) after this long: a word found
 * everywhere costs its every occurrence's check, and the warm-ups are there to run the search's
 * code, not to finish. It is also the longest the pool's threads go on scanning for one after a
 * request has ended the warm-ups (the worker's thread answers between PREPARE_SLICE_MS slices).
 */
const WARM_UP_TIME_LIMIT_MS = 250;

/**
 * All the warm-ups of one open take at most this long together (docs/background-work.md): no
 * warm-up starts once it is spent, and each is cut to what is left of it. Before this bound the
 * six warm-ups of a 1 GiB open kept both cores busy for about 5 s.
 */
export const WARM_UP_BUDGET_MS = 1000;

/** The hidden text the warm-up word is taken from: the last bytes of a content (hidden for every kind a search looks at but turns_cleared). */
const WARM_UP_SAMPLE_BYTES = 2048;

/**
 * The warm-up searches' queries, `count` of them (fewer when the hidden text has fewer words). The
 * last WARM_UP_SAMPLE_BYTES of contents the session hides are sampled, from the middle of its log on
 * (of the first 16 + `count` tried), and their words (6 to 24 letters, digits, `_` or `-`, not all
 * digits) taken:
 * - first, the word in the most of those samples (commonWarmUpWord), when one is in two or more: a
 *   word the hidden text repeats, so that warm-up finds a page of matches, and runs the code that
 *   places each match and cuts its snippet as often as a user's search for a common word does;
 * - then the longest word of each sample, each other than those before. So each warm-up finds at
 *   least that match, and each looks for a new needle, as a user's first search does.
 *
 * [WARM_UP_QUERY] when no content gives a word.
 */
export function warmUpQueries(session: Pick<LoadedSession, 'log' | 'expand'>, count = WARM_UP_SEARCHES): string[] {
  const log = session.log;
  const longest: string[] = [];
  const samples: string[][] = [];
  for (let k = log.length >> 1, tried = 0; k < log.length && tried < 16 + count && longest.length < count; k++) {
    const reduction = log[k] as Reduction;
    // Contents a search looks at, where it looks: a range's messages are searched one by one.
    if (isRangeKind(reduction.kind) || canonicalFullyVisible(reduction, log)) continue;
    tried++;
    const head = session.expand(reduction.id, [0, 0]);
    if (!head.ok) continue;
    const total = head.value.total_bytes;
    const hiddenFrom = reduction.kind === 'tool_output_truncated' ? (reduction.kept_bytes ?? 0) : 0;
    if (total - hiddenFrom < 64) continue;
    const tail = session.expand(reduction.id, [Math.max(hiddenFrom, total - WARM_UP_SAMPLE_BYTES), total]);
    if (!tail.ok) continue;
    const words = (tail.value.content.match(/[A-Za-z0-9_-]{6,24}/g) ?? []).filter((word) => !/^[0-9]+$/.test(word));
    samples.push(words);
    let best = '';
    for (const word of words) if (word.length > best.length && !longest.includes(word)) best = word;
    if (best !== '') longest.push(best);
  }
  const common = commonWarmUpWord(samples);
  const queries = common === null ? longest : [common, ...longest.filter((word) => word !== common)];
  return queries.length > 0 ? queries.slice(0, count) : [WARM_UP_QUERY];
}

/**
 * The word in the most samples (each sample a content's words), null when none is in two: ties go
 * to the word found more often over all of them, then to the longer, then to the first met.
 */
export function commonWarmUpWord(samples: readonly (readonly string[])[]): string | null {
  const tally = new Map<string, { samples: number; times: number }>();
  const of = (word: string): { samples: number; times: number } => {
    let t = tally.get(word);
    if (t === undefined) tally.set(word, (t = { samples: 0, times: 0 }));
    return t;
  };
  for (const words of samples) {
    for (const word of words) of(word).times++;
    for (const word of new Set(words)) of(word).samples++;
  }
  let best: { word: string; samples: number; times: number } | null = null;
  for (const [word, t] of tally) {
    if (t.samples < 2) continue;
    if (best === null || t.samples > best.samples || (t.samples === best.samples && (t.times > best.times || (t.times === best.times && word.length > best.word.length)))) best = { word, ...t };
  }
  return best?.word ?? null;
}

/**
 * Where a warm-up search's progress goes: nowhere, through two functions taken in turn. The call
 * that reports a search's progress has then met more than one function, and the code the warm-ups
 * leave optimized calls any: a user's search, whose progress the worker posts, does not throw it away
 * (it did with one sink: the profile showed `sidecarSearchSteps` deoptimized at that call and compiled
 * again during the user's first search).
 */
const dropProgress: readonly ((progress: EventPayload<'searchProgress'>) => void)[] = [(): void => undefined, (): void => undefined];

/** Starts verifying once the open reply is posted (the reply is never delayed by it). */
export function verifyAfterReply(state: SessionState, open: OpenSession): void {
  const thread = state.idleVerifier;
  state.idleVerifier = undefined;
  setImmediate(() => {
    if (state.current?.token !== open.token || state.verifying) {
      thread?.dispose();
      return;
    }
    const verifying = startBackgroundVerify(open.session, state.services.prepared, state.options.background, thread);
    state.verifying = verifying;
    if (verifying) {
      state.verifyRunning = true;
      void verifying.done.finally(() => {
        if (state.verifying !== verifying) return;
        state.verifyRunning = false;
        // A session worth a background thread is one a search splits: its threads start now.
        state.options.searchPool?.prepare();
        prepareSearch(state, open, true);
      });
    } else {
      // No thread (less than its least work of hashing, or no hash at all: a Claude Code or
      // Codex session's contents): the first search's own work is still done in idle time, without
      // the warm-ups (docs/background-work.md).
      prepareSearch(state, open, false);
    }
  });
}

/**
 * The first search's once-per-state work, done in the worker's idle time after the background
 * verification (or after the open, when no verification thread started), PREPARE_SLICE_MS at a
 * time, then, with `warmUps` (a session that got a verification thread), the warm-up searches
 * (warmUp). It ends when the session is replaced or updated (a new log has other units) or a search
 * begins (that search loads what is left).
 */
function prepareSearch(state: SessionState, open: OpenSession, warmUps: boolean): void {
  const idle = (): boolean => state.current === open && state.searchesRunning === 0;
  const work = open.session.prepareSearch();
  let finish = (): void => undefined;
  state.preparing = new Promise<void>((resolve) => (finish = resolve));
  const slice = (): void => {
    try {
      if (!idle()) {
        work.return({ ok: true, value: 0 });
        return finish();
      }
      const end = performance.now() + PREPARE_SLICE_MS;
      while (performance.now() < end) {
        const step = work.next();
        if (!step.done) continue;
        if (!step.value.ok) return finish();
        if (!warmUps) return finish();
        // A warm-up that fails is dropped as its result is (a search meets the failure and reports it).
        void warmUp(state, open, idle).then(finish, finish);
        return;
      }
    } catch {
      // A search meets the same failure and reports it.
      return finish();
    }
    setImmediate(slice);
  };
  setImmediate(slice);
}

/**
 * WARM_UP_SEARCHES searches for words of the hidden text (warmUpQueries), whose results are
 * dropped: a fresh worker's first searches run their code for the first time, on this thread and
 * the pool's, and slower than later ones. They are sent as the app sends a search (its parameters,
 * `searchInSlices`, options of the one shape, a signal of its own each), so the code they leave
 * optimized is the code a user's search runs. Warm-ups of another shape left code that a user's
 * first search threw away: V8's trace showed `sidecarSearchSteps`, `snippetOf`, the pool's
 * `stopped` and others deoptimized at the properties, callbacks and values that differed, and
 * compiled again while that search ran (tens of milliseconds each, on the cores it searches on).
 * Each looks for a new word, as a user's first search does. Each runs PREPARE_SLICE_MS at a time
 * and stops after WARM_UP_TIME_LIMIT_MS, and all of them after WARM_UP_BUDGET_MS together; they
 * end when a search begins, the session goes, or any search or cancel is sent (`idleSignal`: it
 * stops the pool's threads within one window), and none starts after any request is answered
 * (the user is there: the cores are theirs).
 */
async function warmUp(state: SessionState, open: OpenSession, idle: () => boolean): Promise<void> {
  if (!idle()) return;
  const bound = state.options.background.warmUp ?? {};
  const now = bound.now ?? ((): number => performance.now());
  const budget = bound.budgetMs ?? WARM_UP_BUDGET_MS;
  const started = now();
  // Any request (rows, expand, a search…) is a user's: no warm-up starts after it.
  const requests = state.requests;
  const asked = (): boolean => state.requests !== requests;
  const queries = warmUpQueries(open.session);
  // No search but the warm-up itself runs, and no request came.
  const alone = (): boolean => state.current === open && state.searchesRunning <= 1 && !asked();
  for (let run = 0; run < WARM_UP_SEARCHES && idle() && !asked(); run++) {
    const left = budget - (now() - started);
    if (left <= 0) return;
    const query = queries[run % queries.length] as string;
    // The signal a search sent now would get (a new one each, as each search sent gets its own):
    // raised by the next search or cancel sent. Without one (a host that calls the service
    // itself), the warm-ups end when another search begins or any request comes.
    const signal: SearchSignal = state.options.idleSignal?.() ?? {
      get aborted() {
        return !alone();
      },
    };
    const params = methods.search.params.parse({ searchId: `warm-up-${run}`, query, mode: 'substring', case_sensitive: true });
    await searchInSlices(params, state, { signal, onProgress: dropProgress[run % dropProgress.length], timeLimitMs: Math.max(1, Math.min(WARM_UP_TIME_LIMIT_MS, Math.ceil(left))) }, PREPARE_SLICE_MS);
  }
}

/** Tests: resolves when the background verification of the open session has ended (null when none runs). */
export async function whenVerified(state: SessionState): Promise<{ contents: number; hashed: number; located: number } | null> {
  await new Promise<void>((resolve) => setImmediate(resolve));
  const verifying = state.verifying;
  return verifying ? { contents: verifying.contents, ...(await verifying.done) } : null;
}

/** Tests and the bench: resolves when the search preparation after the background verification has ended. */
export async function whenPrepared(state: SessionState): Promise<void> {
  await whenVerified(state);
  await new Promise<void>((resolve) => setImmediate(resolve));
  await state.preparing;
}
