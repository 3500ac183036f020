/**
 * Claude Code 2.0.x agent files beside the sessions of a project folder (./besideAgents.ts,
 * docs/library.md "2.0.x agent files, read once per folder"): each candidate's head read once per
 * state of the folder, and what a lookup finds always what a fresh read of the folder finds.
 */
import { appendFileSync, mkdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../../tools/testing/files';
import type { RefusedCompanion, SubagentFile } from './besideAgents';
import { BesideAgents, RACY_MS, readHead } from './besideAgents';
import { smallAgent, smallSessionId, writeAgentFolder } from '../../library/testing/generated';

const tmp = tempDir('session-inspector-beside-');
afterAll(() => tmp.cleanup());

const agentName = (n: number): string => `agent-${n.toString(16).padStart(8, '0')}.jsonl`;

/** A head reader that counts the heads it reads. */
function counting(): { read: typeof readHead; count: () => number } {
  let n = 0;
  return {
    read: (path, roots) => {
      n++;
      return readHead(path, roots);
    },
    count: () => n,
  };
}

/** Sets the folder's mtime `secondsAgo` in the past (what time passing since its last change does). */
const age = (dir: string, secondsAgo: number): void => {
  const t = (Date.now() - secondsAgo * 1000) / 1000;
  utimesSync(dir, t, t);
};

/** A 2.0.x project folder of `sessions` small sessions with `agentsEach` agents each (the bench's); each session's agent ids. */
function writeFolder(dir: string, sessions: number, agentsEach: number): Map<string, string[]> {
  writeAgentFolder(dir, sessions, agentsEach);
  return new Map(Array.from({ length: sessions }, (_, k) => [smallSessionId(k), Array.from({ length: agentsEach }, (_, a) => (k * agentsEach + a).toString(16).padStart(8, '0'))]));
}

describe("a project folder's 2.0.x agents", () => {
  it("reads each candidate's head once for every session of a folder that has not changed", () => {
    const dir = tmp.path('settled');
    const expected = writeFolder(dir, 12, 3);
    age(dir, 3600);
    const heads = counting();
    const beside = new BesideAgents(heads.read);
    for (const round of [1, 2]) {
      for (const [sessionId, ids] of expected) {
        const refused: RefusedCompanion[] = [];
        expect(beside.of(dir, sessionId, [dir], refused).map((a) => a.id), `${sessionId}, round ${round}`).toEqual(ids);
        expect(refused).toEqual([]);
      }
      expect(heads.count(), `round ${round}`).toBe(36);
    }
  });

  it(`lists a folder modified less than ${RACY_MS} ms before it was listed again at the next lookup`, () => {
    const dir = tmp.path('racy');
    const expected = writeFolder(dir, 2, 3);
    const heads = counting();
    const beside = new BesideAgents(heads.read);
    const [sessionId, ids] = [...expected][0]!;
    expect(beside.of(dir, sessionId, [dir], []).map((a) => a.id)).toEqual(ids);
    expect(beside.of(dir, sessionId, [dir], []).map((a) => a.id)).toEqual(ids);
    expect(heads.count()).toBe(12);
  });

  it('looks again at a candidate whose head named no session yet, and finds it once it does', () => {
    const dir = tmp.path('growing');
    writeFolder(dir, 1, 1);
    const late = join(dir, agentName(0xff));
    writeFileSync(late, '');
    age(dir, 3600);
    const heads = counting();
    const beside = new BesideAgents(heads.read);
    expect(beside.of(dir, smallSessionId(0), [dir], []).map((a) => a.id)).toEqual(['00000000']);
    // Appending to a file leaves its folder's mtime as it was.
    appendFileSync(late, smallAgent(0, '000000ff'));
    expect(beside.of(dir, smallSessionId(0), [dir], []).map((a) => a.id)).toEqual(['00000000', '000000ff']);
    expect(heads.count()).toBe(3);
  });

  type Op = { kind: 'add'; session: number } | { kind: 'remove'; pick: number } | { kind: 'empty' } | { kind: 'fill'; pick: number; session: number } | { kind: 'age' } | { kind: 'other' };
  const op: fc.Arbitrary<Op> = fc.oneof(
    fc.record({ kind: fc.constant('add' as const), session: fc.integer({ min: 0, max: 2 }) }),
    fc.record({ kind: fc.constant('remove' as const), pick: fc.nat() }),
    fc.constant({ kind: 'empty' as const }),
    fc.record({ kind: fc.constant('fill' as const), pick: fc.nat(), session: fc.integer({ min: 0, max: 2 }) }),
    fc.constant({ kind: 'age' as const }),
    fc.constant({ kind: 'other' as const }),
  );

  it('finds, after any changes to the folder, what a fresh read of the folder finds', () => {
    let run = 0;
    fc.assert(
      fc.property(fc.array(op, { minLength: 1, maxLength: 14 }), (ops) => {
        const dir = tmp.path(`changes-${run++}`);
        rmSync(dir, { recursive: true, force: true });
        mkdirSync(dir);
        const beside = new BesideAgents();
        const present: string[] = [];
        const empty: string[] = [];
        let next = 0;
        // Each aging sets a different past mtime, as time passing does.
        let ages = 0;
        const check = (): void => {
          for (let k = 0; k < 3; k++) {
            const kept: RefusedCompanion[] = [];
            const fresh: RefusedCompanion[] = [];
            const got: SubagentFile[] = beside.of(dir, smallSessionId(k), [dir], kept);
            expect(got).toEqual(new BesideAgents().of(dir, smallSessionId(k), [dir], fresh));
            expect(kept).toEqual(fresh);
          }
        };
        check();
        for (const o of ops) {
          if (o.kind === 'add') {
            const n = next++;
            writeFileSync(join(dir, agentName(n)), smallAgent(o.session, n.toString(16).padStart(8, '0')));
            present.push(agentName(n));
          } else if (o.kind === 'remove' && present.length > 0) {
            const [name] = present.splice(o.pick % present.length, 1);
            rmSync(join(dir, name!));
          } else if (o.kind === 'empty') {
            const name = agentName(next++);
            writeFileSync(join(dir, name), '');
            empty.push(name);
          } else if (o.kind === 'fill' && empty.length > 0) {
            const [name] = empty.splice(o.pick % empty.length, 1);
            appendFileSync(join(dir, name!), smallAgent(o.session, name!.slice(6, 14)));
            present.push(name!);
          } else if (o.kind === 'age') {
            age(dir, 3600 + ages++);
          } else if (o.kind === 'other') {
            writeFileSync(join(dir, `note-${next++}.txt`), 'not an agent');
          }
          check();
        }
      }),
      { numRuns: 40 },
    );
  });
});
