/**
 * Files a format reads beside the session file (docs/safe-reads.md) — a Claude Code tool-results
 * file, a subagent transcript in each layout and its meta file, an OpenHands V1 event file and
 * base_state.json, and the folders that hold them — made hostile at test time: a FIFO, a link to
 * /dev/zero, a link out of the session's folder. Each is refused with a finding naming it and
 * why; the session still opens, promptly and small, and nothing from outside reaches it.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, realpathSync, renameSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { LoadedSession } from '../../shared/resolver/session';
import { makeHeader, messageRecord, tempDir, writeSidecar } from '../../tools/testing/files';
import { SessionFollower } from './follow';
import type { LoadOptions } from './session';
import { loadSession } from './session';
import type { CompanionKind, Hostility } from './testing/foreignFiles';
import { COMPANION_FILES, COMPANION_FOLDERS, OUTSIDE_SECRET, buildForeignCase, fifoWriter } from './testing/foreignFiles';

const tmp = tempDir('session-inspector-foreign-');
afterAll(() => tmp.cleanup());

let writer: ChildProcess | undefined;
afterEach(() => {
  if (writer?.exitCode === null && writer.pid !== undefined) writer.kill();
  writer = undefined;
});

const WHY: Record<Hostility, RegExp> = {
  fifo: /FIFO \(named pipe\), not a regular file/,
  'dev-zero': /symbolic link: not followed/,
  'link-out': /symbolic link: not followed/,
};

let made = 0;
function make(kind: CompanionKind, hostility: Hostility) {
  made++;
  const c = buildForeignCase(tmp.path(`case-${made}/${kind}`), tmp.path(`case-${made}/outside`), kind, hostility);
  if (hostility === 'fifo') writer = fifoWriter(c.companion);
  return c;
}

async function opened(path: string, options: LoadOptions = {}): Promise<LoadedSession> {
  const loaded = await loadSession([path], options);
  if (!loaded.ok) throw new Error(loaded.error.message);
  return loaded.session;
}

/** Every message of every session the file lists (each opened by its id), as text. */
async function everyText(path: string, options: LoadOptions = {}): Promise<string> {
  const first = await opened(path, options);
  const ids = first.check().summary.sessions?.map((s) => s.id) ?? [];
  first.close();
  const texts: string[] = [];
  for (const id of ids.length > 0 ? ids : [undefined]) {
    const s = await opened(path, { ...options, ...(id !== undefined ? { session: id } : {}) });
    for (let i = 0; i < s.minted.length; i++) texts.push(JSON.stringify(s.minted.at(i)));
    for (const r of s.log) texts.push(JSON.stringify(s.expand(r.id)));
    s.close();
  }
  return texts.join('\n');
}

describe('a hostile companion file is refused with a finding, and the session still opens', () => {
  for (const kind of COMPANION_FILES) {
    for (const hostility of ['fifo', 'dev-zero', 'link-out'] as const) {
      it(`${kind} as ${hostility}: a finding names it and why, within seconds and well under 1 GB`, async () => {
        const c = make(kind, hostility);
        const rss = process.memoryUsage().rss;
        const started = performance.now();
        const s = await opened(c.main);
        const findings = s.check().findings.filter((f) => WHY[hostility].test(f.message));
        expect(findings.length, JSON.stringify(s.check().findings)).toBeGreaterThan(0);
        expect(findings.some((f) => f.message.includes(c.companion.split('/').pop()!))).toBe(true);
        // A refused subagent is not listed, so it cannot be opened either.
        if (c.agent !== undefined && kind !== 'subagent-meta') {
          expect(s.check().summary.sessions?.map((x) => x.id)).not.toContain(c.agent);
          expect(await loadSession([c.main], { session: c.agent })).toMatchObject({ ok: false, error: { code: 'usage' } });
        }
        s.close();
        expect(await everyText(c.main)).not.toContain(OUTSIDE_SECRET);
        expect(performance.now() - started).toBeLessThan(10_000);
        expect(process.memoryUsage().rss - rss).toBeLessThan(512 * 1024 * 1024);
      });
    }
  }

  it('a tool-results file refused is original_unavailable when expanded, and its finding names the reduction', async () => {
    const c = make('tool-result', 'fifo');
    const s = await opened(c.main);
    const finding = s.check().findings.find((f) => f.message.includes('tool-results/') && f.reduction_id !== undefined);
    expect(finding?.message).toMatch(/was not read: it is a FIFO/);
    const expanded = s.expand(finding!.reduction_id!);
    expect(!expanded.ok && expanded.error.code).toBe('original_unavailable');
    s.close();
  });
});

describe('a companion folder that leads out of the session folder is not listed', () => {
  for (const kind of COMPANION_FOLDERS) {
    it(`${kind} as a link out: a finding says it resolves outside; nothing from outside is shown`, async () => {
      const c = make(kind, 'link-out');
      const s = await opened(c.main);
      expect(s.check().findings.map((f) => f.message).join('\n')).toMatch(/resolves outside the folder it was found in: not followed/);
      s.close();
      expect(await everyText(c.main)).not.toContain(OUTSIDE_SECRET);
    });
  }

  it('with the roots the host gives (serve DIR), a companion inside them but outside the session folder is read', async () => {
    // The host's roots replace the session folder: a tool-results folder linking elsewhere inside them is followed.
    const c = make('tool-results-folder', 'link-out');
    const root = tmp.path(`case-${made}`);
    expect(await everyText(c.main, { roots: [realpathSync(root)] })).toContain(OUTSIDE_SECRET);
    expect(await everyText(c.main, { roots: [realpathSync(tmp.path(`case-${made}/tool-results-folder`))] })).not.toContain(OUTSIDE_SECRET);
  });
});

describe("the host's roots (serve DIR), at the open and at every reopen", () => {
  function served(name: string) {
    const dir = tmp.path(`roots-${name}`);
    mkdirSync(dir);
    mkdirSync(tmp.path(`roots-${name}-outside`));
    const path = writeSidecar(join(dir, 'live.sidecar.jsonl'), [makeHeader({ session_id: 'inside' }), messageRecord(0, { role: 'user', content: 'inside' })]);
    const secret = writeSidecar(tmp.path(`roots-${name}-outside/secret.sidecar.jsonl`), [makeHeader({ session_id: OUTSIDE_SECRET }), messageRecord(0, { role: 'user', content: OUTSIDE_SECRET })]);
    /** Renames a link to the outside file over the session file (what a writer can do at any moment). */
    const linkOut = (): void => {
      symlinkSync(secret, join(dir, 'link.tmp'));
      renameSync(join(dir, 'link.tmp'), path);
    };
    return { roots: [realpathSync(dir)], path, linkOut };
  }

  it('a session file that is a link (inside or out) is refused at the open', async () => {
    const s = served('open');
    s.linkOut();
    const loaded = await loadSession([s.path], { roots: s.roots });
    expect(loaded).toMatchObject({ ok: false, error: { code: 'unreadable_file' } });
    expect(!loaded.ok && loaded.error.message).toMatch(/symbolic link: not followed/);
  });

  it('a followed session file replaced by a link out is not reopened through it: what was read stays, with a notice', async () => {
    const s = served('follow');
    const opened = await SessionFollower.open([s.path], { roots: s.roots });
    if (!opened.ok) throw new Error(opened.error.message);
    const follower = opened.follower;
    try {
      expect(follower.session.sessionId).toBe('inside');
      s.linkOut();
      const update = await follower.look();
      expect(update?.notice?.kind).toBe('deleted');
      expect(update?.notice?.message).toMatch(/symbolic link: not followed/);
      expect(follower.session.sessionId).toBe('inside');
      // A later look reopens nothing either.
      expect((await follower.look())?.session.sessionId ?? 'inside').toBe('inside');
    } finally {
      follower.close();
    }
  });
});
