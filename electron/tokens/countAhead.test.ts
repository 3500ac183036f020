/**
 * Counting ahead on two threads (SessionEstimates.countAhead and countHiddenAhead, countDiffAhead,
 * textCounter.ts, countThread.ts;
 * docs/token-estimates.md "Counting on two threads"): every figure counted ahead is the one counted
 * where it is asked, what the counting thread answers is what is used, and a counter that fails
 * changes nothing. The thread is the real bundle (dist/countThread.cjs, built by the unit tests'
 * global setup).
 */
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it, vi } from 'vitest';
import type { ViewEntry } from '../../shared/calls/calls';
import { viewEntries } from '../../shared/calls/calls';
import type { ChatMessage, MessageList } from '../../shared/format/types';
import { arrayList } from '../../shared/resolver/session';
import { statSync } from 'node:fs';
import { tempDir } from '../../tools/testing/files';
import { COUNT_AHEAD_MIN_BYTES } from '../cli/sessionCommands';
import { runCli } from '../cli/testing/runCli';
import { diffOutput } from '../cli/diff';
import { viewOutput } from '../cli/view';
import { generateClaudeTranscript } from '../loader/claudeCode/testing/generate';
import type { LoadedSession } from '../loader/session';
import { loadSession, nodeRunningSha256 } from '../loader/session';
import { TranscriptHashes } from '../../shared/resolver/transcriptHashes';
import { countText } from './counter';
import { countDiffAhead, diffEntries, diffTokens } from './diffTokens';
import { SessionEstimates, recordedContextOf } from './sessionEstimates';
import type { TextCounter } from './textCounter';
import { CLAIMED_BY_THREAD, TAKEN_HERE, countersStarted, startTextCounter } from './textCounter';
import { steppedThread } from './testing/steppedThread';
import { COUNT_THREAD_SCRIPT, realCountingThread } from './testing/countingThread';
import { agentText } from './testing/agentText';

const ROOT = join(import.meta.dirname, '../..');
const CC = join(ROOT, 'e2e/fixtures/real/claude-code');
const DEMO = join(ROOT, 'samples/demo.sidecar.jsonl');

const thread = realCountingThread();
const threadCounter = thread.counter;
const tmp = tempDir('session-inspector-count-ahead-');
/**
 * Waits for the thread however long it takes: a test of what the thread's answers become. Without
 * it this thread counts a batch the thread has not answered within HELP_AFTER_MS itself (a loaded
 * machine, a thread still loading its encoding), and that batch's figures are this thread's.
 */
const THREAD_GIVEN_ITS_TIME = { helpAfterMs: Number.POSITIVE_INFINITY };
afterAll(() => {
  thread.close();
  tmp.cleanup();
});

let generated: string | undefined;
/** A generated Claude Code session just over the threshold (written once, for the command line's tests). */
function overThreshold(): string {
  generated ??= generateClaudeTranscript(tmp.dir, { bytes: COUNT_AHEAD_MIN_BYTES + 512 * 1024, seed: 11, outputScale: 0.25, compactEvery: 3_000_000 }).path;
  return generated;
}

/** A counter that tells how much it was asked to count, answering as `inner` does. */
function watched(inner: TextCounter): TextCounter & { texts: number } {
  const w = {
    texts: 0,
    count(texts: string[]) {
      w.texts += texts.length;
      return inner.count(texts);
    },
    countUnlessTaken(texts: string[], claim: Int32Array) {
      w.texts += texts.length;
      return inner.countUnlessTaken(texts, claim);
    },
    close: () => inner.close(),
  };
  return w;
}

/** A counter that answers as `inner` does, plus one for each text: what it answered shows in the figures. */
function oneMore(inner: TextCounter): TextCounter & { texts: number } {
  const w = {
    texts: 0,
    async count(texts: string[]) {
      w.texts += texts.length;
      return (await inner.count(texts)).map((n) => n + 1);
    },
    async countUnlessTaken(texts: string[], claim: Int32Array) {
      w.texts += texts.length;
      return (await inner.countUnlessTaken(texts, claim))?.map((n) => n + 1);
    },
    close: () => undefined,
  };
  return w;
}


/**
 * Runs `args` (the command, then its flags) of the command line on a generated session over the
 * threshold: it must start a counting thread and exit 0. Returns its output and what `oneThread`
 * makes of the same session loaded here, counted on this thread alone.
 */
async function overThresholdCli<T>(args: (path: string, session: LoadedSession) => string[], oneThread: (session: LoadedSession) => T | Promise<T>): Promise<{ stdout: string; expected: T }> {
  const path = overThreshold();
  expect(statSync(path).size).toBeGreaterThanOrEqual(COUNT_AHEAD_MIN_BYTES);
  const loaded = await loadSession([path]);
  if (!loaded.ok) throw new Error(loaded.error.message);
  let argv: string[];
  let expected: T;
  try {
    argv = args(path, loaded.session);
    expected = await oneThread(loaded.session);
  } finally {
    loaded.session.close();
  }
  const before = countersStarted();
  const r = await runCli(argv);
  expect(r.code, r.stderr).toBe(0);
  expect(countersStarted()).toBe(before + 1);
  return { stdout: r.stdout, expected };
}

/** A session shape of one input: what SessionEstimates reads of a session when no context is recorded. */
function oneInput(view: MessageList): ConstructorParameters<typeof SessionEstimates>[0] {
  return {
    model: 'gpt-5',
    modelChanges: [],
    calls: [],
    callTimeline: { calls: [], spans: [] },
    callInput: () => undefined,
    instructionsAt: () => [],
    log: [],
    minted: view,
    recorded: view,
  };
}

const text = fc.oneof(fc.string({ unit: 'grapheme', maxLength: 300 }), fc.string({ unit: 'binary', maxLength: 200 }), fc.constantFrom('', 'ok', '<|endoftext|>', '漢字'.repeat(300)));

/** Messages, some with their content in a byte source (a file's), tool calls and thinking; and the entries of an input over them. */
const inputs = fc
  .array(
    fc.record({
      role: fc.constantFrom<'user' | 'assistant' | 'tool'>('user', 'assistant', 'tool'),
      content: text,
      inSource: fc.boolean(),
      calls: fc.array(fc.record({ name: text, arguments: text }), { maxLength: 3 }),
      thinking: fc.option(text, { nil: undefined }),
      reduced: fc.boolean(),
    }),
    { minLength: 1, maxLength: 40 },
  )
  .map((specs) => {
    const messages: ChatMessage[] = specs.map((s, k) => {
      const bytes = new TextEncoder().encode(s.content);
      // A source holds a content of some bytes (an importer keeps only long ones in the file): an
      // empty one has no text to count, and the thread would be handed nothing.
      const inSource = s.inSource && bytes.length > 0;
      return {
        role: s.role,
        content: inSource ? s.content.slice(0, 8) : s.content,
        ...(inSource ? { large: { length: bytes.length, read: (a: number, b: number) => bytes.subarray(a, b) } } : {}),
        ...(s.thinking !== undefined ? { metadata: { thinking: s.thinking } } : {}),
        ...(s.calls.length > 0 ? { tool_calls: s.calls.map((c, j) => ({ id: `call-${k}-${j}`, name: c.name, arguments: c.arguments })) } : {}),
      };
    });
    const entries: ViewEntry[] = specs.map((s, k) => ({
      index: k,
      role: s.role,
      content: s.reduced ? `[reduced ${k}]` : (messages[k] as ChatMessage).content,
      ...(s.calls.length > 0 ? { tool_calls: (messages[k] as ChatMessage).tool_calls } : {}),
      reductions: s.reduced ? [`r${k}`] : [],
    }));
    return { view: arrayList(messages), entries };
  });

describe('countAhead: what is counted on two threads is what is counted on one', () => {
  it('any input (contents in memory and in sources, tool calls, thinking, reduced entries): the same estimates, and the thread counted a share', async () => {
    await fc.assert(
      fc.asyncProperty(inputs, async ({ view, entries }) => {
        const one = new SessionEstimates(oneInput(view));
        const expected = one.entriesEstimate(entries, view);
        const counter = watched(threadCounter());
        const two = new SessionEstimates(oneInput(view));
        await two.countAhead([{ entries: entries, view: view }], counter);
        expect(counter.texts).toBeGreaterThan(0);
        expect(two.entriesEstimate(entries, view)).toEqual(expected);
      }),
      { numRuns: 60 },
    );
  });

  it('what the thread answers is what the estimates hold (a counter that answers one more per text shows in the figures)', async () => {
    const { view, entries } = fc.sample(inputs, { numRuns: 1, seed: 42 })[0] as { view: MessageList; entries: ViewEntry[] };
    const plain = new SessionEstimates(oneInput(view)).entriesEstimate(entries, view);
    const lying = oneMore(threadCounter());
    const estimates = new SessionEstimates(oneInput(view));
    await estimates.countAhead([{ entries: entries, view: view }], lying, undefined, THREAD_GIVEN_ITS_TIME);
    expect(lying.texts).toBeGreaterThan(0);
    expect(estimates.entriesEstimate(entries, view).total.tokens).toBe(plain.total.tokens + lying.texts);
  });

  it('a counter that fails, or is closed, changes nothing: what it did not answer is counted where asked', async () => {
    const { view, entries } = fc.sample(inputs, { numRuns: 1, seed: 7 })[0] as { view: MessageList; entries: ViewEntry[] };
    const plain = new SessionEstimates(oneInput(view)).entriesEstimate(entries, view);
    const failing: TextCounter = { count: () => Promise.reject(new Error('the counting thread failed')), countUnlessTaken: () => Promise.reject(new Error('the counting thread failed')), close: () => undefined };
    const estimates = new SessionEstimates(oneInput(view));
    await estimates.countAhead([{ entries: entries, view: view }], failing);
    expect(estimates.entriesEstimate(entries, view)).toEqual(plain);
    const closed = startTextCounter({ script: COUNT_THREAD_SCRIPT });
    if (!closed) throw new Error('no counting thread');
    closed.close();
    await expect(closed.count(['counted?'])).rejects.toThrow(/closed/);
    const again = new SessionEstimates(oneInput(view));
    await again.countAhead([{ entries: entries, view: view }], closed);
    expect(again.entriesEstimate(entries, view)).toEqual(plain);
  });

  it('a thread that never answers holds nothing up: what it was handed, begun or not, is counted here once it has not answered for a while, as on one thread', async () => {
    await fc.assert(
      fc.asyncProperty(inputs, fc.boolean(), fc.integer({ min: 1, max: 20 }), async ({ view, entries }, begins, helpAfterMs) => {
        const expected = new SessionEstimates(oneInput(view)).entriesEstimate(entries, view);
        // A thread that answers nothing until told, one more per text when it does (used, it would show).
        const silent = steppedThread({ mark: 1, beginOnArrival: begins });
        const estimates = new SessionEstimates(oneInput(view));
        await estimates.countAhead([{ entries: entries, view: view }], silent, undefined, { helpAfterMs });
        expect(silent.requests.length).toBeGreaterThan(0);
        // Each request was counted here: one the thread had not begun is taken, so it would skip it.
        for (const { claim } of silent.requests) expect(Atomics.load(claim, 0)).toBe(begins ? CLAIMED_BY_THREAD : TAKEN_HERE);
        expect(estimates.entriesEstimate(entries, view)).toEqual(expected);
        // The thread's answers, when they come at last (the begun counted, the taken skipped), change nothing.
        silent.answerBegun();
        while (silent.step());
        await new Promise<void>((resolve) => setImmediate(resolve));
        expect(estimates.entriesEstimate(entries, view)).toEqual(expected);
      }),
      { numRuns: 40 },
    );
  });

  it('a content sampled above the threshold is scaled alone, its tool calls and thinking counted whole, as on one thread', async () => {
    const big = new TextEncoder().encode(agentText(9 * 1024 * 1024, 3));
    const message: ChatMessage = {
      role: 'assistant',
      content: 'head',
      large: { length: big.length, read: (a, b) => big.subarray(a, b) },
      metadata: { thinking: 'Let me look at the failing test first.' },
      tool_calls: [{ id: 'c1', name: 'Bash', arguments: '{"command":"npm test"}' }],
    };
    const view = arrayList([message, { role: 'user', content: 'go on' }]);
    const entries: ViewEntry[] = [
      { index: 0, role: 'assistant', content: 'head', tool_calls: message.tool_calls, reductions: [] },
      { index: 1, role: 'user', content: 'go on', reductions: [] },
    ];
    const plain = new SessionEstimates(oneInput(view)).entriesEstimate(entries, view);
    expect(plain.messages[0]?.sampled).toBe(true);
    const estimates = new SessionEstimates(oneInput(view));
    await estimates.countAhead([{ entries: entries, view: view }], threadCounter());
    expect(estimates.entriesEstimate(entries, view)).toEqual(plain);
  });

  it('real Claude Code files, at their first, middle and last calls: the same estimates, breakdown and calibration', async () => {
    for (const name of ['cc-2.1.17-persisted-bash.jsonl', 'cc-2.1.14-two-compactions.jsonl']) {
      const loaded = await loadSession([join(CC, name)]);
      if (!loaded.ok) throw new Error(loaded.error.message);
      const session = loaded.session;
      try {
        const recorded = recordedContextOf(session);
        const n = session.calls.length;
        for (const at of [1, Math.ceil(n / 2), n]) {
          const input = session.callInput(at);
          if (!input) throw new Error(`${name}: no input at call ${at}`);
          const entries = viewEntries(input);
          const one = new SessionEstimates(session, recorded);
          const expected = { estimate: one.entriesEstimate(entries, input.minted), breakdown: one.breakdown(at), calibration: one.calibration(), pairs: one.growthPairs() };
          const counter = watched(threadCounter());
          const two = new SessionEstimates(session, recorded);
          await two.countAhead([{ entries: entries, view: input.minted }], counter);
          expect(counter.texts, `${name} at ${at}`).toBeGreaterThan(0);
          expect({ estimate: two.entriesEstimate(entries, input.minted), breakdown: two.breakdown(at), calibration: two.calibration(), pairs: two.growthPairs() }, `${name} at ${at}`).toEqual(expected);
          expect(two.calibrationCounted).toBe(one.calibrationCounted);
        }
      } finally {
        session.close();
      }
    }
  });

  it('after counting ahead, the input’s estimates and the calibration read nothing more from the file (a real file whose contents are kept in it)', async () => {
    const name = 'cc-2.1.14-two-compactions.jsonl';
    const loaded = await loadSession([join(CC, name)], { largeStringBytes: 512 });
    if (!loaded.ok) throw new Error(loaded.error.message);
    const session = loaded.session;
    const at = Math.ceil(session.calls.length / 2);
    const input = session.callInput(at);
    if (!input) throw new Error(`${name}: no input at call ${at}`);
    const entries = viewEntries(input);
    const recorded = recordedContextOf(session);
    const one = new SessionEstimates(session, recorded);
    const expected = { estimate: one.entriesEstimate(entries, input.minted), pairs: one.growthPairs() };
    expect(entries.some((e) => e.reductions.length === 0 && input.minted.at(e.index)?.large !== undefined)).toBe(true);
    const two = new SessionEstimates(session, recorded);
    await two.countAhead([{ entries: entries, view: input.minted }], threadCounter());
    // Its files closed: a content still to be counted could not be read.
    session.close();
    expect({ estimate: two.entriesEstimate(entries, input.minted), pairs: two.growthPairs() }).toEqual(expected);
  });

  it('the thread counts each text as countText does here', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(text, { maxLength: 20 }), async (texts) => {
        expect(await threadCounter().count(texts)).toEqual(texts.map(countText));
      }),
      { numRuns: 100 },
    );
  });

  it('`view --at N` of a session over the threshold counts on a thread, and prints what a view counted on one thread does', async () => {
    const at = (session: LoadedSession) => String(Math.ceil(session.calls.length / 2));
    const { stdout, expected } = await overThresholdCli(
      (path, session) => ['view', '--at', at(session), path],
      (session) => JSON.stringify(viewOutput(session, Number(at(session)))),
    );
    expect(JSON.stringify(JSON.parse(stdout))).toBe(expected);
  });

  it('`log`’s hidden estimates counted ahead are those counted on one thread (real Claude Code and Codex files, the demo)', async () => {
    const files = [join(CC, 'cc-2.1.17-persisted-bash.jsonl'), join(CC, 'cc-2.1.14-two-compactions.jsonl'), join(ROOT, 'e2e/fixtures/real/codex/rollout-0.139-review-cut-output-ENTIRE.jsonl'), DEMO];
    for (const path of files) {
      const loaded = await loadSession([path]);
      if (!loaded.ok) throw new Error(loaded.error.message);
      const session = loaded.session;
      try {
        expect(session.log.length, path).toBeGreaterThan(0);
        const expected = new SessionEstimates(session, recordedContextOf(session)).hiddenEstimates();
        const counter = watched(threadCounter());
        const two = new SessionEstimates(session, recordedContextOf(session));
        await two.countHiddenAhead(counter);
        expect(counter.texts, path).toBeGreaterThan(0);
        expect(two.hiddenEstimates(), path).toEqual(expected);
      } finally {
        session.close();
      }
    }
  });

  it('before this thread verifies and counts a large original, the counter is handed about as much to count', async () => {
    // A compaction's original (the whole view before it) is the log's first, and far larger than the outputs after it.
    const made = generateClaudeTranscript(tmp.dir, { bytes: 12_000_000, seed: 3, outputScale: 0.5, compactEvery: 4_000_000 });
    const loaded = await loadSession([made.path]);
    if (!loaded.ok) throw new Error(loaded.error.message);
    const session = loaded.session;
    try {
      const first = session.log[0]!;
      expect(first.kind).toBe('summarized');
      const plain = new SessionEstimates(session, recordedContextOf(session)).hiddenEstimates();
      const counter = watched(threadCounter());
      let handed = 0;
      const count = counter.countUnlessTaken.bind(counter);
      counter.countUnlessTaken = (texts, claim) => {
        handed += texts.reduce((n, t) => n + t.length, 0);
        return count(texts, claim);
      };
      const two = new SessionEstimates(session, recordedContextOf(session));
      // The compaction's transcript is hashed when this thread resolves its original: what the counter had by then.
      const atHash: number[] = [];
      two.resolveOptions.transcripts = new TranscriptHashes(() => {
        atHash.push(handed);
        return nodeRunningSha256();
      });
      await two.countHiddenAhead(counter);
      expect(atHash.length).toBeGreaterThan(0);
      // More than the batches kept ahead of a small job (4 × 256 Ki characters).
      expect(atHash[0]).toBeGreaterThan(2 * 1024 * 1024);
      expect(two.hiddenEstimates()).toEqual(plain);
    } finally {
      session.close();
    }
  });

  it('an original counted on the thread is what its estimate holds (a counter that answers one more per text), and a failing counter changes nothing', async () => {
    const loaded = await loadSession([DEMO]);
    if (!loaded.ok) throw new Error(loaded.error.message);
    const session = loaded.session;
    try {
      const originals = (e: SessionEstimates) => session.log.map((r) => e.reductionEstimate(r, '').original?.tokens ?? 0).reduce((a, b) => a + b, 0);
      const plain = originals(new SessionEstimates(session));
      const lying = oneMore(threadCounter());
      const told = new SessionEstimates(session);
      await told.countHiddenAhead(lying, undefined, THREAD_GIVEN_ITS_TIME);
      expect(lying.texts).toBeGreaterThan(0);
      expect(originals(told)).toBe(plain + lying.texts);
      const failing: TextCounter = { count: () => Promise.reject(new Error('the counting thread failed')), countUnlessTaken: () => Promise.reject(new Error('the counting thread failed')), close: () => undefined };
      const untold = new SessionEstimates(session);
      await untold.countHiddenAhead(failing);
      expect(untold.hiddenEstimates()).toEqual(new SessionEstimates(session).hiddenEstimates());
    } finally {
      session.close();
    }
  });

  it('`log` of a session over the threshold counts on a thread, and its hidden estimates are those counted on one', async () => {
    const { stdout, expected } = await overThresholdCli(
      (path) => ['log', path],
      (session) => new SessionEstimates(session, recordedContextOf(session)).hiddenEstimates().map((h) => h.hidden),
    );
    expect(expected.length).toBeGreaterThan(0);
    expect((JSON.parse(stdout) as { reductions: { hidden_tokens_est: unknown }[] }).reductions.map((x) => x.hidden_tokens_est)).toEqual(expected);
  });

  it('`diff`’s tokens counted ahead are those counted on one thread (real Claude Code and Codex files, pairs of calls near and far)', async () => {
    // Contents of 512 bytes or more kept in the file: once it is closed, a content still to be counted could not be read.
    const load = async (path: string) => {
      const loaded = await loadSession([path], { largeStringBytes: 512 });
      if (!loaded.ok) throw new Error(loaded.error.message);
      return loaded.session;
    };
    for (const path of [join(CC, 'cc-2.1.14-two-compactions.jsonl'), join(CC, 'cc-2.1.17-persisted-bash.jsonl'), join(ROOT, 'e2e/fixtures/real/codex/rollout-0.139-review-cut-output-ENTIRE.jsonl')]) {
      const one = await load(path);
      try {
        const n = one.calls.length;
        for (const [from, to] of [[1, n], [Math.max(1, n - 1), n], [Math.ceil(n / 2), Math.ceil(n / 2) + 1]] as const) {
          const diff = one.callsDiff(from, to);
          if (!diff) throw new Error(`${path}: no diff of ${from} and ${to}`);
          const expected = diffTokens(one, diff);
          // A session of its own: the estimates are cached per session.
          const two = await load(path);
          const ahead = two.callsDiff(from, to);
          if (!ahead) throw new Error(`${path}: no diff of ${from} and ${to}`);
          const counter = watched(threadCounter());
          const handed = vi.spyOn(SessionEstimates.prototype, 'countAhead');
          const made = diffEntries(two, ahead);
          if (!made) throw new Error(`${path}: no entries of the diff of ${from} and ${to}`);
          await countDiffAhead(two, ahead, made, counter);
          const inputs = handed.mock.calls.flatMap(([given]) => given);
          handed.mockRestore();
          two.close();
          expect(counter.texts, `${path} ${from}→${to}`).toBeGreaterThan(0);
          const asked = vi.spyOn(SessionEstimates.prototype, 'entriesEstimate');
          try {
            // As `diff` counts: with the entries the count ahead was given, and without (made again).
            expect(diffTokens(two, ahead, made), `${path} ${from}→${to}`).toEqual(expected);
            expect(diffTokens(two, ahead), `${path} ${from}→${to}`).toEqual(expected);
            // Every entry the diff estimates was handed ahead (by the estimates' cache key: its view index and reductions).
            const key = (e: ViewEntry) => `${e.index}|${e.reductions.join(',')}`;
            const handedKeys = new Set(inputs.flatMap((i) => i.entries.map(key)));
            for (const [entries] of asked.mock.calls) for (const entry of entries) expect(handedKeys.has(key(entry)), `${path} ${from}→${to}: entry ${key(entry)}`).toBe(true);
          } finally {
            asked.mockRestore();
          }
        }
      } finally {
        one.close();
      }
    }
  });

  it('`diff` of a session over the threshold counts on a thread, and prints what a diff counted on one thread does', async () => {
    const ends = (session: LoadedSession) => [Math.ceil(session.calls.length / 3), session.calls.length] as const;
    const { stdout, expected } = await overThresholdCli(
      (path, session) => ['diff', '--from', String(ends(session)[0]), '--to', String(ends(session)[1]), path],
      async (session) => JSON.stringify(await diffOutput(session, ...ends(session))),
    );
    expect(JSON.stringify(JSON.parse(stdout))).toBe(expected);
  });
});
