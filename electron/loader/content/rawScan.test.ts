import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ScannerCache, byteFrequencies, foldedPattern, makeExactScanner } from './rawScan';

/** The remembered scanners, as a load's services hold them (contentServices.ts). */
const scanners = new ScannerCache();
const exactScanner = (needle: Buffer) => scanners.exactScanner(needle);
const foldedScanner = (query: string) => scanners.foldedScanner(query);

/** Every [start, length) of `needle` in `buf` with start in [from, to), overlapping ones too: the reference. */
function everyExact(buf: Buffer, needle: Buffer, from: number, to: number): [number, number][] {
  const out: [number, number][] = [];
  for (let i = from; i < to && i + needle.length <= buf.length; i++) if (buf.compare(needle, 0, needle.length, i, i + needle.length) === 0) out.push([i, needle.length]);
  return out;
}

/** Every start in [from, to) where the folded pattern matches (bytes read as Latin-1): the reference. */
function everyFolded(buf: Buffer, query: string, from: number, to: number): [number, number][] {
  const sticky = new RegExp(foldedPattern(query).source, 'y');
  const hay = buf.toString('latin1');
  const out: [number, number][] = [];
  for (let i = from; i < to; i++) {
    sticky.lastIndex = i;
    const m = sticky.exec(hay);
    if (m) out.push([i, m[0].length]);
  }
  return out;
}

function scanned(scan: (onHit: (i: number, length: number) => boolean) => boolean): [number, number][] {
  const out: [number, number][] = [];
  scan((i, length) => (out.push([i, length]), true));
  return out;
}

/** Texts from a small alphabet (dense hits: the hand-over to the plain search) or a large one (rare hits). */
const bytesArb = (units: string[]) => fc.array(fc.constantFrom(...units), { maxLength: 3000 }).map((parts) => Buffer.from(parts.join(''), 'utf8'));
/** Any byte frequencies (a scanner's choice of piece follows them; its answers must not). */
const freqArb = fc.option(fc.array(fc.nat(1000), { minLength: 256, maxLength: 256 }).map((counts) => Float64Array.from(counts, (c) => (c + 1) / 1000)), { nil: undefined });
const range = (buf: Buffer) => fc.tuple(fc.nat(buf.length + 2), fc.nat(buf.length + 2)).map(([a, b]) => [Math.min(a, b), Math.max(a, b)] as const);

describe('byteFrequencies', () => {
  it('gives each byte its share of the sample, none zero; nothing for a sample under 4 KiB', () => {
    const sample = Buffer.from('ab'.repeat(4096) + 'Z'.repeat(2048), 'latin1');
    const freq = byteFrequencies(sample);
    expect(freq?.[0x61]).toBeCloseTo(4097 / sample.length);
    expect(freq?.[0x5a]).toBeCloseTo(2049 / sample.length);
    expect(freq?.[0x00]).toBeCloseTo(1 / sample.length);
    expect(byteFrequencies(sample.subarray(0, 4095))).toBeUndefined();
  });
});

describe('rawScan (the rarest byte with memchr, then the needle around it)', () => {
  it('exactScanner reports every occurrence in [from, to), overlapping ones included, in order', () => {
    const units = ['a', 'b', 'Q', 'ab', 'aQ', '\n', 'é', 'xyz'];
    fc.assert(
      fc.property(
        bytesArb(units).chain((buf) => fc.tuple(fc.constant(buf), fc.array(fc.constantFrom(...units), { minLength: 1, maxLength: 6 }).map((p) => Buffer.from(p.join(''))), range(buf), freqArb, fc.integer({ min: -1, max: 20 }))),
        ([buf, needle, [from, to], freq, pieceAt]) => {
          expect(scanned((hit) => exactScanner(needle).scan(buf, from, to, hit))).toEqual(everyExact(buf, needle, from, to));
          const chosen = makeExactScanner(needle, freq);
          expect(scanned((hit) => chosen.scan(buf, from, to, hit))).toEqual(everyExact(buf, needle, from, to));
          // A piece chosen elsewhere (the pool's threads are told the caller's) finds the same; one that does not fit is ignored.
          const told = makeExactScanner(needle, undefined, pieceAt);
          expect(scanned((hit) => told.scan(buf, from, to, hit))).toEqual(everyExact(buf, needle, from, to));
          expect(makeExactScanner(needle, undefined, chosen.pieceAt).pieceAt).toBe(chosen.pieceAt);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('foldedScanner reports every start where the folded query matches, K and ſ included, in order', () => {
    const units = ['a', 'A', 'k', 'K', '\u212A', 's', 'S', '\u017F', 'n', 'N', '-', '7', ' ', 'é', 'x'];
    const queryArb = fc.array(fc.constantFrom('a', 'K', 'k', 's', 'S', 'n', '-', '7', ' ', 'A', 'x'), { minLength: 1, maxLength: 9 }).map((p) => p.join(''));
    fc.assert(
      fc.property(
        bytesArb(units).chain((buf) => fc.tuple(fc.constant(buf), queryArb, range(buf))),
        ([buf, query, [from, to]]) => {
          const scanner = foldedScanner(query);
          expect(scanner).not.toBeNull();
          expect(scanned((hit) => scanner?.scan(buf, from, to, hit) ?? true)).toEqual(everyFolded(buf, query, from, to));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('stops when told to, and hands a dense text over to the plain search with the same hits', () => {
    const buf = Buffer.from('aQ'.repeat(5000));
    const needle = Buffer.from('QaQ');
    expect(scanned((hit) => exactScanner(needle).scan(buf, 0, buf.length, hit))).toEqual(everyExact(buf, needle, 0, buf.length));
    const run = Buffer.from('a'.repeat(1000));
    expect(scanned((hit) => exactScanner(Buffer.from('aa')).scan(run, 0, run.length, hit))).toEqual(everyExact(run, Buffer.from('aa'), 0, run.length));
    let calls = 0;
    expect(exactScanner(needle).scan(buf, 0, buf.length, () => ++calls < 3)).toBe(false);
    expect(calls).toBe(3);
    const folded = foldedScanner('qA') as NonNullable<ReturnType<typeof foldedScanner>>;
    expect(scanned((hit) => folded.scan(buf, 0, buf.length, hit))).toEqual(everyFolded(buf, 'qA', 0, buf.length));
    calls = 0;
    expect(folded.scan(buf, 0, buf.length, () => ++calls < 3)).toBe(false);
    expect(calls).toBe(3);
  });

  it('has no folded scanner outside printable ASCII, and scans a query of only k and s by its pattern', () => {
    expect(foldedScanner('')).toBeNull();
    expect(foldedScanner('é')).toBeNull();
    const buf = Buffer.from('sK \u017F\u212A SK sk', 'utf8');
    expect(scanned((hit) => (foldedScanner('sk') as NonNullable<ReturnType<typeof foldedScanner>>).scan(buf, 0, buf.length, hit))).toEqual(everyFolded(buf, 'sk', 0, buf.length));
  });
});
