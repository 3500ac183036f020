/**
 * Subagent layouts of Claude Code (docs/FORMATS.md §1.1 and docs/FORMATS.md §1.9) as further sessions of the file: 2.1.x
 * `subagents/`, workflow subagents and 2.0.x agent files beside the session, found by content.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { LoadedSession } from '../../../shared/resolver/session';
import { tempDir } from '../../../tools/testing/files';
import type { LoadOptions } from '../session';
import { loadSession } from '../session';
import { runCli } from '../../cli/testing/runCli';
import { sessionFolderRoots } from '../common/safeRead';
import { HEAD_BYTES, MAX_BESIDE, headSessionId } from './besideAgents';
import { subagentFiles } from './subagents';
import { SESSION_ID } from './testing/build';
import { BESIDE_ID, FOREIGN_ID, OTHER_SESSION, PLAIN_ID, WORKFLOW, agentText, writeSubagentLayouts } from './testing/subagents';

const tmp = tempDir('session-inspector-cc-agents-');
afterAll(() => tmp.cleanup());
const main = writeSubagentLayouts(tmp.dir);
const WORKFLOW_ID = `workflows/${WORKFLOW}/${PLAIN_ID}`;

async function open(path: string, options: LoadOptions = {}): Promise<LoadedSession> {
  const loaded = await loadSession([path], options);
  if (!loaded.ok) throw new Error(loaded.error.message);
  return loaded.session;
}

const texts = (s: LoadedSession): string[] => Array.from({ length: s.minted.length }, (_, i) => s.minted.at(i)?.content ?? '');

describe('Claude Code subagent layouts', () => {
  it("check's summary lists the 2.1.x, workflow and 2.0.x subagents of this session, not another session's agent or the journal", async () => {
    const s = await open(main);
    const ids = s.check().summary.sessions?.map((x) => x.id);
    expect(ids).toEqual([SESSION_ID, PLAIN_ID, WORKFLOW_ID, BESIDE_ID]);
    expect(ids).not.toContain(FOREIGN_ID);
    expect(ids?.some((id) => id.includes('journal'))).toBe(false);
    s.close();
  });

  it('a workflow subagent with the same agentId as a plain one gets its own id (workflows/<wf_id>/<agentId>); --session opens each', async () => {
    for (const [id, prompt] of [
      [PLAIN_ID, 'PLAIN prompt'],
      [WORKFLOW_ID, 'WORKFLOW prompt'],
      [BESIDE_ID, 'BESIDE prompt'],
    ] as const) {
      const s = await open(main, { session: id });
      expect(s.sessionId, id).toBe(id);
      expect(texts(s)[0]?.startsWith(prompt), id).toBe(true);
      expect(texts(s)).toHaveLength(2);
      s.close();
    }
  });

  it("another session's 2.0.x agent is refused as --session: a usage error naming this file's sessions", async () => {
    const r = await loadSession([main], { session: FOREIGN_ID });
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error.code).toBe('usage');
      expect(r.error.message).toContain(BESIDE_ID);
      expect(r.error.message).not.toContain(`${FOREIGN_ID},`);
    }
  });

  it('a 2.0.x agent file opened alone is its own session and does not list its siblings', async () => {
    const s = await open(join(tmp.dir, `agent-${BESIDE_ID}.jsonl`));
    expect(s.check().summary.sessions?.map((x) => x.id)).toEqual([BESIDE_ID]);
    s.close();
  });

  it('the sessionId of a head whose first line is longer than the head comes from the envelope; a head without one is undefined', () => {
    const beside = readFileSync(join(tmp.dir, `agent-${BESIDE_ID}.jsonl`), 'utf8');
    expect(beside.indexOf('\n')).toBeGreaterThan(HEAD_BYTES);
    expect(headSessionId(beside.slice(0, HEAD_BYTES))).toBe(SESSION_ID);
    expect(headSessionId('{"type":"user","message":{"content":"no id')).toBeUndefined();
    expect(headSessionId('')).toBeUndefined();
  });

  it('a candidate that is not a transcript, or names no session, is left out; listing never throws', () => {
    const dir = tmp.path('odd');
    const path = writeSubagentLayouts(dir);
    writeFileSync(join(dir, 'agent-0badc0de.jsonl'), '\u0000\u0000 not json\n');
    writeFileSync(join(dir, 'agent-0badc0df.jsonl'), '');
    const ids = subagentFiles(path, readFileSync(path, 'utf8'), sessionFolderRoots(path)).files.map((a) => a.id);
    expect(ids).toEqual([PLAIN_ID, WORKFLOW_ID, BESIDE_ID]);
  });

  it(`looks at no more than MAX_BESIDE (${MAX_BESIDE}) 2.0.x candidates, in name order`, () => {
    const dir = tmp.path('crowded');
    const path = writeSubagentLayouts(dir);
    // Candidates of another session that sort before ours push it past the bound.
    const foreign = agentText(OTHER_SESSION, FOREIGN_ID, 'p', 'a');
    for (let k = 0; k < MAX_BESIDE; k++) writeFileSync(join(dir, `agent-0${k.toString(16).padStart(7, '0')}.jsonl`), foreign);
    const ids = subagentFiles(path, readFileSync(path, 'utf8'), sessionFolderRoots(path)).files.map((a) => a.id);
    expect(ids).toEqual([PLAIN_ID, WORKFLOW_ID]);
  });

  it("the command line: check's summary lists every layout, --session opens the workflow and the 2.0.x subagent", async () => {
    const all = await runCli(['check', main]);
    expect(all.code).toBe(0);
    expect((JSON.parse(all.stdout) as { summary: { sessions: { id: string }[] } }).summary.sessions.map((x) => x.id)).toEqual([SESSION_ID, PLAIN_ID, WORKFLOW_ID, BESIDE_ID]);
    for (const id of [WORKFLOW_ID, BESIDE_ID]) {
      const r = await runCli(['check', '--session', id, main]);
      expect(r.code, id).toBe(0);
      expect(JSON.parse(r.stdout), id).toMatchObject({ summary: { session_id: id, messages: 2 } });
    }
  });
});
