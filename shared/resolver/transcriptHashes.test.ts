/**
 * Transcript hashes kept between resolves (transcriptHashes.ts): resolving ranges with them gives
 * what resolving without them gives, whatever the ranges and their order, and nested ranges of one
 * start hash each byte once.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../format/hash';
import type { ChatMessage, Reduction } from '../format/types';
import { utf8Encode } from '../format/utf8';
import { assistant, makeReduction, tool, user } from '../testing/builders';
import { resolveOriginal, transcriptOf } from './original';
import { arrayList } from './session';
import type { RunningSha256 } from './transcriptHashes';
import { TranscriptHashes } from './transcriptHashes';

/** A running hash over the portable SHA-256: it keeps what it was fed (tests only). */
function runningSha256(fed: Uint8Array[] = []): RunningSha256 {
  return {
    update: (bytes) => void fed.push(Uint8Array.from(bytes)),
    copy: () => runningSha256([...fed]),
    digestHex: () => sha256Hex(fed),
  };
}

const message = fc.oneof(
  fc.string({ maxLength: 40 }).map(user),
  fc.string({ maxLength: 40 }).map((s) => assistant(s)),
  fc.tuple(fc.string({ maxLength: 200 }), fc.string({ minLength: 1, maxLength: 5 })).map(([s, id]) => tool(s, id)),
);

/** A range reduction over `[start, end)` of `view`, its hash right or (when `wrong`) that of other bytes. */
function rangeOver(view: readonly ChatMessage[], start: number, end: number, wrong: boolean, k: number): Reduction {
  const r = makeReduction(view, { id: `s${k}`, kind: 'summarized', index: start, end, group: `g${k}` });
  return wrong ? { ...r, ptr: { ...r.ptr, hash: `sha256:${sha256Hex([utf8Encode(`not the transcript ${k}`)])}` } } : r;
}

describe('TranscriptHashes', () => {
  it('resolving any ranges in any order with the kept hashes answers as without them: the same original, or the same mismatch', () => {
    fc.assert(
      fc.property(
        fc.array(message, { minLength: 1, maxLength: 30 }),
        fc.array(fc.tuple(fc.nat(3), fc.nat(30), fc.boolean()), { minLength: 1, maxLength: 12 }),
        (view, asks) => {
          const list = arrayList(view);
          const transcripts = new TranscriptHashes(() => runningSha256());
          asks.forEach(([s, e, wrong], k) => {
            const start = Math.min(s, view.length - 1);
            const end = Math.max(start + 1, Math.min(e, view.length));
            const r = rangeOver(view, start, end, wrong, k);
            const kept = resolveOriginal(r, list, undefined, { transcripts });
            const whole = resolveOriginal(r, list, undefined);
            expect(kept.ok).toBe(whole.ok);
            if (kept.ok && whole.ok) {
              expect(kept.value.mintedLength).toBe(whole.value.mintedLength);
              expect(kept.value.messages.map((m) => m.index)).toEqual(whole.value.messages.map((m) => m.index));
            } else {
              expect(kept).toEqual(whole);
            }
          });
        },
      ),
    );
  });

  it('nested ranges of one start, resolved widening, hash each byte of the widest transcript once; another list is hashed whole', () => {
    const view = Array.from({ length: 40 }, (_, k) => (k % 3 === 2 ? tool(`output ${k} `.repeat(50), `c${k}`) : k % 3 === 0 ? user(`prompt ${k}`) : assistant(`answer ${k}`)));
    const list = arrayList(view);
    const transcripts = new TranscriptHashes(() => runningSha256());
    const ends = [5, 12, 20, 33, 40];
    for (const [k, end] of ends.entries()) expect(resolveOriginal(rangeOver(view, 0, end, false, k), list, undefined, { transcripts }).ok).toBe(true);
    const widest = utf8Encode(transcriptOf(view.map((m) => ({ minted: m, content: m.content })))).length;
    expect(transcripts.hashedBytes).toBe(widest);
    // The same messages as new objects (a list read again from its file): nothing kept applies.
    const copies = view.map((m) => ({ ...m }));
    expect(resolveOriginal(rangeOver(copies, 0, 20, false, 9), arrayList(copies), undefined, { transcripts }).ok).toBe(true);
    expect(transcripts.hashedBytes).toBe(widest + utf8Encode(transcriptOf(copies.slice(0, 20).map((m) => ({ minted: m, content: m.content })))).length);
  });
});
