/** Following a session file that grows (SPEC §13), compared with fresh opens. */
import { appendFileSync, closeSync, openSync, readFileSync, renameSync, rmSync, truncateSync, writeFileSync, writeSync } from 'node:fs';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { generateClaudeTranscript } from './claudeCode/testing/generate';
import { codexSynthetic } from './codex/testing/synthetic';
import { liveSessionText, sessionState } from '../../tools/testing/liveSession';
import { tempDir } from '../../tools/testing/files';
import type { FollowUpdate } from './follow';
import { SessionFollower } from './follow';
import type { LoadedSession } from './session';
import { loadSession } from './session';

const tmp = tempDir('follow-');
afterAll(() => tmp.cleanup());

async function freshState(path: string): Promise<unknown> {
  const loaded = await loadSession([path]);
  if (!loaded.ok) throw new Error(loaded.error.message);
  try {
    return sessionState(loaded.session);
  } finally {
    loaded.session.close();
  }
}

/** Everything of a session that is not read from its files: what the follower shares between the sessions it hands out. */
function sessionShape(session: LoadedSession): unknown {
  return {
    messages: session.minted.length,
    recorded: session.recorded?.length,
    log: session.log.map((r) => r.id),
    logLines: session.logLines?.slice(),
    findings: session.loadFindings.map((f) => [f.code, f.line, f.index]),
    calls: session.calls.map((c) => ({ ...c })),
    spans: session.callTimeline.spans.map((s) => [s.reduction.id, s.from, s.to, s.ended]),
    rewinds: session.rewinds.map((r) => [r.line, r.to, r.abandoned.length]),
    modelChanges: session.modelChanges.map((m) => m.line),
    files: session.files.map((f) => ({ ...f })),
  };
}

async function follow(path: string, options: Parameters<typeof SessionFollower.open>[1] = {}): Promise<SessionFollower> {
  const opened = await SessionFollower.open([path], { settleMs: Infinity, ...options });
  if (!opened.ok) throw new Error(opened.error.message);
  return opened.follower;
}

/** Byte offsets just after each newline of `text`: the line boundaries a truncation may cut at. */
function lineEnds(text: string): number[] {
  const ends: number[] = [];
  for (let k = text.indexOf('\n'); k !== -1; k = text.indexOf('\n', k + 1)) ends.push(k + 1);
  return ends;
}

type Op =
  | { kind: 'append'; cut: number; look: boolean }
  | { kind: 'truncate'; line: number }
  | { kind: 'replace' }
  | { kind: 'rewriteHeader' }
  | { kind: 'settle' };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 8, arbitrary: fc.record({ kind: fc.constant('append' as const), cut: fc.nat(), look: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('truncate' as const), line: fc.nat() }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'replace' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'rewriteHeader' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'settle' as const }) },
);

describe('SessionFollower', () => {
  it('after any append schedule (torn lines completed later, truncations, replacements, rewrites) equals a fresh open of the final file, and a session already handed out never changes', async () => {
    // With revisions: reductions of an earlier message and earlier indices re-recorded (the incremental resolve must redo what they touch).
    const texts = [false, true].map((revisions) => Buffer.from(liveSessionText(10, { revisions })));
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.boolean(), fc.nat(), fc.array(opArb, { maxLength: 14 }), async (revisions, first, ops) => {
        const text = texts[revisions ? 1 : 0] as Buffer;
        const ends = lineEnds(text.toString('latin1'));
        const firstLines = first % ends.length;
        const path = tmp.path(`s${run++}.sidecar.jsonl`);
        // `written` is what the file holds; the header's session id may be rewritten in place.
        let written = text.subarray(0, ends[firstLines]);
        writeFileSync(path, written);
        const follower = await follow(path);
        const notices: string[] = [];
        const look = async (settle = false) => {
          // What was handed out before this look (its shape: reading content may need files a reopen closed).
          const before = follower.session;
          const shape = sessionShape(before);
          const update: FollowUpdate | undefined = settle ? await follower.settle() : await follower.look();
          if (update?.notice) notices.push(update.notice.kind);
          expect(sessionShape(before)).toEqual(shape);
          // A file that ends with its newline shows what a fresh open shows.
          if (written.length > 0 && written[written.length - 1] === 0x0a) expect(sessionState(follower.session)).toEqual(await freshState(path));
        };
        try {
          for (const op of ops) {
            if (op.kind === 'append') {
              const left = text.length - written.length;
              if (left === 0) continue;
              const more = text.subarray(written.length, written.length + 1 + (op.cut % left));
              appendFileSync(path, more);
              written = Buffer.concat([written, more]);
              if (op.look) await look();
            } else if (op.kind === 'truncate') {
              const cut = ends[op.line % Math.max(1, ends.findIndex((e) => e > written.length))] ?? ends[0] ?? 0;
              if (cut >= written.length) continue;
              truncateSync(path, cut);
              written = written.subarray(0, cut);
              await look();
            } else if (op.kind === 'replace') {
              writeFileSync(`${path}.new`, written);
              renameSync(`${path}.new`, path);
              await look();
            } else if (op.kind === 'rewriteHeader') {
              const at = written.indexOf('s-live');
              if (at < 0) continue;
              const swapped = Buffer.from(written[at + 2] === 0x6c ? 'L' : 'l');
              const fd = openSync(path, 'r+');
              writeSync(fd, swapped, 0, 1, at + 2);
              closeSync(fd);
              written = Buffer.concat([written.subarray(0, at + 2), swapped, written.subarray(at + 3)]);
              await look();
            } else {
              await look(true);
            }
          }
          appendFileSync(path, text.subarray(written.length));
          written = Buffer.concat([written, text.subarray(written.length)]);
          await look();
          await look(true);
          expect(sessionState(follower.session)).toEqual(await freshState(path));
          expect(readFileSync(path).equals(written)).toBe(true);
        } finally {
          follower.close();
          rmSync(path, { force: true });
        }
      }),
      { numRuns: 40 },
    );
  }, 120_000);

  it('a torn last line waits while the file grows and is taken as truncated_last_line once it has not changed for settleMs', async () => {
    const text = liveSessionText(3);
    const path = tmp.path('torn.sidecar.jsonl');
    const lastStart = text.lastIndexOf('\n', text.length - 2) + 1;
    writeFileSync(path, text.slice(0, lastStart));
    let clock = 0;
    const follower = await follow(path, { settleMs: 2000, now: () => clock });
    try {
      appendFileSync(path, text.slice(lastStart, lastStart + 10));
      expect(await follower.look()).toBeUndefined();
      clock = 1999;
      expect(await follower.look()).toBeUndefined();
      expect(follower.session.loadFindings.some((f) => f.code === 'truncated_last_line')).toBe(false);
      clock = 2000;
      const settled = await follower.look();
      expect(settled?.session.loadFindings.some((f) => f.code === 'truncated_last_line')).toBe(true);
      // Completed later: read again (no notice: nothing went wrong), and the line is a message now.
      appendFileSync(path, text.slice(lastStart + 10));
      const completed = await follower.look();
      expect(completed?.notice).toBeUndefined();
      expect(sessionState(follower.session)).toEqual(await freshState(path));
    } finally {
      follower.close();
    }
  });

  it('a deleted file keeps what is shown, with one notice; a file written again at the path is reopened with a notice', async () => {
    const text = liveSessionText(3);
    const path = tmp.path('deleted.sidecar.jsonl');
    writeFileSync(path, text);
    const follower = await follow(path);
    try {
      const before = sessionState(follower.session);
      rmSync(path);
      const gone = await follower.look();
      expect(gone?.notice?.kind).toBe('deleted');
      expect(gone?.notice?.message).toContain('still shown');
      expect(await follower.look()).toBeUndefined();
      expect(sessionState(follower.session)).toEqual(before);
      writeFileSync(path, liveSessionText(5));
      const back = await follower.look();
      expect(back?.notice?.kind).toBe('reopened');
      expect(sessionState(follower.session)).toEqual(await freshState(path));
    } finally {
      follower.close();
    }
  });

  it('a file emptied (no longer a session) keeps what is shown and is reopened once it is one again', async () => {
    const text = liveSessionText(3);
    const path = tmp.path('emptied.sidecar.jsonl');
    writeFileSync(path, text);
    const follower = await follow(path);
    try {
      const before = follower.session;
      truncateSync(path, 0);
      const lost = await follower.look();
      expect(lost?.notice?.kind).toBe('deleted');
      // The bytes are gone: the session shown is kept (its reads now answer file_changed).
      expect(follower.session).toBe(before);
      appendFileSync(path, text);
      expect((await follower.look())?.notice?.kind).toBe('reopened');
      expect(sessionState(follower.session)).toEqual(await freshState(path));
    } finally {
      follower.close();
    }
  });

  it('a look at an unchanged file answers undefined and indexes nothing', async () => {
    const path = tmp.path('idle.sidecar.jsonl');
    writeFileSync(path, liveSessionText(2));
    const follower = await follow(path);
    try {
      const session = follower.session;
      for (let k = 0; k < 3; k++) expect(await follower.look()).toBeUndefined();
      expect(follower.session).toBe(session);
    } finally {
      follower.close();
    }
  });

  const appendedFormats: [string, () => string][] = [
    ['Claude Code transcript', () => readFileSync(generateClaudeTranscript(tmp.path('cc'), { bytes: 40_000, seed: 7 }).path, 'utf8')],
    ['Codex rollout', () => codexSynthetic()['all-items.jsonl'] as string],
  ];
  for (const [name, make] of appendedFormats) {
    it(`a ${name} appended in random pieces ends as a fresh open of the final file`, async () => {
      const text = Buffer.from(make());
      const ends = lineEnds(text.toString('latin1'));
      let run = 0;
      await fc.assert(
        fc.asyncProperty(fc.array(fc.nat({ max: text.length }), { minLength: 1, maxLength: 8 }), async (cuts) => {
          const path = tmp.path(`${name.replace(/ /g, '-')}-${run++}.jsonl`);
          // A first complete line or more, so the format is recognised at open.
          let at = ends[Math.min(2, ends.length - 1)] ?? text.length;
          writeFileSync(path, text.subarray(0, at));
          const follower = await follow(path);
          try {
            for (const cut of [...cuts].sort((a, b) => a - b)) {
              if (cut <= at) continue;
              appendFileSync(path, text.subarray(at, cut));
              at = cut;
              await follower.look();
              if (text[at - 1] === 0x0a) expect(sessionState(follower.session)).toEqual(await freshState(path));
            }
            appendFileSync(path, text.subarray(at));
            await follower.look();
            expect(sessionState(follower.session)).toEqual(await freshState(path));
          } finally {
            follower.close();
            rmSync(path, { force: true });
          }
        }),
        { numRuns: 15 },
      );
    }, 120_000);
  }
});
