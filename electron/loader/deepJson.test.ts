/**
 * A record nested thousands of levels deep, in every format the loader reads (docs/deep-json.md):
 * the session opens with every other message (counted from the raw file), the deep record is one
 * `malformed_line` finding naming its line or path, and nothing read from the file is too deep to
 * stringify or structured-clone (what the command line, the HTTP host and the worker do with it).
 */
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { DEEP_MARKER, MAX_JSON_DEPTH } from '../../shared/format/jsonDepth';
import type { DeepCase } from '../../tools/testing/deepJson';
import { DEEP_LEVELS, deepCases, writeDeepCase } from '../../tools/testing/deepJson';
import { sessionOpener, tempDir } from '../../tools/testing/files';

const tmp = tempDir('session-inspector-deep-');
afterAll(() => tmp.cleanup());
const { load, closeAll } = sessionOpener();
afterEach(closeAll);

let written = 0;
/** Writes the case's files into a folder of their own under `root`; the path to open. */
const writeCase = (c: DeepCase, root: string): string => writeDeepCase(c, join(root, `case-${written++}`));

describe(`a record nested ${DEEP_LEVELS} levels deep`, () => {
  for (const c of deepCases()) {
    it(`${c.format}, in ${c.variant === 'arguments' ? "a tool call's arguments" : 'a record'}: the rest opens and the record is a finding`, async () => {
      const session = await load([writeCase(c, tmp.dir)], c.session !== undefined ? { session: c.session } : {});
      expect(session.files[0]?.format).toBe(c.format);
      // Every message of the raw file is there; a native record too deep to read is a hole.
      expect(session.minted.length).toBe(c.rawMessages);
      for (let i = 0; i < c.rawMessages; i++) expect(session.minted.at(i) === undefined, `message ${i}`).toBe(i === c.hole);

      const findings = session.check().findings;
      const deep = findings.filter((f) => f.message.includes(`nested deeper than ${MAX_JSON_DEPTH} levels`));
      expect(deep).toHaveLength(1);
      expect(deep[0]).toMatchObject({ code: 'malformed_line', severity: 'error' });
      expect(deep[0]?.message).toContain(c.names);
      if (c.line !== undefined) expect(deep[0]?.line).toBe(c.line);
      // Nothing else is wrong with the file.
      expect(findings.filter((f) => f.severity === 'error')).toEqual(deep);

      // What the command line prints, the host answers and the worker posts can be made of it.
      const messages = Array.from({ length: session.minted.length }, (_, i) => session.minted.at(i));
      expect(() => JSON.stringify(messages)).not.toThrow();
      expect(() => structuredClone(messages)).not.toThrow();
      const text = JSON.stringify(messages);
      // An imported record keeps its shape; what lay deeper than the cap reads as the marker.
      if (c.hole === undefined && c.variant === 'arguments') expect(text).toContain(DEEP_MARKER.slice(1, -1));
    });
  }

  it('at 100,000 levels, every format still opens with every message', async () => {
    for (const c of deepCases(100_000)) {
      const session = await load([writeCase(c, tmp.dir)], c.session !== undefined ? { session: c.session } : {});
      expect(session.minted.length, `${c.format} ${c.variant}`).toBe(c.rawMessages);
      expect(session.check().findings.filter((f) => f.severity === 'error'), `${c.format} ${c.variant}`).toHaveLength(1);
    }
  }, 60_000);
});

describe('any depth', () => {
  it('never makes the load throw, and what it reads always stringifies and clones', async () => {
    const formats = deepCases(1).length;
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.integer({ min: 0, max: 2 * MAX_JSON_DEPTH }), fc.integer({ min: 0, max: 30_000 })), fc.nat({ max: formats - 1 }), async (depth, k) => {
        const c = deepCases(depth)[k]!;
        const session = await load([writeCase(c, tmp.dir)], c.session !== undefined ? { session: c.session } : {});
        expect(session.minted.length).toBe(c.rawMessages);
        const errors = session.check().findings.filter((f) => f.severity === 'error');
        // Below the cap nothing is said; past it, the one deep record.
        expect(errors.length).toBe(depth > MAX_JSON_DEPTH ? 1 : depth < MAX_JSON_DEPTH - 10 ? 0 : errors.length);
        const messages = Array.from({ length: session.minted.length }, (_, i) => session.minted.at(i));
        structuredClone(messages);
        JSON.stringify(messages);
        closeAll();
      }),
      { numRuns: 40 },
    );
  }, 120_000);
});
