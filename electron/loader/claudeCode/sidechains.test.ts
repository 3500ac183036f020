/**
 * Inline sidechains (Claude Code 1.0.x writes a Task's conversation into the main file, each rooted
 * at a record with no parent: docs/FORMATS.md §1) grouped by their root once
 * (docs/streaming-import.md "Inline sidechains").
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../../tools/testing/files';
import { loadSession } from '../session';
import { sidechainsByRoot } from './importer';

const tmp = tempDir('session-inspector-sidechains-');
afterAll(() => tmp.cleanup());

type Rec = Record<string, unknown> & { __line: number };

/** The root of `r` as a walk from it alone finds it: up its parent links while the parent is a sidechain's, stopping where a record comes again. */
function walkedRoot(r: Rec, byUuid: ReadonlyMap<string, Rec>): Rec {
  const seen = new Set<Rec>();
  let cur = r;
  while (!seen.has(cur)) {
    seen.add(cur);
    const parent = typeof cur.parentUuid === 'string' ? byUuid.get(cur.parentUuid) : undefined;
    if (!parent || parent.isSidechain !== true) return cur;
    cur = parent;
  }
  return cur;
}

/** Each root's sidechain records (by line), roots in the order their first record comes. */
function lines(groups: ReadonlyMap<Rec, Rec[]>): [number, number[]][] {
  return [...groups].map(([root, records]) => [root.__line, records.map((r) => r.__line)]);
}

/** A map that counts its lookups. */
class CountingMap<K, V> extends Map<K, V> {
  gets = 0;
  override get(key: K): V | undefined {
    this.gets++;
    return super.get(key);
  }
}

describe('inline sidechains grouped by root', () => {
  it('groups each sidechain record under the root a walk from it finds, for any links (loops, missing and main-conversation parents)', () => {
    const record = (n: number) =>
      fc.record({
        parent: fc.oneof(fc.constant(null), fc.constant('missing'), fc.nat({ max: n - 1 })),
        side: fc.boolean(),
      });
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 40 }).chain((n) => fc.array(record(n), { minLength: n, maxLength: n })),
        (spec) => {
          const records: Rec[] = spec.map(({ parent, side }, k) => ({
            __line: k + 1,
            uuid: `u${k}`,
            parentUuid: parent === null ? null : parent === 'missing' ? 'gone' : `u${parent}`,
            ...(side ? { isSidechain: true } : {}),
          }));
          const byUuid = new Map(records.map((r) => [r.uuid as string, r]));
          const expected = new Map<Rec, Rec[]>();
          for (const r of records) {
            if (r.isSidechain !== true) continue;
            const root = walkedRoot(r, byUuid);
            expected.set(root, [...(expected.get(root) ?? []), r]);
          }
          expect(lines(sidechainsByRoot(records, byUuid))).toEqual(lines(expected));
        },
      ),
      { numRuns: 500 },
    );
  });

  it('looks each record’s parent up about once, however long the sidechains', () => {
    // Ten sidechains of 2,000 records each, every record the child of the one before.
    const records: Rec[] = [];
    for (let s = 0; s < 10; s++) {
      for (let k = 0; k < 2000; k++) records.push({ __line: records.length + 1, uuid: `s${s}-${k}`, parentUuid: k === 0 ? null : `s${s}-${k - 1}`, isSidechain: true });
    }
    const byUuid = new CountingMap(records.map((r) => [r.uuid as string, r]));
    byUuid.gets = 0;
    const groups = sidechainsByRoot(records, byUuid);
    expect([...groups.values()].map((g) => g.length)).toEqual(Array.from({ length: 10 }, () => 2000));
    // One lookup per record, and one more per record whose parent's root was known: not one per ancestor.
    expect(byUuid.gets).toBeLessThanOrEqual(2 * records.length);
  });

  it('lists every sidechain of a file with many as a session of its own, with its messages', async () => {
    const sid = '5e55e55e-0000-4000-8000-000000000000';
    const lines: string[] = [];
    let n = 0;
    const id = (): string => `00000000-0000-4000-8000-${(n++).toString(16).padStart(12, '0')}`;
    let main: string | null = null;
    const roots: string[] = [];
    for (let t = 0; t < 40; t++) {
      const u = id();
      lines.push(JSON.stringify({ parentUuid: main, isSidechain: false, sessionId: sid, type: 'user', uuid: u, message: { role: 'user', content: `task ${t}` } }));
      const a = id();
      lines.push(JSON.stringify({ parentUuid: u, isSidechain: false, sessionId: sid, type: 'assistant', uuid: a, message: { id: `msg_m${t}`, role: 'assistant', model: 'claude-sonnet-4', content: [{ type: 'text', text: `ok ${t}` }] } }));
      main = a;
      // The sidechain's records, written after its task's.
      let side: string | null = null;
      for (let k = 0; k < 30; k++) {
        const su = id();
        if (k === 0) roots.push(su);
        const user = k % 2 === 0;
        lines.push(JSON.stringify({ parentUuid: side, isSidechain: true, sessionId: sid, type: user ? 'user' : 'assistant', uuid: su, message: user ? { role: 'user', content: `side ${t} ${k}` } : { id: `msg_s${t}_${k}`, role: 'assistant', model: 'claude-sonnet-4', content: [{ type: 'text', text: `s ${t} ${k}` }] } }));
        side = su;
      }
    }
    const path = join(tmp.dir, `${sid}.jsonl`);
    writeFileSync(path, `${lines.join('\n')}\n`);
    const loaded = await loadSession([path]);
    if (!loaded.ok) throw new Error(loaded.error.message);
    const sessions = loaded.session.check().summary.sessions ?? [];
    loaded.session.close();
    expect(sessions.map((s) => s.messages)).toEqual([80, ...roots.map(() => 30)]);
    expect(sessions.slice(1).map((s) => [s.id, s.title])).toEqual(roots.map((r, t) => [r, `side ${t} 0`]));
    // Each sidechain opened is its own records' conversation.
    for (const t of [0, 17, 39]) {
      const side = await loadSession([path], { session: roots[t]! });
      if (!side.ok) throw new Error(side.error.message);
      const { minted } = side.session;
      const contents = Array.from({ length: minted.length }, (_, i) => minted.at(i)!.content);
      side.session.close();
      expect(contents).toEqual(Array.from({ length: 30 }, (_, k) => (k % 2 === 0 ? `side ${t} ${k}` : `s ${t} ${k}`)));
    }
  });
});
