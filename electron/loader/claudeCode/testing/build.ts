/**
 * Synthetic Claude Code transcripts for tests, written record by record in Claude Code's shapes
 * (docs/FORMATS.md §1). `SessionBuilder` chains records through `parentUuid` like Claude Code does;
 * `writeSynthetic` writes the scenario of every record type and edge case the importer handles.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const SESSION_ID = '11111111-2222-4333-8444-555555555555';
export type Rec = Record<string, unknown>;

export class SessionBuilder {
  readonly lines: string[] = [];
  private n = 0;
  /** uuid of the last chained record. */
  last: string | null = null;

  constructor(private readonly extra: Rec = {}) {}

  uuid(): string {
    this.n++;
    return `00000000-0000-4000-8000-${String(this.n).padStart(12, '0')}`;
  }

  raw(line: string): void {
    this.lines.push(line);
  }

  /** Appends a record chained to `parent` (default: the last one); returns its uuid. */
  add(fields: Rec, parent: string | null | undefined = this.last): string {
    const uuid = this.uuid();
    this.lines.push(JSON.stringify({ parentUuid: parent, isSidechain: false, userType: 'external', cwd: '/work/demo', sessionId: SESSION_ID, version: '2.1.17', ...this.extra, ...fields, uuid, timestamp: '2026-01-01T00:00:00.000Z' }));
    this.last = uuid;
    return uuid;
  }

  user(content: unknown, parent?: string | null, more: Rec = {}): string {
    return this.add({ type: 'user', message: { role: 'user', content }, ...more }, parent);
  }

  /** One assistant record per block, all of one API message, like Claude Code writes them. */
  assistant(messageId: string, blocks: Rec[], parent?: string | null, more: Rec = {}): string[] {
    return blocks.map((b, k) => this.add({ type: 'assistant', requestId: `req_${messageId}`, message: { id: messageId, model: 'claude-sonnet-4-5', role: 'assistant', type: 'message', content: [b], stop_reason: null, usage: { input_tokens: 1, output_tokens: 1 } }, ...more }, k === 0 ? parent : undefined));
  }

  result(toolUseId: string, content: unknown, parent?: string | null, more: Rec = {}): string {
    return this.user([{ tool_use_id: toolUseId, type: 'tool_result', content }], parent, more);
  }

  meta(fields: Rec): void {
    this.lines.push(JSON.stringify(fields));
  }

  text(): string {
    return this.lines.join('\n') + '\n';
  }
}

export const toolUse = (id: string, command: string): Rec => ({ type: 'tool_use', id, name: 'Bash', input: { command } });
export const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
export const SUMMARY = 'This session is being continued from a previous conversation. Summary: the user asked for the build to be fixed; a semicolon was added.';
export const PERSISTED_FULL = 'line of a long output\n'.repeat(200) + 'SECRET-ONLY-IN-TOOL-RESULTS\n';
export const CLEARED_OUTPUT = 'old grep output: HIDDEN-BY-MICROCOMPACT\n';

export function persistedStub(name: string, size: string, preview: string): string {
  return `<persisted-output>\nOutput too large (${size}). Full output saved to: /home/u/.claude/projects/-work-demo/${SESSION_ID}/tool-results/${name}\n\nPreview (first 2KB):\n${preview}\n...\n</persisted-output>`;
}

/**
 * The main scenario, in file order: a prompt with an image; a split response (thinking, text, two
 * parallel tool_uses) whose results come back in the other order; a tool_result that is a list of
 * blocks; an abandoned branch (a rewind) then the live prompt; a compaction (boundary + summary);
 * a tool result cleared by a microcompaction; a persisted output whose file is present and one
 * whose file is missing; an inline sidechain; metadata and an unknown record type; a torn last line.
 */
export function mainScenario(): { text: string; toolResults: Record<string, string> } {
  const b = new SessionBuilder();
  b.meta({ type: 'file-history-snapshot', messageId: 'm0', snapshot: {}, isSnapshotUpdate: false });
  b.user([{ type: 'text', text: '[Image #1] what is in this picture?' }, { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } }], null);
  const [, , callA, callB] = b.assistant('msg_1', [{ type: 'thinking', thinking: 'The user wants two commands.', signature: 'sig1' }, { type: 'text', text: 'Running two commands.' }, toolUse('toolu_A', 'ls'), toolUse('toolu_B', 'pwd')]);
  b.result('toolu_B', '/work/demo', callB);
  const lastResult = b.result('toolu_A', 'a.txt\nb.txt', callA);
  b.add({ type: 'progress', data: { type: 'hook_progress' }, toolUseID: 'toolu_A' }, callA);
  b.assistant('msg_2', [toolUse('toolu_C', 'agent')], lastResult);
  const listResult = b.result('toolu_C', [{ type: 'text', text: 'agent answer' }, { type: 'text', text: 'agentId: abc1234 (for resuming)' }]);
  const fork = b.assistant('msg_3', [{ type: 'text', text: 'Done with the first part.' }], listResult)[0]!;
  const stop = b.add({ type: 'system', subtype: 'stop_hook_summary', hookCount: 0 }, fork);
  // The abandoned branch: a prompt and its answer, later edited.
  b.user('ABANDONED prompt that was rewound', stop);
  b.assistant('msg_4', [{ type: 'text', text: 'ABANDONED answer' }]);
  const live = b.user('the live prompt', stop);
  const beforeBoundary = b.assistant('msg_5', [{ type: 'text', text: 'live answer before compaction' }], live)[0]!;
  // The compaction: a root whose logical parent is the last record before it.
  const boundary = b.add({ type: 'system', subtype: 'compact_boundary', content: 'Conversation compacted', logicalParentUuid: beforeBoundary, compactMetadata: { trigger: 'auto', preTokens: 1000 } }, null);
  b.user(SUMMARY, boundary, { isCompactSummary: true, isVisibleInTranscriptOnly: true });
  b.user('continue please');
  const [callD] = b.assistant('msg_6', [toolUse('toolu_D', 'grep -r x')]);
  b.result('toolu_D', CLEARED_OUTPUT, callD);
  b.add({ type: 'system', subtype: 'microcompact_boundary', content: 'Context microcompacted', microcompactMetadata: { trigger: 'auto', preTokens: 10, tokensSaved: 5, compactedToolIds: ['toolu_D'], clearedAttachmentUUIDs: [] } });
  const [callE] = b.assistant('msg_7', [toolUse('toolu_E', 'cat big')]);
  b.result('toolu_E', persistedStub('bpresent1.txt', '4.4KB', 'line of a long output'), callE, { toolUseResult: { stdout: 'x', persistedOutputSize: 4429 } });
  const [callF] = b.assistant('msg_8', [toolUse('toolu_F', 'cat bigger')]);
  const resultF = b.result('toolu_F', persistedStub('bmissing2.txt', '49KB', 'first bytes'), callF, { toolUseResult: { stdout: 'y', persistedOutputSize: 50192 } });
  // An inline sidechain (1.0.x style): its own root, not in the main chain.
  const side = new SessionBuilder({ isSidechain: true });
  const sideRoot = side.add({ type: 'user', message: { role: 'user', content: 'SIDECHAIN task prompt' } }, null);
  side.add({ type: 'assistant', message: { id: 'msg_s1', model: 'claude-haiku', role: 'assistant', content: [{ type: 'text', text: 'sidechain answer' }] } }, sideRoot);
  for (const l of side.lines) b.raw(l.replaceAll('00000000-0000-4000-8000-', 'ffffffff-0000-4000-8000-'));
  b.assistant('msg_9', [{ type: 'text', text: 'All done.' }], resultF);
  b.meta({ type: 'last-prompt', lastPrompt: 'continue please', leafUuid: live });
  b.meta({ type: 'brand-new-record-type', sessionId: SESSION_ID });
  b.meta({ type: 'ai-title', aiTitle: 'Synthetic demo', sessionId: SESSION_ID });
  const text = b.text() + '{"type":"user","message":{"role":"us';
  return { text, toolResults: { 'bpresent1.txt': PERSISTED_FULL } };
}

/** Writes the main scenario as `<dir>/<SESSION_ID>.jsonl` with its `tool-results/` folder; returns the path. */
export function writeSynthetic(dir: string): string {
  const { text, toolResults } = mainScenario();
  const path = join(dir, `${SESSION_ID}.jsonl`);
  writeFileSync(path, text);
  const results = join(dir, SESSION_ID, 'tool-results');
  mkdirSync(results, { recursive: true });
  for (const [name, content] of Object.entries(toolResults)) writeFileSync(join(results, name), content);
  return path;
}
