/**
 * A compaction's transcript hash is made when something first reads it, not at the build
 * (docs/streaming-import.md "Hashes made when read").
 */
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { ContentUnavailableError } from '../../../shared/index';
import type { Reduction } from '../../../shared/index';
import { resolveOriginal } from '../../../shared/resolver/original';
import { logReport } from '../../../shared/resolver/status';
import { tempDir } from '../../../tools/testing/files';
import { prepareView, viewOutput } from '../../cli/view';
import { lazyHashPtr } from '../content/largeStrings';
import { loadSession } from '../session';
import { generateClaudeTranscript } from './testing/generate';

const tmp = tempDir();
afterAll(() => tmp.cleanup());

/** Whether `r`'s hash is still to be made (an accessor, not a value). */
const unmade = (r: Reduction): boolean => Object.getOwnPropertyDescriptor(r.ptr, 'hash')?.get !== undefined;

describe("a compaction's transcript hash, made when first read", () => {
  it('is made once, on its first read, and then is an own value that JSON and clones carry in its place', () => {
    fc.assert(
      fc.property(fc.nat(), fc.nat(), fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: 64, maxLength: 64 }), fc.boolean(), (index, bytes, hex, assignFirst) => {
        let made = 0;
        const ptr = lazyHashPtr(index, bytes, () => {
          made++;
          return `sha256:${hex}`;
        });
        expect(made).toBe(0);
        if (assignFirst) {
          // A value set before any read replaces the one to be made, which is then never made.
          ptr.hash = 'sha256:set';
          expect(ptr.hash).toBe('sha256:set');
          expect(made).toBe(0);
          return;
        }
        expect(JSON.stringify(ptr)).toBe(JSON.stringify({ index, hash: `sha256:${hex}`, bytes }));
        expect(structuredClone(ptr)).toEqual({ index, hash: `sha256:${hex}`, bytes });
        expect({ ...ptr }).toEqual({ index, hash: `sha256:${hex}`, bytes });
        expect(made).toBe(1);
        expect(Object.getOwnPropertyDescriptor(ptr, 'hash')).toEqual({ value: `sha256:${hex}`, enumerable: true, writable: true, configurable: true });
      }),
      { numRuns: 200 },
    );
  });

  it('`view` leaves every compaction of a session unhashed; resolved, each is given its transcript’s hash, the importer’s own; kept past the close, and one never read cannot be made then', async () => {
    const path = generateClaudeTranscript(tmp.dir, { bytes: 2_000_000, seed: 12, outputScale: 0.25, compactEvery: 500_000 }).path;
    const options = { largeStringBytes: 512, keptStringChars: 256 };
    const [resolved, read, unread] = await Promise.all([loadSession([path], options), loadSession([path], options), loadSession([path], options)]);
    if (!resolved.ok || !read.ok || !unread.ok) throw new Error('expected the session to load');
    const summarized = (log: readonly Reduction[]) => log.filter((r) => r.kind === 'summarized');
    expect(summarized(resolved.session.log)).toHaveLength(1);
    try {
      const session = resolved.session;
      for (const call of [1, Math.ceil(session.calls.length / 2), session.calls.length]) {
        const prepared = prepareView(session, call);
        if (!prepared) throw new Error(`no input at call ${call}`);
        expect((viewOutput(session, call, undefined, { prepared }) as { call: number }).call).toBe(call);
      }
      expect(summarized(session.log).every(unmade)).toBe(true);
      const byImporter = summarized(read.session.log).map((r) => r.ptr.hash);
      for (const [k, r] of summarized(session.log).entries()) {
        // The resolver hashes the transcript it builds itself, and gives the pointer that hash.
        const original = resolveOriginal(r, session.minted, session.recorded);
        expect(original.ok, r.id).toBe(true);
        expect(unmade(r)).toBe(false);
        expect(r.ptr.hash).toMatch(/^sha256:[0-9a-f]{64}$/);
        // The same hash the importer makes from its own measure of the transcript.
        expect(r.ptr.hash).toBe(byImporter[k]);
        // A pointer whose hash is already made is verified against the bytes, as any other.
        const made = { ...r, ptr: lazyHashPtr(r.ptr.index, r.ptr.bytes ?? 0, () => `sha256:${'0'.repeat(64)}`) };
        expect(made.ptr.hash).toBe(`sha256:${'0'.repeat(64)}`);
        const mismatch = resolveOriginal(made, session.minted, session.recorded);
        expect(mismatch.ok ? undefined : mismatch.error.code).toBe('hash_mismatch');
        // One not made is given the bytes' hash: what it would have made is never asked.
        const given = { ...r, ptr: lazyHashPtr(r.ptr.index, r.ptr.bytes ?? 0, () => `sha256:${'0'.repeat(64)}`) };
        expect(resolveOriginal(given, session.minted, session.recorded).ok).toBe(true);
        expect(given.ptr.hash).toBe(r.ptr.hash);
      }
    } finally {
      resolved.session.close();
      read.session.close();
      unread.session.close();
    }
    for (const r of summarized(resolved.session.log)) expect(r.ptr.hash).toMatch(/^sha256:[0-9a-f]{64}$/);
    for (const r of summarized(unread.session.log)) expect(() => r.ptr.hash).toThrow(ContentUnavailableError);
  });

  it('is made by the resolve when `search` or `log` reads the transcript, never asked apart first (which would read and hash it twice)', async () => {
    const path = generateClaudeTranscript(tmp.dir, { bytes: 1_000_000, seed: 5, outputScale: 0.25, compactEvery: 300_000 }).path;
    const options = { largeStringBytes: 512, keptStringChars: 256 };
    for (const read of ['search', 'log'] as const) {
      const loaded = await loadSession([path], options);
      if (!loaded.ok) throw new Error('expected the session to load');
      const { session } = loaded;
      try {
        const [r] = session.log.filter((x) => x.kind === 'summarized');
        if (!r) throw new Error('expected a compaction');
        // Its hash as the importer would make it, counted: the resolve must not need it.
        let asked = 0;
        (r as { ptr: Reduction['ptr'] }).ptr = lazyHashPtr(r.ptr.index, r.ptr.bytes ?? 0, () => {
          asked++;
          return `sha256:${'0'.repeat(64)}`;
        });
        if (read === 'search') {
          const found = session.search('a', { max_matches: 1 });
          if (!found.ok) throw new Error(found.error.message);
          expect(found.value.total_matches).toBeGreaterThan(0);
        } else {
          const entry = logReport(session.log, session.minted, session.recorded).find((e) => e.id === r.id);
          expect(entry?.status).toBe('verified');
          expect(entry?.hash_origin).toBe('import');
        }
        expect(asked, read).toBe(0);
        expect(unmade(r)).toBe(false);
        expect(r.ptr.hash).toMatch(/^sha256:[0-9a-f]{64}$/);
      } finally {
        session.close();
      }
    }
    // Once its file can no longer be read, `log` says so of a compaction not yet hashed (it threw).
    const loaded = await loadSession([path], options);
    if (!loaded.ok) throw new Error('expected the session to load');
    loaded.session.close();
    const [r] = loaded.session.log.filter((x) => x.kind === 'summarized');
    if (!r) throw new Error('expected a compaction');
    expect(unmade(r)).toBe(true);
    const entry = logReport(loaded.session.log, loaded.session.minted, loaded.session.recorded).find((e) => e.id === r.id);
    expect(entry?.status).toBe('address_out_of_range');
  });
});
