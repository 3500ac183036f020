/**
 * Claude Code `attachment` records as the context the model is given (docs/formats/claude-code.md,
 * "Attachments"): on a real 2.1.119 transcript, expectations read from its raw records; on a
 * synthetic compaction, an attachment before the boundary is given until it and not after.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { LoadedSession } from '../../../shared/resolver/session';
import { tempDir } from '../../../tools/testing/files';
import { loadSession } from '../session';
import { SessionBuilder } from './testing/build';

const REAL = join(import.meta.dirname, '../../../e2e/fixtures/real/claude-code/cc-2.1.119-attachments.jsonl');
const tmp = tempDir('session-inspector-cc-attachments-');
const open: LoadedSession[] = [];
afterAll(() => {
  for (const s of open) s.close();
  tmp.cleanup();
});

async function load(path: string): Promise<LoadedSession> {
  const r = await loadSession([path]);
  if (!r.ok) throw new Error(r.error.message);
  open.push(r.session);
  return r.session;
}

type Raw = Record<string, unknown> & { line: number };
const raw: Raw[] = readFileSync(REAL, 'utf8')
  .split('\n')
  .filter((l) => l.trim() !== '')
  .map((l, k) => ({ ...(JSON.parse(l) as Record<string, unknown>), line: k + 1 }));
const attachments = raw.filter((r) => r.type === 'attachment').map((r) => ({ line: r.line, a: r.attachment as Record<string, unknown> }));

/**
 * Given, by the rules read from Claude Code 2.1.91 (docs/formats/claude-code.md): a hook's
 * success only for SessionStart/UserPromptSubmit with output; its system message and the command
 * permissions never; the rest of this file's kinds always.
 */
function givenByHand(a: Record<string, unknown>): boolean {
  if (a.type === 'hook_success') return (a.hookEvent === 'SessionStart' || a.hookEvent === 'UserPromptSubmit') && a.content !== '';
  return a.type !== 'hook_system_message' && a.type !== 'command_permissions';
}

/** The line of each call's first record: one call per API message (`message.id`) of the main chain, in file order. */
const callLines: number[] = [];
{
  const seen = new Set<string>();
  for (const r of raw) {
    const id = r.type === 'assistant' ? ((r.message as { id?: string }).id ?? '') : undefined;
    if (id === undefined || seen.has(id)) continue;
    seen.add(id);
    callLines.push(r.line);
  }
}

describe('Claude Code attachments the model is given (real 2.1.119 transcript)', () => {
  it('the file holds given and not-given kinds (the test means something)', () => {
    expect(attachments.filter((x) => givenByHand(x.a)).length).toBeGreaterThan(5);
    expect(attachments.filter((x) => !givenByHand(x.a)).map((x) => x.a.type)).toEqual(expect.arrayContaining(['hook_success', 'hook_system_message', 'command_permissions']));
  });

  it('each call is given exactly the given attachments recorded before it, in file order, with the text its record holds', async () => {
    const s = await load(REAL);
    expect(s.calls.length).toBe(callLines.length);
    for (let n = 1; n <= callLines.length; n++) {
      const expected = attachments.filter((x) => givenByHand(x.a) && x.line < callLines[n - 1]!);
      const got = s.instructionsAt(n)!;
      expect(got.map((i) => [i.kind, i.line])).toEqual(expected.map((x) => [x.a.type, x.line]));
      expect(got.every((i) => i.source === 'claude_code_attachment' && i.placement === 'user_message' && i.unconfirmed === undefined)).toBe(true);
    }
    // The latest view: all of them.
    expect(s.instructionsAt(null)!.map((i) => i.line)).toEqual(attachments.filter((x) => givenByHand(x.a)).map((x) => x.line));
    expect(s.instructionsAt(callLines.length + 1)).toBeUndefined();
  });

  it('the text is the record\'s own: a string content, a list of contents, the added tool lines and MCP blocks', async () => {
    const s = await load(REAL);
    const byLine = new Map(s.instructionsAt(null)!.map((i) => [i.line, i]));
    for (const { line, a } of attachments.filter((x) => givenByHand(x.a))) {
      const text = byLine.get(line)!.text;
      if (typeof a.content === 'string') expect(text).toBe(a.content);
      else if (Array.isArray(a.content) && a.content.length > 0) expect(text).toBe((a.content as string[]).join('\n'));
      else if (Array.isArray(a.addedBlocks)) expect(text).toBe((a.addedBlocks as string[]).join('\n\n'));
      else if (Array.isArray(a.addedLines)) expect(text).toBe((a.addedLines as string[]).join('\n'));
      else expect(JSON.parse(text)).toEqual(Object.fromEntries(Object.entries(a).filter(([k]) => k !== 'type')));
    }
  });

  it('each is placed after the messages recorded before it: the session-start hooks before the prompt, the prompt\'s attachments after it', async () => {
    const s = await load(REAL);
    const firstPrompt = raw.find((r) => r.type === 'user')!.line;
    for (const i of s.instructionsAt(null)!) {
      // The view's messages before `index` are the ones whose records come before the attachment's.
      if (i.line < firstPrompt) expect(i.index).toBe(0);
      else expect(i.index).toBeGreaterThanOrEqual(1);
    }
    expect(s.instructionsAt(1)!.filter((i) => i.line > firstPrompt).every((i) => i.index === 1)).toBe(true);
  });
});

describe('Claude Code attachments and compactions (synthetic)', () => {
  it('an attachment before a compaction is given until its boundary; one after it from then on; a newer kind is shown unconfirmed', async () => {
    const b = new SessionBuilder();
    b.user('first prompt', null);
    b.add({ type: 'attachment', attachment: { type: 'skill_listing', content: 'SKILLS-BEFORE', isInitial: true, skillCount: 1 } });
    b.add({ type: 'attachment', attachment: { type: 'hook_system_message', content: 'shown to the user only', hookEvent: 'SessionStart', hookName: 'SessionStart:startup' } });
    const before = b.assistant('msg_1', [{ type: 'text', text: 'answer one' }])[0]!;
    b.add({ type: 'system', subtype: 'compact_boundary', content: 'Conversation compacted', logicalParentUuid: before, compactMetadata: { trigger: 'auto', preTokens: 1000 } }, null);
    b.user('the summary', undefined, { isCompactSummary: true });
    b.add({ type: 'attachment', attachment: { type: 'skill_listing', content: 'SKILLS-AFTER', isInitial: false, skillCount: 1 } });
    b.add({ type: 'attachment', attachment: { type: 'goal_status', met: false, condition: 'ship it' } });
    b.user('second prompt');
    b.assistant('msg_2', [{ type: 'text', text: 'answer two' }]);
    const path = tmp.path('compaction.jsonl');
    writeFileSync(path, b.text());
    const s = await load(path);
    expect(s.calls.length).toBe(2);
    expect(s.instructionsAt(1)!.map((i) => i.text)).toEqual(['SKILLS-BEFORE']);
    const after = s.instructionsAt(2)!;
    expect(after.map((i) => i.kind)).toEqual(['skill_listing', 'goal_status']);
    expect(after[0]!.text).toBe('SKILLS-AFTER');
    expect(after[1]!.unconfirmed).toBe(true);
    expect(JSON.parse(after[1]!.text)).toEqual({ met: false, condition: 'ship it' });
    expect(s.instructionsAt(null)!.map((i) => i.kind)).toEqual(['skill_listing', 'goal_status']);
  });
});
