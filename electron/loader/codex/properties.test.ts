/** Properties of the Codex importer over its real and synthetic files: damage gives findings, never a throw; passes compose. */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import type { ChatMessage } from '../../../shared/index';
import { tempDir } from '../../../tools/testing/files';
import { loadSession } from '../session';
import type { MeasuredRun, RolloutLine } from './build';
import { BYTES_PER_TOKEN, buildRollout, toolTruncation } from './build';
import { CODEX_SYNTHETIC_DIR } from './testing/synthetic';

const REAL_DIR = join(import.meta.dirname, '../../../e2e/fixtures/real/codex');
const files = [...readdirSync(CODEX_SYNTHETIC_DIR).map((n) => join(CODEX_SYNTHETIC_DIR, n)), join(REAL_DIR, 'rollout-0.139-review-subagent-ENTIRE.jsonl'), join(REAL_DIR, 'rollout-0.139-review-cut-output-ENTIRE.jsonl')];
const texts = files.map((f) => readFileSync(f, 'utf8'));
const tmp = tempDir();
afterAll(() => tmp.cleanup());

function parsed(lines: string[]): RolloutLine[] {
  return lines.map((text, i) => {
    try {
      return { line: i + 1, value: JSON.parse(text) as unknown };
    } catch (e) {
      return { line: i + 1, error: (e as Error).message };
    }
  });
}

describe('Codex importer properties', () => {
  it('any line cut at any byte gives findings, never a throw, and every reduction still verifies', async () => {
    await fc.assert(
      fc.asyncProperty(fc.nat({ max: files.length - 1 }), fc.nat(), fc.nat(), async (f, lineChoice, cutChoice) => {
        const lines = (texts[f] as string).split('\n').filter((l) => l.length > 0);
        const k = lineChoice % lines.length;
        const bytes = Buffer.from(lines[k] as string);
        lines[k] = bytes.subarray(0, cutChoice % bytes.length).toString('utf8');
        const path = tmp.path(`cut-${f}.jsonl`);
        writeFileSync(path, `${lines.join('\n')}\n`);
        const r = await loadSession([path]);
        if (!r.ok) {
          // Only a cut first line may make the file another format's (or none).
          expect(k).toBe(0);
          return;
        }
        try {
          const report = r.session.check();
          expect(report.findings.filter((x) => x.severity === 'error' && x.code !== 'malformed_line')).toEqual([]);
          // A reduction whose original the file does not hold (a cut output) answers original_unavailable; every other verifies.
          for (const red of r.session.log) {
            const out = r.session.expand(red.id);
            expect(out.ok ? 'verified' : out.error.code).toBe(red.ptr.hash === null ? 'original_unavailable' : 'verified');
          }
        } finally {
          r.session.close();
        }
      }),
      { numRuns: 60 },
    );
  });

  it('an output is a cut exactly when it holds a marker and no header, or a header whose count is more than its text holds', () => {
    // Head and tail text, multi-byte and with newlines, that cannot spell a marker of its own.
    const text = fc.string({ unit: fc.constantFrom('a', 'é', '\n', ' ', '…', '7') });
    fc.assert(
      fc.property(text, text, fc.nat({ max: 1_000_000 }), fc.option(fc.nat({ max: 1_000_000 }), { nil: undefined }), (head, tail, cut, tokens) => {
        const body = `${head}…${cut} tokens truncated…${tail}`;
        const content = tokens === undefined ? body : `Chunk ID: 1\nOriginal token count: ${tokens}\nOutput:\n${body}`;
        const found = toolTruncation(content);
        if (tokens === undefined) expect(found?.bytes).toBeGreaterThanOrEqual(cut * BYTES_PER_TOKEN);
        else expect(found?.bytes).toBe(tokens * BYTES_PER_TOKEN > Buffer.byteLength(content) ? tokens * BYTES_PER_TOKEN : undefined);
        // without the marker, never a cut (the alphabet cannot spell another one)
        expect(toolTruncation(content.replace(`…${cut} tokens truncated…`, '…'))).toBeUndefined();
      }),
      { numRuns: 300 },
    );
  });

  it('building over the lines in two parts equals building over all of them (passes are prefix-stable)', () => {
    fc.assert(
      fc.property(fc.nat({ max: files.length - 1 }), fc.nat(), (f, splitChoice) => {
        const lines = parsed((texts[f] as string).split('\n').filter((l) => l.length > 0));
        const at = splitChoice % (lines.length + 1);
        const first = buildRollout(lines.slice(0, at));
        const all = buildRollout(lines);
        // What the first part built is a prefix of the whole: messages are only appended, reductions only added.
        // (A response still being written grows: the last assistant message gains the items that follow it.)
        const last = first.view[first.view.length - 1];
        const pending = last?.role === 'assistant';
        const prefix = first.view.length - (pending ? 1 : 0);
        expect(all.view.slice(0, prefix).map((m: ChatMessage) => m.content)).toEqual(first.view.slice(0, prefix).map((m) => m.content));
        expect(all.log.slice(0, first.log.length)).toEqual(first.log);
      }),
      { numRuns: 300 },
    );
  });

  it('building again as lines are appended, with the compactions measured before, equals building afresh at each end', () => {
    fc.assert(
      fc.property(fc.nat({ max: files.length - 1 }), fc.array(fc.nat(), { minLength: 1, maxLength: 6 }), (f, cutChoices) => {
        const lines = parsed((texts[f] as string).split('\n').filter((l) => l.length > 0));
        const ends = [...new Set([...cutChoices.map((c) => c % (lines.length + 1)), lines.length])].sort((a, b) => a - b);
        const measured = new Map<string, MeasuredRun>();
        for (const end of ends) {
          const again = buildRollout(lines.slice(0, end), measured);
          const fresh = buildRollout(lines.slice(0, end));
          expect(again.log).toEqual(fresh.log);
          expect(again.view.map((m: ChatMessage) => [m.role, m.content])).toEqual(fresh.view.map((m) => [m.role, m.content]));
        }
      }),
      { numRuns: 300 },
    );
  });
});
