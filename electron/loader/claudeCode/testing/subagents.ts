/**
 * A project folder with every subagent layout (docs/FORMATS.md §1.1 and docs/FORMATS.md §1.9), written by the transcript
 * builder: the session `SESSION_ID` with a 2.1.x subagent, a workflow subagent of the same agentId
 * (and the workflow's journal), a 2.0.x agent file beside it, and a 2.0.x agent file of another
 * session in the same folder (not one of ours).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SESSION_ID, SessionBuilder } from './build';

export const OTHER_SESSION = '99999999-2222-4333-8444-555555555555';
/** A 2.0.x agent of SESSION_ID, beside it; its first prompt is longer than the head read to check it. */
export const BESIDE_ID = 'a1b2c3d4';
export const FOREIGN_ID = 'e5f6a7b8';
export const PLAIN_ID = 'a7c0ffee1';
export const WORKFLOW = 'wf_0001';

/** An agent transcript: every record a sidechain of `sessionId` with `agentId`, a prompt and an answer. */
export function agentText(sessionId: string, agentId: string, prompt: string, answer: string): string {
  const b = new SessionBuilder({ isSidechain: true, agentId, sessionId });
  b.user(prompt, null);
  b.assistant(`msg_${agentId}`, [{ type: 'text', text: answer }]);
  return b.text();
}

/** Writes the folder into `dir`; returns the main session's path. */
export function writeSubagentLayouts(dir: string): string {
  mkdirSync(dir, { recursive: true });
  const main = new SessionBuilder();
  main.user('Start three agents', null);
  main.assistant('msg_main', [{ type: 'text', text: 'Started.' }]);
  const path = join(dir, `${SESSION_ID}.jsonl`);
  writeFileSync(path, main.text());
  const other = new SessionBuilder({ sessionId: OTHER_SESSION });
  other.user('Another session in the same project', null);
  writeFileSync(join(dir, `${OTHER_SESSION}.jsonl`), other.text());

  writeFileSync(join(dir, `agent-${BESIDE_ID}.jsonl`), agentText(SESSION_ID, BESIDE_ID, `BESIDE prompt ${'x'.repeat(6000)}`, 'BESIDE answer'));
  writeFileSync(join(dir, `agent-${FOREIGN_ID}.jsonl`), agentText(OTHER_SESSION, FOREIGN_ID, 'FOREIGN prompt', 'FOREIGN answer'));

  const subagents = join(dir, SESSION_ID, 'subagents');
  const workflow = join(subagents, 'workflows', WORKFLOW);
  mkdirSync(workflow, { recursive: true });
  writeFileSync(join(subagents, `agent-${PLAIN_ID}.jsonl`), agentText(SESSION_ID, PLAIN_ID, 'PLAIN prompt', 'PLAIN answer'));
  writeFileSync(join(workflow, `agent-${PLAIN_ID}.jsonl`), agentText(SESSION_ID, PLAIN_ID, 'WORKFLOW prompt', 'WORKFLOW answer'));
  writeFileSync(join(workflow, 'journal.jsonl'), `${JSON.stringify({ type: 'workflow_started', workflowId: WORKFLOW })}\n`);
  return path;
}
