/**
 * A line scanned while its bytes are in memory (docs/large-lines.md "How a line is read"): what its
 * record's reader asks of a large value at once — whether it begins with a tag, or the whole value
 * where it must be a string — is answered from those bytes, not by reading the file again, and
 * answers as the value itself does.
 */
import fc from 'fast-check';
import { closeSync, mkdtempSync, openSync, readSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReadSync } from '../common/lines';
import { createContentServices } from './contentServices';
import { scanTakenLine } from './largeStrings';

/** Strings of ASCII, escapes JSON.stringify writes (newline, quote, backslash, a control character), multi-byte characters and pairs. */
const piece = fc.constantFrom('a', 'bc', 'é', '😀', '✓', '\n', '"', '\\', '\u0001', '\t', '<', 'persisted-output>');
const value = fc.array(piece, { minLength: 1, maxLength: 60 }).map((a) => a.join(''));

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'scanned-line-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let n = 0;
/**
 * `record` written as one line, its bytes handed to the scan in memory (as the pass hands a line),
 * with values from `minRaw` raw bytes cut out; `reads` counts the file's reads after the scan.
 */
function scanned(record: Record<string, unknown>, minRaw: number) {
  const line = Buffer.from(JSON.stringify(record), 'utf8');
  const path = join(dir, `line-${n++}.jsonl`);
  writeFileSync(path, Buffer.concat([line, Buffer.from('\n')]));
  const fd = openSync(path, 'r');
  const counter = { reads: 0 };
  const read: ReadSync = (f, buffer, offset, length, position) => {
    counter.reads++;
    return readSync(f, buffer, offset, length, position);
  };
  const scan = scanTakenLine(fd, read, { bytes: line, offset: 0 }, line.length, minRaw, () => true, createContentServices());
  if (!scan) throw new Error('the line holds no large value');
  counter.reads = 0;
  return { scan, counter, close: () => closeSync(fd) };
}

describe('a line scanned in memory', () => {
  it('answers whether a large value begins with a prefix as the value does, without reading the file for a short prefix', () => {
    fc.assert(
      fc.property(value, value, fc.nat(40), (head, tail, cut) => {
        // Long enough to be cut out whatever the head: the tail repeated.
        const v = head + tail.repeat(Math.ceil(200 / tail.length));
        const { scan, counter, close } = scanned({ type: 'user', text: v }, 64);
        try {
          const rest = JSON.parse(scan.rest) as { text: string };
          const text = scan.large.of(rest.text);
          if (!text) throw new Error('the value was not cut out');
          const prefixes = [v.slice(0, cut), v.slice(0, 1), `${v.slice(0, cut)}x`, 'zz', '<persisted-output>'];
          for (const p of prefixes) {
            const before = counter.reads;
            expect(text.startsWith(p)).toBe(v.startsWith(p));
            // Up to 16 UTF-16 units are always within the head (32 units, or all that 128 raw bytes decode to: at least 21).
            if (p.length <= 16) expect(counter.reads).toBe(before);
          }
          expect(text.text()).toBe(v);
        } finally {
          close();
        }
      }),
      { numRuns: 300 },
    );
  });

  it('gives a large value that must be a string as the string, decoded from the line, not read from the file', () => {
    fc.assert(
      fc.property(value, value, (a, b) => {
        const input = a.repeat(Math.ceil(150 / a.length));
        const thinking = b.repeat(Math.ceil(300 / b.length));
        const { scan, counter, close } = scanned({ type: 'assistant', input: { command: input }, thinking }, 64);
        try {
          const record = JSON.parse(scan.rest) as Record<string, unknown>;
          scan.large.materialize(record);
          expect(record).toEqual({ type: 'assistant', input: { command: input }, thinking });
          expect(counter.reads).toBe(0);
          // Once the record is parsed, the line's bytes are let go: a value read whole later is read from the file.
          const again = JSON.parse(scan.rest) as Record<string, unknown>;
          scan.large.release();
          scan.large.materialize(again);
          expect(again).toEqual(record);
          expect(counter.reads).toBeGreaterThan(0);
        } finally {
          close();
        }
      }),
      { numRuns: 200 },
    );
  });

  it('cuts out no value written with a surrogate\'s escape (a lone one, or a pair written escaped), and any other', () => {
    fc.assert(
      fc.property(value, fc.constantFrom('\uD800', '\uDC00', 'x\uDBFF', null), fc.boolean(), (v, lone, pair) => {
        const long = v.repeat(Math.ceil(200 / v.length));
        // JSON.stringify escapes a lone surrogate and writes a pair as is; a pair escaped is hand-written.
        const text = lone === null ? long : `${long}${lone}`;
        const line = JSON.stringify({ type: 'user', text }).replace('😀', pair ? '\\ud83d\\ude00' : '😀');
        const record = JSON.parse(line) as { text: string };
        const escapedPair = pair && long.includes('😀');
        const path = join(dir, `line-${n++}.jsonl`);
        writeFileSync(path, `${line}\n`);
        const fd = openSync(path, 'r');
        try {
          const bytes = Buffer.from(line, 'utf8');
          const scan = scanTakenLine(fd, readSync, { bytes, offset: 0 }, bytes.length, 64, () => true, createContentServices());
          if (lone !== null || escapedPair) expect(scan).toBeUndefined();
          else {
            const kept = scan?.large.of((JSON.parse(scan.rest) as { text: string }).text);
            expect(kept?.text()).toBe(record.text);
          }
        } finally {
          closeSync(fd);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('cuts out a value holding a backslash and a u as text (no escape of a surrogate)', () => {
    const { scan, close } = scanned({ type: 'user', text: `${'a'.repeat(100)}\\ud800 is written so` }, 64);
    try {
      expect(scan.large.of((JSON.parse(scan.rest) as { text: string }).text)?.text()).toBe(`${'a'.repeat(100)}\\ud800 is written so`);
    } finally {
      close();
    }
  });

  it('reads past keys written with escapes (a quote, a backslash) to the values after them', () => {
    const record = { 'k"1': 'a'.repeat(100), 'k\\2': { 'k\\"3': 'b'.repeat(100) }, plain: 'c'.repeat(100) };
    const { scan, close } = scanned(record, 64);
    try {
      const rest = JSON.parse(scan.rest) as Record<string, unknown>;
      expect(Object.keys(rest)).toEqual(Object.keys(record));
      scan.large.materialize(rest);
      expect(rest).toEqual(record);
    } finally {
      close();
    }
  });

  it('leaves the values under the field it is told to skip as they are', () => {
    const { scan, close } = scanned({ type: 'user', toolUseResult: { originalFile: 'x'.repeat(500) }, note: 'y'.repeat(500) }, 64);
    try {
      const record = JSON.parse(scan.rest) as { toolUseResult: { originalFile: string }; note: string };
      const token = record.toolUseResult.originalFile;
      scan.large.materialize(record, undefined, 'toolUseResult');
      expect(record.note).toBe('y'.repeat(500));
      expect(record.toolUseResult.originalFile).toBe(token);
      expect(scan.large.of(token)?.text()).toBe('x'.repeat(500));
    } finally {
      close();
    }
  });
});
