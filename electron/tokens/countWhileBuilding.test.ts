/**
 * Contents counted while the session is built (countWhileBuilding.ts, the Claude Code source's
 * guess `contentsBeforeCall`; docs/token-estimates.md "Counted while the session is built"):
 * each estimate is the one counted where it is asked, taken from the side that claimed its batch,
 * and the guess offers what the input asks for.
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { viewEntries } from '../../shared/calls/calls';
import { inSource } from '../../shared/calls/whatIf';
import { isMemorySource, memorySource } from '../../shared/format/bytes';
import { isRangeKind } from '../../shared/format/types';
import { tempDir } from '../../tools/testing/files';
import { countViewAhead, prepareView, viewOutput } from '../cli/view';
import { resolveOriginal } from '../../shared/resolver/original';
import { SessionEstimates, recordedContextOf } from './sessionEstimates';
import { generateClaudeTranscript } from '../loader/claudeCode/testing/generate';
import type { LoadedSession } from '../loader/session';
import { loadSession, nodeSha256 } from '../loader/session';
import { contentPlan, countPlan, countText } from './counter';
import type { OfferedContent } from '../loader/common/source';
import { ContentsCountedAhead } from './countWhileBuilding';
import { CLAIMED_BY_THREAD, TAKEN_HERE } from './textCounter';
import { realCountingThread } from './testing/countingThread';
import { steppedThread } from './testing/steppedThread';
import { agentText } from './testing/agentText';

const ROOT = join(import.meta.dirname, '../..');
const CC = join(ROOT, 'e2e/fixtures/real/claude-code');

const thread = realCountingThread();
const threadCounter = thread.counter;
const tmp = tempDir('session-inspector-count-while-building-');
afterAll(() => {
  thread.close();
  tmp.cleanup();
});

/** Added by the stand-in thread to each count it answers: an estimate it made shows it. */
const THREAD_MARK = 1000;


/**
 * The contents of `specs` as a source offers them: bytes kept in a source, or a text held in memory
 * (`inMemory`), whose equal texts are one content.
 */
function offeredOf(specs: readonly { text: string; inMemory: boolean }[]): OfferedContent[] {
  return specs.map((s) => (s.inMemory ? s.text : memorySource(new TextEncoder().encode(s.text))));
}

const text = fc.oneof(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 400 }), fc.string({ unit: 'binary', minLength: 1, maxLength: 200 }), fc.constantFrom('漢字'.repeat(200), agentText(300_000, 5)));

describe('contents counted while the session is built', () => {
  it('the thread counts a request whose claim is free, taking it, and skips one taken here', async () => {
    const free = new Int32Array(new SharedArrayBuffer(4));
    expect(await threadCounter().countUnlessTaken(['one two', 'three'], free)).toEqual([countText('one two'), countText('three')]);
    expect(Atomics.load(free, 0)).toBe(CLAIMED_BY_THREAD);
    const taken = new Int32Array(new SharedArrayBuffer(4));
    Atomics.store(taken, 0, TAKEN_HERE);
    expect(await threadCounter().countUnlessTaken(['one two'], taken)).toBeUndefined();
    expect(Atomics.load(taken, 0)).toBe(TAKEN_HERE);
  });

  it('any offer, any wanted sources, any order of the two threads: each wanted estimate is the source’s own, from the side that claimed its batch', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ text, wanted: fc.boolean(), inMemory: fc.boolean() }), { minLength: 1, maxLength: 30 }),
        fc.array(fc.constantFrom('thread', 'here'), { maxLength: 40 }),
        fc.boolean(),
        async (specs, schedule, threadFirst) => {
          const sources = offeredOf(specs);
          const thread = steppedThread({ mark: THREAD_MARK });
          const built = new ContentsCountedAhead({ input: null }, thread);
          built.offer(sources);
          // The thread may begin before the input is known.
          if (threadFirst) thread.step();
          const wanted = new Set(sources.filter((_, k) => specs[k]?.wanted));
          built.want(wanted);
          for (const who of schedule) {
            if (who === 'thread') thread.step();
            else built.countOneHere();
          }
          while (thread.step());
          await built.settled();
          // Which request holds each source's texts: the requests hold every source's, in order.
          let request = 0;
          let used = 0;
          const holdsWanted = new Set<number>();
          for (const [k, source] of sources.entries()) {
            // A text equal to one offered before it is that one: offered once, one estimate.
            if (sources.indexOf(source) < k) continue;
            const texts = [...contentPlan(source).texts].length;
            while (used === (thread.requests[request]?.texts.length ?? 0) && request < thread.requests.length) {
              request++;
              used = 0;
            }
            const byThread = thread.requests[request]?.counted === true;
            if (wanted.has(source)) holdsWanted.add(request);
            used += texts;
            expect(built.pending(source)).toBe(false);
            const own = countPlan(contentPlan(source));
            const estimate = built.estimate(source);
            if (!wanted.has(source)) {
              // Dropped or left, unless the thread had begun its batch before the input was known.
              expect(estimate, `source ${k}`).toEqual(byThread ? { ...own, tokens: own.tokens + THREAD_MARK * texts } : undefined);
              continue;
            }
            expect(estimate, `source ${k}`).toEqual(byThread ? { ...own, tokens: own.tokens + THREAD_MARK * texts } : own);
          }
          // A batch of none of the wanted sources, not begun when the input was known, is dropped.
          thread.requests.forEach((r, j) => {
            if (r.counted && !(threadFirst && j === 0)) expect(holdsWanted.has(j), `request ${j}`).toBe(true);
          });
        },
      ),
      { numRuns: 150 },
    );
  });

  it('a thread that begins batches and never answers holds nothing up: each is counted here, its late answer dropped, every wanted estimate the source’s own', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.record({ text, wanted: fc.boolean(), inMemory: fc.boolean() }), { minLength: 1, maxLength: 30 }), fc.array(fc.boolean(), { maxLength: 40 }), async (specs, begun) => {
        const sources = offeredOf(specs);
        const thread = steppedThread({ mark: THREAD_MARK });
        const built = new ContentsCountedAhead({ input: null }, thread);
        built.offer(sources);
        built.want(new Set(sources.filter((_, k) => specs[k]?.wanted)));
        // The thread begins some batches (claims them) and answers none of them.
        const begins = thread.requests.map((_, j) => begun[j] === true);
        thread.begin(begins);
        while (built.countUnansweredHere());
        expect(built.unanswered()).toEqual([]);
        await built.settled();
        thread.answerBegun();
        await built.settled();
        const wanted = new Set(sources.filter((_, k) => specs[k]?.wanted));
        for (const [k, source] of sources.entries()) {
          expect(built.pending(source)).toBe(false);
          expect(built.estimate(source), `source ${k}`).toEqual(wanted.has(source) ? countPlan(contentPlan(source)) : undefined);
        }
      }),
      { numRuns: 150 },
    );
  });

  it('`view --at N` whose thread never answers what it was offered while the session was built prints what a view counted on one thread does', async () => {
    const path = generateClaudeTranscript(tmp.dir, { bytes: 2_000_000, seed: 8, outputScale: 0.25, compactEvery: 600_000 }).path;
    const options = { largeStringBytes: 512, keptStringChars: 256 };
    const plain = await loadSession([path], options);
    if (!plain.ok) throw new Error(plain.error.message);
    const call = Math.ceil(plain.session.calls.length / 2);
    const expected = JSON.stringify(viewOutput(plain.session, call));
    plain.session.close();
    const thread = steppedThread({ mark: THREAD_MARK });
    const built = new ContentsCountedAhead({ input: call }, thread);
    const loaded = await loadSession([path], { ...options, countWhileBuilding: built });
    if (!loaded.ok) throw new Error(loaded.error.message);
    const session = loaded.session;
    try {
      // Every batch offered while the session was built is begun, and none is answered.
      thread.begin(thread.requests.map(() => true));
      expect(thread.requests.length).toBeGreaterThan(0);
      const prepared = prepareView(session, call);
      if (!prepared) throw new Error(`no input at call ${call}`);
      await countViewAhead(session, prepared, thread, built, { helpAfterMs: 5 });
      // Taken back and counted here: what the input shows, and what it calls and thinks, all asked for.
      const besides = besidesAt(session, call).filter((t) => t !== '');
      expect(besides.length).toBeGreaterThan(10);
      expect(besides.filter((t) => built.estimate(t) === undefined)).toEqual([]);
      expect(JSON.stringify(viewOutput(session, call, undefined, { prepared }))).toBe(expected);
    } finally {
      session.close();
    }
  });

  /** Loads `path` with texts of 256 characters or more left in the file, telling `call` to the source; returns what it offered. */
  async function offeredAt(path: string, call: number | null, maxBytes = Number.POSITIVE_INFINITY): Promise<{ session: LoadedSession; offered: readonly OfferedContent[] }> {
    let offered: readonly OfferedContent[] | undefined;
    const loaded = await loadSession([path], { largeStringBytes: 512, keptStringChars: 256, countWhileBuilding: { wants: { input: call }, maxBytes, offer: (sources) => (offered = sources) } });
    if (!loaded.ok) throw new Error(loaded.error.message);
    if (!offered) throw new Error(`${path}: nothing was offered before the build`);
    return { session: loaded.session, offered };
  }

  /** What call `call`'s input counts of its shown contents: the source each is read from, or its text held in memory. */
  function askedAt(session: LoadedSession, call: number | null): OfferedContent[] {
    const input = session.callInput(call);
    if (!input) throw new Error(`no input at call ${call}`);
    return viewEntries(input).map((e) => inSource(e, input.minted) ?? e.content);
  }

  /** The texts call `call`'s input counts besides its contents: each tool call's name and arguments, and the thinking an assistant message keeps. */
  function besidesAt(session: LoadedSession, call: number | null): string[] {
    const input = session.callInput(call)!;
    return viewEntries(input).flatMap((e) => {
      const thinking = e.role === 'assistant' && e.reductions.length === 0 ? input.minted.at(e.index)?.metadata?.thinking : undefined;
      return [...(e.tool_calls ?? []).flatMap((c) => [c.name, c.arguments]), ...(typeof thinking === 'string' ? [thinking] : [])];
    });
  }

  it('a Claude Code transcript offers the contents the call’s input shows, newest first, within the bytes asked', async () => {
    const generated = generateClaudeTranscript(tmp.dir, { bytes: 3_000_000, seed: 3, outputScale: 0.25, compactEvery: 700_000 });
    // A subagent's own file (every record a sidechain) is read as its main conversation, as the build reads it.
    const subagent = join(CC, 'cc-2.1.17-subagent/29ccd257-68b1-427f-ae5f-6524b7cb6f20/subagents/agent-a2271d1.jsonl');
    const files = [generated.path, join(CC, 'cc-2.1.14-two-compactions.jsonl'), join(CC, 'cc-2.1.17-microcompactions-then-compact.jsonl'), join(CC, 'cc-2.1.17-persisted-bash.jsonl'), subagent];
    expect(generated.compactions).toBeGreaterThan(2);
    let hiddenTextsSeen = 0;
    for (const path of files) {
      const first = await offeredAt(path, null);
      const n = first.session.calls.length;
      first.session.close();
      for (const call of [1, Math.ceil(n / 2), n, null]) {
        const { session, offered } = await offeredAt(path, call);
        try {
          const asked = askedAt(session, call);
          const hits = asked.filter((a) => offered.includes(a));
          // A result held as several text blocks is read through a source joined by the build: not offered.
          const askedSources = asked.filter((a) => typeof a !== 'string');
          expect(askedSources.filter((a) => offered.includes(a)).length, `${path} at ${call}`).toBeGreaterThanOrEqual(Math.floor(askedSources.length * 0.9));
          // So is a text held in memory that the input shows whole (no stub in its place), but one joined from several blocks.
          const input = session.callInput(call)!;
          const shownWhole = viewEntries(input).flatMap((e) => (inSource(e, input.minted) || e.reductions.length > 0 || e.content === '' ? [] : [e.content]));
          expect(shownWhole.filter((t) => offered.includes(t)).length, `${path} at ${call}`).toBeGreaterThanOrEqual(Math.floor(shownWhole.length * 0.9));
          // In the generated session every one is, its results of several text blocks too (offered as the text the build joins them into).
          if (path === generated.path) expect([...askedSources, ...shownWhole].filter((a) => !offered.includes(a)), `${path} at ${call}`).toEqual([]);
          // Newest first: the asked ones appear in the offer in the opposite order of the view.
          // An equal text is offered once, where the newest record holds it: the view's last showing it.
          const order = hits.filter((a, k) => hits.lastIndexOf(a) === k).map((a) => offered.indexOf(a));
          expect(order, `${path} at ${call}`).toEqual([...order].sort((x, y) => y - x));
          expect(new Set(offered).size).toBe(offered.length);
          // Nothing the input shows as a stub: no original of a tool result it shows cleared or cut, kept in the file or held in memory.
          const hidden = input.log.filter((r) => !isRangeKind(r.kind)).flatMap((r) => {
            const original = resolveOriginal(r, input.minted, session.recorded);
            return original.ok ? [original.value.bytes] : [];
          });
          expect(hidden.filter((h) => offered.includes(h)), `${path} at ${call}`).toEqual([]);
          const hiddenTexts = hidden.filter(isMemorySource).map((h) => new TextDecoder().decode(h.read(0, h.length)));
          hiddenTextsSeen += hiddenTexts.length;
          expect(hiddenTexts.filter((t) => offered.includes(t)), `${path} at ${call}`).toEqual([]);
          // So is what it calls and thinks.
          const besides = besidesAt(session, call).filter((t) => t !== '');
          expect(besides.filter((t) => offered.includes(t)).length, `${path} at ${call}`).toBeGreaterThanOrEqual(Math.floor(besides.length * 0.9));
          // Nor what came before the call's last compaction: a few texts of records the input does not show at most.
          const notAsked = offered.filter((o) => !asked.includes(o) && !besides.includes(o as string));
          expect(notAsked.length, `${path} at ${call}`).toBeLessThanOrEqual(2);
          // The generated session's results of several text blocks are offered as the text the build joins, not piece by piece.
          if (path === generated.path) expect(notAsked, `${path} at ${call}`).toEqual([]);
        } finally {
          session.close();
        }
      }
      // A call past the file's offers nothing (the command answers that it is out of range).
      const past = await offeredAt(path, n + 1);
      past.session.close();
      expect(past.offered, `${path} at ${n + 1}`).toEqual([]);
      // Within the bytes asked: the offer stops at the first source past them.
      const { session, offered: all } = await offeredAt(path, null);
      session.close();
      const total = all.reduce((n, s) => n + s.length, 0);
      if (all.length < 2) continue;
      const maxBytes = Math.floor(total / 2);
      const { session: again, offered: some } = await offeredAt(path, null, maxBytes);
      again.close();
      expect(some.length).toBeLessThan(all.length);
      expect(some.reduce((n, s) => n + s.length, 0) - (some.at(-1)?.length ?? 0)).toBeLessThan(maxBytes);
      expect(some.reduce((n, s) => n + s.length, 0)).toBeGreaterThanOrEqual(maxBytes);
    }
    // The cleared results held in memory were looked for in the offer.
    expect(hiddenTextsSeen).toBeGreaterThan(0);
  });

  it('a call’s input is offered as soon as the pass meets the call, before the rest of the file is read; the latest view’s after the pass', async () => {
    const path = generateClaudeTranscript(tmp.dir, { bytes: 4_000_000, seed: 5, outputScale: 0.25, compactEvery: 1_000_000 }).path;
    const size = statSync(path).size;
    const first = await offeredAt(path, null);
    const n = first.session.calls.length;
    first.session.close();
    const readWhenOffered = async (call: number | null): Promise<{ read: number; offered: number }> => {
      let read = 0;
      let when: { read: number; offered: number } | undefined;
      const loaded = await loadSession([path], {
        largeStringBytes: 512,
        keptStringChars: 256,
        chunkSize: 64 * 1024,
        onProgress: (p) => (read = p.bytesRead),
        countWhileBuilding: { wants: { input: call }, maxBytes: Number.POSITIVE_INFINITY, offer: (sources) => (when = { read, offered: sources.length }) },
      });
      if (!loaded.ok) throw new Error(loaded.error.message);
      loaded.session.close();
      if (!when) throw new Error(`nothing offered at ${call}`);
      return when;
    };
    const early = await readWhenOffered(Math.ceil(n / 4));
    expect(early.offered).toBeGreaterThan(0);
    expect(early.read).toBeLessThan(size / 2);
    // The latest view's input is known only at the file's end (progress is told at most every MiB).
    expect((await readWhenOffered(null)).read).toBeGreaterThan(size - 1024 * 1024);
  });

  it('`view --at N` with contents counted while the session was built prints what a view counted on one thread does', async () => {
    const path = generateClaudeTranscript(tmp.dir, { bytes: 2_000_000, seed: 8, outputScale: 0.25, compactEvery: 600_000 }).path;
    const options = { largeStringBytes: 512, keptStringChars: 256 };
    const plain = await loadSession([path], options);
    if (!plain.ok) throw new Error(plain.error.message);
    const n = plain.session.calls.length;
    try {
      for (const call of [Math.ceil(n / 2), n]) {
        const expected = JSON.stringify(viewOutput(plain.session, call));
        const built = new ContentsCountedAhead({ input: call }, threadCounter());
        const loaded = await loadSession([path], { ...options, countWhileBuilding: built });
        if (!loaded.ok) throw new Error(loaded.error.message);
        const session = loaded.session;
        try {
          const prepared = prepareView(session, call);
          if (!prepared) throw new Error(`no input at call ${call}`);
          await countViewAhead(session, prepared, threadCounter(), built);
          // Most of what the input reads from the file was counted while it was built.
          const asked = askedAt(session, call);
          expect(asked.filter((s) => built.estimate(s) !== undefined).length, `call ${call}`).toBeGreaterThan(asked.length / 2);
          expect(JSON.stringify(viewOutput(session, call, undefined, { prepared })), `call ${call}`).toBe(expected);
        } finally {
          session.close();
        }
      }
    } finally {
      plain.session.close();
    }
  });

  it('for `log`, a Claude Code transcript offers the originals of what its microcompactions cleared, and the hidden estimates are those counted on one thread', async () => {
    const path = join(CC, 'cc-2.1.17-microcompactions-then-compact.jsonl');
    const options = { largeStringBytes: 512, keptStringChars: 256 };
    const plain = await loadSession([path], options);
    if (!plain.ok) throw new Error(plain.error.message);
    const expected = JSON.stringify(new SessionEstimates(plain.session, recordedContextOf(plain.session)).hiddenEstimates());
    plain.session.close();
    const offered: OfferedContent[] = [];
    const built = new ContentsCountedAhead('hidden', threadCounter());
    const loaded = await loadSession([path], {
      ...options,
      countWhileBuilding: {
        wants: built.wants,
        maxBytes: built.maxBytes,
        offer: (sources) => {
          offered.push(...sources);
          built.offer(sources);
        },
      },
    });
    if (!loaded.ok) throw new Error(loaded.error.message);
    const session = loaded.session;
    try {
      // Each offered source is the original of a cleared output, and each such original kept in the file is offered.
      const elided = session.log.filter((r) => r.kind === 'tool_output_elided');
      const originals = elided.flatMap((r) => {
        const original = resolveOriginal(r, session.minted, session.recorded, { sha256: nodeSha256 });
        return original.ok ? [original.value.bytes] : [];
      });
      const inFile = originals.filter((o) => !isMemorySource(o));
      expect(inFile.length).toBeGreaterThan(10);
      expect(new Set(offered)).toEqual(new Set(inFile));
      // The same objects, not only equal ones: an estimate is found by its source.
      expect(offered.length).toBe(new Set(inFile).size);
      expect(inFile.every((o) => offered.includes(o))).toBe(true);
      const estimates = new SessionEstimates(session, recordedContextOf(session));
      await estimates.countHiddenAhead(threadCounter(), built);
      expect(inFile.every((o) => built.estimate(o) !== undefined)).toBe(true);
      expect(JSON.stringify(estimates.hiddenEstimates())).toBe(expected);
    } finally {
      session.close();
    }
  });

  it('for `log`, what each microcompaction cleared is offered as the pass meets its boundary, within the bytes asked', async () => {
    const made = generateClaudeTranscript(tmp.dir, { bytes: 12_000_000, seed: 11, outputScale: 0.25, compactEvery: 4_000_000 });
    expect(made.microcompactions).toBeGreaterThan(3);
    const size = statSync(made.path).size;
    const offerAll = async (maxBytes: number): Promise<{ read: number; sources: readonly OfferedContent[] }[]> => {
      let read = 0;
      const offers: { read: number; sources: readonly OfferedContent[] }[] = [];
      const loaded = await loadSession([made.path], {
        largeStringBytes: 512,
        keptStringChars: 256,
        chunkSize: 64 * 1024,
        onProgress: (p) => (read = p.bytesRead),
        countWhileBuilding: { wants: 'hidden', maxBytes, offer: (sources) => offers.push({ read, sources }) },
      });
      if (!loaded.ok) throw new Error(loaded.error.message);
      loaded.session.close();
      return offers;
    };
    const offers = await offerAll(Number.POSITIVE_INFINITY);
    // One offer per boundary met: the first while most of the file is still to be read.
    expect(offers.length).toBeGreaterThan(3);
    expect(offers[0]!.read).toBeLessThan(size / 2);
    const all = offers.flatMap((o) => o.sources);
    expect(new Set(all).size).toBe(all.length);
    // Within a bound: stops at the first offer that reaches it.
    const maxBytes = all.reduce((n, s) => n + s.length, 0) / 3;
    const some = (await offerAll(maxBytes)).flatMap((o) => o.sources);
    expect(some.length).toBeLessThan(all.length);
    expect(some.reduce((n, s) => n + s.length, 0) - (some.at(-1)?.length ?? 0)).toBeLessThan(maxBytes);
    expect(some.reduce((n, s) => n + s.length, 0)).toBeGreaterThanOrEqual(maxBytes);
  });
});
