/**
 * `mergeLibraryReply`: while one listing runs, the page's replies and pushes interleave, and a
 * reply made earlier may arrive later. Whatever order the replies of one listing arrive in, what
 * the page shows never goes back: progress counts only rise, a row heard stays, a row whose counts
 * are in stays indexed; a complete reply is taken as it is.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ResultOf } from './contract';
import { byLibraryOrder, mergeLibraryReply } from './libraryOrder';

type Reply = ResultOf<'library'>;
type Row = Reply['sessions'][number];

function row(k: number, indexed: boolean): Row {
  return { file: `p/s${k}.jsonl`, root: '0', format: 'claude-code', title: `session ${k}`, project: null, started: '2026-01-01T00:00:00.000Z', updated: new Date(Date.UTC(2026, 0, 1) + k * 60_000).toISOString(), bytes: 100 + k, messages: indexed ? 4 : null, calls: indexed ? 2 : null, reductions: indexed ? 0 : null, compactions: indexed ? 0 : null, tokens: null, live: false, indexed };
}

/** The host's replies during one listing of `files` files: at step t, the first found[t] files are found and the first indexed[t] of them indexed. */
function listing(files: number, steps: number[]): Reply[] {
  const states = [...steps].sort((a, b) => a - b);
  return states.map((at, t) => {
    const found = Math.min(files, at + 1);
    const indexed = Math.min(found, t === states.length - 1 ? found : at);
    const sessions = Array.from({ length: found }, (_, k) => row(k, k < indexed)).sort(byLibraryOrder);
    return { roots: [{ id: '0', path: '/h', agent: 'claude-code', exists: true, sessions: found }], sessions, more: 0, samples: false, complete: false, progress: { found, indexed, listing: 1 } };
  });
}

describe('mergeLibraryReply', () => {
  it('replies of one listing arriving in any order: progress never falls, no row heard goes, no indexed row goes back to its head', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 30 }), fc.array(fc.integer({ min: 0, max: 30 }), { minLength: 1, maxLength: 12 }), fc.infiniteStream(fc.nat()), (files, steps, picks) => {
        const replies = listing(files, steps);
        // Arrival order: a permutation of the replies.
        const pending = [...replies];
        const order: Reply[] = [];
        const pick = picks[Symbol.iterator]();
        while (pending.length > 0) order.push(pending.splice((pick.next().value as number) % pending.length, 1)[0] as Reply);
        let held: Reply | null = null;
        for (const reply of order) {
          const before = held;
          held = mergeLibraryReply(held, reply);
          if (before?.progress && held.progress) {
            expect(held.progress.indexed).toBeGreaterThanOrEqual(before.progress.indexed);
            expect(held.progress.found).toBeGreaterThanOrEqual(before.progress.found);
          }
          const now = new Map(held.sessions.map((r) => [r.file, r]));
          for (const r of before?.sessions ?? []) {
            expect(now.has(r.file)).toBe(true);
            if (r.indexed) expect(now.get(r.file)?.indexed).toBe(true);
          }
          expect([...held.sessions].sort(byLibraryOrder)).toEqual(held.sessions);
        }
        // Having heard every reply, the page holds the latest state, whatever the order.
        const last = replies[replies.length - 1] as Reply;
        expect(held?.progress).toEqual(last.progress);
        expect(held?.sessions).toEqual(last.sessions);
      }),
    );
  });

  it('a complete reply of the listing ends it; a late unfinished reply of it, or one of an earlier listing, is dropped; a later listing starts again', () => {
    const running = listing(5, [2, 3])[1] as Reply;
    const done: Reply = { ...running, sessions: [row(0, true)], complete: true, progress: { found: 1, indexed: 1, listing: 1 } };
    expect(mergeLibraryReply(running, done)).toEqual(done);
    // Asked before the end was pushed, answered after it.
    expect(mergeLibraryReply(done, running)).toBe(done);
    const next: Reply = { ...running, sessions: [], progress: { found: 0, indexed: 0, listing: 2 } };
    expect(mergeLibraryReply(done, next)).toEqual(next);
    // An answer about listing 1 after listing 2 started.
    expect(mergeLibraryReply(next, done)).toBe(next);
  });
});
