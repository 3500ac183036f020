/**
 * The head sniff of a folder listing agrees with the loader's detection on every sample and
 * fixture of the repository, and tells an Inspect AI `.json` log from other JSON by its head.
 */
import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { SESSION_FORMAT_OF_FILE } from '../../shared/index';
import { detectedFileFormat, filesUnder, tempDir } from '../../tools/testing/files';
import { formatByHead } from './scan';
import type { SketchLimits } from './sketch';
import { sketchByScan, sketchJson } from './sketch';
import { SNIFF_HEAD_BYTES, claudeClaim } from './sniff';
import { isClaudeRecord } from '../loader/claudeCode/index';
import { jsonValueOf } from '../loader/common/json';

const ROOT = join(import.meta.dirname, '../..');
const tmp = tempDir('session-inspector-sniff-test-');
afterAll(() => tmp.cleanup());

/** The format the loader detects for `path` (as an open does), or null. */
function detected(path: string): string | null {
  const format = detectedFileFormat(path);
  return format === null ? null : SESSION_FORMAT_OF_FILE[format];
}

describe('sniffing a file by its head', () => {
  it('gives the format the loader detects, for every sample and fixture file', () => {
    const files = [...filesUnder(join(ROOT, 'samples')), ...filesUnder(join(ROOT, 'e2e/fixtures'))].filter((f) => statSync(f).size <= 64 * 1024 * 1024);
    expect(files.length).toBeGreaterThan(50);
    const disagreements = files.map((f) => ({ file: f.slice(ROOT.length + 1), detected: detected(f), sniffed: formatByHead(f) })).filter((d) => d.detected !== d.sniffed);
    expect(disagreements).toEqual([]);
    // Every format is among them.
    expect(new Set(files.map((f) => formatByHead(f)))).toEqual(new Set([null, 'supercode', 'claude-code', 'codex', 'swe-agent', 'inspect', 'openhands']));
  });

  it('lists an Inspect .json log, and no other JSON that opens like one, by the head alone', () => {
    const samples = `"samples": [${Array.from({ length: 200 }, (_, k) => JSON.stringify({ id: k, input: 'x'.repeat(1000) })).join(',')}]`;
    const cases: [string, string, string | null][] = [
      ['log.json', `{"version": 2, "status": "success", "eval": {"task": "t", "model": "m"}, ${samples}}`, 'inspect'],
      ['model-only.json', `{"eval": {"model": "m"}, "version": 1, ${samples}}`, 'inspect'],
      ['no-eval.json', `{"version": 2, "status": "success", ${samples}}`, null],
      ['eval-not-object.json', `{"version": 2, "eval": "t", ${samples}}`, null],
      ['eval-without-task.json', `{"version": 2, "eval": {"name": "t"}, ${samples}}`, null],
      ['string-version.json', `{"version": "2", "eval": {"task": "t"}, "stats": {}}`, null],
      ['other-first-key.json', `{"data": 1, "version": 2, "eval": {"task": "t"}, ${samples}}`, null],
    ];
    for (const [name, text, format] of cases) {
      const path = tmp.path(name);
      writeFileSync(path, text);
      expect(statSync(path).size > SNIFF_HEAD_BYTES || !text.includes(samples), name).toBe(true);
      expect([name, formatByHead(path)]).toEqual([name, format]);
      expect([name, detected(path)]).toEqual([name, format]);
    }
  });
});

describe('the Claude Code claim of a head', () => {
  /** The former rule, on the head split whole into its lines. */
  const splitWhole = (text: string, whole: boolean): string | null | undefined => {
    const lines = text.split('\n');
    for (let k = 0; k < lines.length && k < 20; k++) {
      const t = (lines[k] as string).trim();
      if (t === '') continue;
      const p = jsonValueOf(t);
      if (p) return isClaudeRecord(p.value) ? 'claude-code' : null;
      if (k === lines.length - 1) return whole ? null : undefined;
    }
    return null;
  };

  it('takes the first lines one by one and claims as the whole head split into lines did, for any lines', () => {
    const claudeLine = fc.constantFrom('{"type":"user","sessionId":"s","uuid":"u","message":{"role":"user","content":"hi"}}', '{"type":"summary","summary":"x","leafUuid":"l"}', '{"type":"assistant","uuid":"a","message":{"role":"assistant","content":[]}}');
    const line = fc.oneof(claudeLine, fc.constantFrom('', '  ', '\r', '{', '}', '[1]', '{"t":"header"}', '{"type":"user"', 'not json', '  "key": 1,'), fc.string({ maxLength: 12 }));
    fc.assert(
      fc.property(fc.array(line, { maxLength: 30 }), fc.constantFrom('\n', '\r\n'), fc.boolean(), fc.boolean(), (lines, eol, trailing, whole) => {
        const text = lines.join(eol) + (trailing ? eol : '');
        expect(claudeClaim(text, whole)).toBe(splitWhole(text, whole));
      }),
      { numRuns: 2000 },
    );
    // A record after as many lines that are blank or do not parse: claimed up to the 20th line, not after.
    fc.assert(
      fc.property(fc.array(fc.constantFrom('', '   ', '{', 'not json', '  "key": 1,'), { minLength: 15, maxLength: 25 }), claudeLine, fc.boolean(), (before, record, whole) => {
        const text = [...before, record, ''].join('\n');
        expect(claudeClaim(text, whole)).toBe(splitWhole(text, whole));
        expect(claudeClaim(text, whole)).toBe(before.length < 20 ? 'claude-code' : null);
      }),
      { numRuns: 300 },
    );
  });
});

describe('sketchJson', () => {
  it('keeps what a head holds of any JSON document, cut where the head ends', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 3 }), fc.nat(), (value, cut) => {
        const text = JSON.stringify(value, null, 1);
        const whole = sketchJson(text, { whole: true, limits: { maxDepth: 10, maxItems: 1000, maxString: 100_000 } });
        expect(whole).toEqual({ value: JSON.parse(text) as unknown, complete: true, trailing: false });
        const at = cut % (text.length + 1);
        const head = sketchJson(text.slice(0, at), { whole: false });
        expect(head.error).toBeUndefined();
        if (at < text.length) expect(head.complete && text.slice(at).trim() !== '').toBe(false);
      }),
    );
  });

  it('scans a whole document into its parsed value cut to the limits, escapes and any characters included', () => {
    /** The sketch's contract on a complete document, from JSON.parse: containers empty below maxDepth, maxItems items, maxString characters. */
    const cut = (v: unknown, limits: SketchLimits, depth = 0): unknown => {
      if (Array.isArray(v)) return depth >= limits.maxDepth ? [] : v.slice(0, limits.maxItems).map((x) => cut(x, limits, depth + 1));
      if (v !== null && typeof v === 'object') {
        const out: Record<string, unknown> = {};
        if (depth >= limits.maxDepth) return out;
        for (const [k, x] of Object.entries(v)) Object.defineProperty(out, k, { value: cut(x, limits, depth + 1), enumerable: true, writable: true, configurable: true });
        return out;
      }
      return typeof v === 'string' ? v.slice(0, limits.maxString) : v;
    };
    const limits = fc.record({ maxDepth: fc.integer({ min: 0, max: 5 }), maxItems: fc.integer({ min: 0, max: 4 }), maxString: fc.integer({ min: 0, max: 12 }) });
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4, stringUnit: 'binary' }), limits, fc.boolean(), (value, lim, pretty) => {
        const text = JSON.stringify(value, null, pretty ? 2 : undefined);
        expect(sketchByScan(text, { whole: true, limits: lim })).toEqual({ value: cut(JSON.parse(text), lim), complete: true, trailing: false });
      }),
      { numRuns: 500 },
    );
  });

  it('gives a whole file the scan’s sketch, through JSON.parse where the file is one document: any JSON, cut, padded or followed by more', () => {
    const limits = fc.record({ maxDepth: fc.integer({ min: 0, max: 5 }), maxItems: fc.integer({ min: 0, max: 4 }), maxString: fc.integer({ min: 0, max: 12 }) });
    const text = fc.tuple(fc.jsonValue({ maxDepth: 4, stringUnit: 'binary' }), fc.boolean(), fc.constantFrom('', ' \n', ' x', '{}', '\u00a0', ']'), fc.option(fc.nat(), { nil: undefined })).map(([v, pretty, after, cut]) => {
      const t = JSON.stringify(v, null, pretty ? 2 : undefined) + after;
      return cut === undefined ? t : t.slice(0, cut % (t.length + 1));
    });
    fc.assert(
      fc.property(text, limits, fc.boolean(), (t, lim, whole) => {
        expect(sketchJson(t, { whole, limits: lim })).toEqual(sketchByScan(t, { whole, limits: lim }));
      }),
      { numRuns: 1000 },
    );
    expect(sketchJson('{"__proto__": {"polluted": 1}, "a": [1, 2]}', { whole: true }).value).toEqual(sketchByScan('{"__proto__": {"polluted": 1}, "a": [1, 2]}', { whole: true }).value);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('parses a whole document once for two sketches of it in a row, to any limits, each the sketch of its own', () => {
    const limits = fc.record({ maxDepth: fc.integer({ min: 0, max: 5 }), maxItems: fc.integer({ min: 0, max: 4 }), maxString: fc.integer({ min: 0, max: 12 }) });
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), limits, limits, fc.boolean(), (v, a, b, pretty) => {
        const text = JSON.stringify(v, null, pretty ? 2 : undefined);
        // Another text first: what was kept is not this one's.
        sketchJson('{"another": "text"}', { whole: true });
        const parse = vi.spyOn(JSON, 'parse');
        try {
          const first = sketchJson(text, { whole: true, limits: a });
          // The same characters in another string, as the head's fields decode and trim their own.
          const second = sketchJson(text.split('').join(''), { whole: true, limits: b });
          expect(parse).toHaveBeenCalledTimes(1);
          expect(first).toEqual(sketchByScan(text, { whole: true, limits: a }));
          expect(second).toEqual(sketchByScan(text, { whole: true, limits: b }));
        } finally {
          parse.mockRestore();
        }
      }),
      { numRuns: 300 },
    );
    // A text longer than a head is not kept: parsed each time.
    const long = JSON.stringify({ a: 'x'.repeat(70 * 1024) });
    const parse = vi.spyOn(JSON, 'parse');
    try {
      sketchJson(long, { whole: true });
      sketchJson(long, { whole: true });
      expect(parse).toHaveBeenCalledTimes(2);
    } finally {
      parse.mockRestore();
    }
  });

  it('reads past deep nesting without recursion, and says a head is not JSON', () => {
    const deep = '['.repeat(100_000) + ']'.repeat(100_000);
    expect(sketchJson(deep, { whole: true })).toMatchObject({ complete: true, value: [[[[[]]]]] });
    expect(sketchJson('{"a": tru', { whole: true }).error).toBeDefined();
    expect(sketchJson('{"a": x}', { whole: false }).error).toBeDefined();
    expect(sketchJson('{"__proto__": {"polluted": 1}}', { whole: true }).value).toEqual(JSON.parse('{"__proto__": {"polluted": 1}}'));
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
