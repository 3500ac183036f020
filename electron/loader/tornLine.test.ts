/**
 * A torn line in the middle of a sidecar: a writer crashed mid-append and a later
 * append went on. The reader resynchronises at the next record: the lost record's index becomes a
 * hole (a placeholder row, `missing`), every later message keeps its index and its reductions
 * verify, and a reduction of the lost message answers address_out_of_range.
 */
import { writeFileSync } from 'node:fs';
import fc from 'fast-check';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { projectView } from '../../shared/index';
import { makeHeader, messageRecord, tempDir } from '../../tools/testing/files';
import { TORN_INDEX, TORN_MESSAGES, tornLog, tornSidecarText, tornView } from '../../tools/testing/tornSession';
import type { LoadedSession } from './session';
import { loadSession } from './session';

const tmp = tempDir('session-inspector-torn-');
afterAll(() => tmp.cleanup());

let n = 0;
async function load(text: string): Promise<LoadedSession> {
  const path = tmp.path(`torn${++n}.sidecar.jsonl`);
  writeFileSync(path, text);
  const loaded = await loadSession([path]);
  if (!loaded.ok) throw new Error(loaded.error.message);
  return loaded.session;
}

/** Every message but the lost one reads back, every reduction but its own verifies to the original bytes. */
function expectResynchronised(session: LoadedSession): void {
  expect(session.minted.length).toBe(TORN_MESSAGES);
  for (let i = 0; i < TORN_MESSAGES; i++) {
    const msg = session.minted.at(i);
    if (i === TORN_INDEX) expect(msg).toBeUndefined();
    else expect(msg?.content).toBe(tornView[i]?.content);
  }
  const rows = projectView(session.minted, session.log);
  expect(rows).toHaveLength(TORN_MESSAGES);
  expect(rows.filter((r) => r.missing).map((r) => r.index)).toEqual([TORN_INDEX]);
  for (const r of tornLog) {
    const outcome = session.expand(r.id);
    if (r.ptr.index === TORN_INDEX) {
      expect(outcome).toMatchObject({ ok: false, error: { code: 'address_out_of_range', reduction_id: r.id } });
      if (!outcome.ok) expect(outcome.error.message).toMatch(/index 3, which holds no readable message/);
    } else {
      expect(outcome.ok && outcome.value.content).toBe(tornView[r.ptr.index]?.content);
    }
  }
  const codes = session.check().findings.map((f) => `${f.code}@${f.index ?? f.reduction_id ?? f.line}`);
  // No message after the tear is out of range; only the lost one's reduction is.
  expect(codes.filter((c) => c.startsWith('address_out_of_range'))).toEqual([`address_out_of_range@${TORN_INDEX}`]);
}

describe('a torn record in the middle of a sidecar', () => {
  it('torn after its index, then a newline: later records keep their places', async () => {
    const session = await load(tornSidecarText((record) => ({ line: record.slice(0, 60) })));
    expectResynchronised(session);
    expect(session.loadFindings).toEqual([expect.objectContaining({ code: 'malformed_line', line: 5, index: TORN_INDEX })]);
    session.close();
  });

  it('torn before its index: the next message record shows which index was lost', async () => {
    const session = await load(tornSidecarText((record) => ({ line: record.slice(0, 10) })));
    expectResynchronised(session);
    expect(session.loadFindings.map((f) => [f.code, f.line])).toEqual([['malformed_line', 5]]);
    session.close();
  });

  it('torn, with the next record appended right after the fragment on the same line: that record is read', async () => {
    const session = await load(tornSidecarText((record, next) => ({ line: record.slice(0, 70) + next, consumesNext: true })));
    expectResynchronised(session);
    expect(session.loadFindings).toHaveLength(1);
    expect(session.loadFindings[0]).toMatchObject({ code: 'malformed_line', line: 5 });
    expect(session.loadFindings[0]?.message).toMatch(/torn record.*complete message record after them is read/);
    session.close();
  });

  it('a fragment torn before its index, then the next record on the same line', async () => {
    const session = await load(tornSidecarText((record, next) => ({ line: record.slice(0, 12) + next, consumesNext: true })));
    expectResynchronised(session);
    session.close();
  });

  it('a stray line that is not a record explains no gap: a message that skips ahead after it stays out of range', async () => {
    const session = await load(tornSidecarText(() => ({ line: 'npm WARN deprecated something' })));
    expect(session.minted.length).toBe(TORN_INDEX);
    expect(session.loadFindings.filter((f) => f.code === 'address_out_of_range')).toHaveLength(TORN_MESSAGES - TORN_INDEX - 1);
    session.close();
  });

  it('one torn line explains one lost index, not two', async () => {
    // Message 3 torn and message 4 dropped altogether: 5 skips two indices after one torn line.
    const text = tornSidecarText((record) => ({ line: record.slice(0, 10), consumesNext: true }));
    const session = await load(text);
    expect(session.minted.length).toBe(TORN_INDEX);
    expect(session.loadFindings.find((f) => f.code === 'address_out_of_range')).toMatchObject({ index: TORN_INDEX + 2 });
    session.close();
  });
});

describe('property: a record torn anywhere, anywhere in the file', () => {
  it('every other message keeps its index and its bytes, the lost one is a hole, and no message is out of range', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.string({ unit: 'grapheme', maxLength: 40 }), { minLength: 3, maxLength: 24 }),
        fc.nat(),
        fc.double({ min: 0, max: 1, noNaN: true, maxExcluded: true }),
        fc.boolean(),
        async (contents, at, cutAt, sameLine) => {
          const n = contents.length;
          // Not the last message: a torn last record with nothing after it is another case (truncated_last_line).
          const torn = at % (n - 1);
          const records = contents.map((content, i) => JSON.stringify(messageRecord(i, { role: 'user', content })));
          const record = records[torn] as string;
          const fragment = record.slice(0, 1 + Math.floor(cutAt * (record.length - 1)));
          const lines = [JSON.stringify(makeHeader()), ...records];
          if (sameLine) lines.splice(1 + torn, 2, fragment + (records[torn + 1] as string));
          else lines[1 + torn] = fragment;
          const session = await load(lines.join('\n') + '\n');
          try {
            expect(session.minted.length).toBe(n);
            for (let i = 0; i < n; i++) {
              if (i === torn) expect(session.minted.at(i)).toBeUndefined();
              else expect(session.minted.at(i)?.content).toBe(contents[i]);
            }
            expect(session.loadFindings.map((f) => f.code)).toEqual(['malformed_line']);
          } finally {
            session.close();
          }
        },
      ),
      { numRuns: 150 },
    );
  });
});

describe('lines that do not parse', () => {
  it('a line with no record start after its first character is parsed once, not again for a record after a tear', async () => {
    const garbage = Array.from({ length: 200 }, (_, k) => `not json ${k}: {"t": "message"}`);
    const lines = [JSON.stringify(makeHeader()), JSON.stringify(messageRecord(0, { role: 'user', content: 'before' })), ...garbage, JSON.stringify(messageRecord(1, { role: 'user', content: 'after' }))];
    const parse = vi.spyOn(JSON, 'parse');
    try {
      const session = await load(lines.join('\n') + '\n');
      try {
        const garbageParses = parse.mock.calls.filter(([text]) => typeof text === 'string' && text.startsWith('not json ')).length;
        // Each garbage line once (its own parse); a second parse per line looked for a record after a tear that cannot be there.
        expect(garbageParses).toBe(garbage.length);
        expect(session.minted.length).toBe(2);
        expect(session.loadFindings.map((f) => `${f.code}@${f.line}`)).toEqual(garbage.map((_, k) => `malformed_line@${k + 3}`));
        expect(session.loadFindings[0]?.message).toMatch(/^line 3 is not JSON: /);
      } finally {
        session.close();
      }
    } finally {
      parse.mockRestore();
    }
  });
});
