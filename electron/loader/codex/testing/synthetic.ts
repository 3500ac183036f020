/**
 * Synthetic Codex rollouts (`e2e/fixtures/synthetic/codex/`), written by `writeCodexSynthetic`: each
 * covers record types and edge cases the real files lack, in the shapes docs/FORMATS.md §2 records. A
 * test fails when the committed files drift from this builder.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const CODEX_SYNTHETIC_DIR = join(import.meta.dirname, '../../../../e2e/fixtures/synthetic/codex');

const T = '2026-04-30T15:06:55.536Z';
const rec = (type: string, payload: unknown): string => JSON.stringify({ timestamp: T, type, payload });
const meta = (id: string, extra: Record<string, unknown> = {}): string =>
  rec('session_meta', { id, timestamp: T, cwd: '/work/demo', originator: 'codex-tui', cli_version: '0.126.0', source: 'cli', model_provider: 'openai', base_instructions: { text: 'You are Codex, a coding agent.' }, ...extra });
const turn = (model: string): string => rec('turn_context', { cwd: '/work/demo', approval_policy: 'on-request', model, effort: 'medium', summary: 'auto', truncation_policy: { mode: 'tokens', limit: 10000 } });

export const msg = (role: string, text: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  type: 'message',
  role,
  content: [{ type: role === 'assistant' ? 'output_text' : 'input_text', text }],
  ...extra,
});
const call = (id: string, cmd: string): Record<string, unknown> => ({ type: 'function_call', name: 'exec_command', arguments: JSON.stringify({ cmd, workdir: '/work/demo' }), call_id: id });
const out = (id: string, output: unknown): Record<string, unknown> => ({ type: 'function_call_output', call_id: id, output });
const reasoning = (summary: string): Record<string, unknown> => ({ type: 'reasoning', summary: [{ type: 'summary_text', text: summary }], content: null, encrypted_content: 'gAAAAB-synthetic-opaque' });
const item = (payload: Record<string, unknown>): string => rec('response_item', payload);
const lines = (...ls: string[]): string => `${ls.join('\n')}\n`;

/** A first turn shared by the compaction fixtures: a prompt, reasoning, a call and its output, an answer. */
const firstTurn = {
  prompt: msg('user', 'List the files in the repo'),
  env: msg('user', '<environment_context>\n  <cwd>/work/demo</cwd>\n</environment_context>'),
  call: call('call_1', 'ls'),
  output: out('call_1', 'Chunk ID: 1\nWall time: 0.0 seconds\nProcess exited with code 0\nOutput:\nREADME.md\nsecret-hidden-marker.txt\n'),
  answer: msg('assistant', 'Two files: README.md and secret-hidden-marker.txt.', { phase: 'final_answer' }),
};
const second = { prompt: msg('user', 'Now count the lines'), call: call('call_2', 'wc -l README.md'), output: out('call_2', '12 README.md\n'), answer: msg('assistant', 'README.md has 12 lines.', { phase: 'final_answer' }) };

export const LOCAL_SUMMARY = 'Another language model started to solve this problem and produced a summary of its thinking process.\nThe user listed the files and counted lines.';

/** A long output as `exec_command` records it once cut to its token budget (docs/FORMATS.md §2.10 item 1): header, line count, head, marker, tail. */
export const cutOutput = (tokens: number, cut: number, command = true): string =>
  `${command ? "Command: /bin/zsh -lc 'cat big.log'\n" : ''}Chunk ID: 8c7cc0\nWall time: 0.0100 seconds\nProcess exited with code 0\nOriginal token count: ${tokens}\nOutput:\nTotal output lines: 5000\n\nline 1: head kept\nline 2: head kept…${cut} tokens truncated…line 4999: tail kept\nline 5000: tail kept\n`;

/** Every synthetic rollout, by file name. */
export function codexSynthetic(): Record<string, string> {
  const f = firstTurn;
  return {
    // Every response item type, each output encoding, a developer message, reasoning, an image part.
    'all-items.jsonl': lines(
      meta('00000000-0000-7000-8000-000000000001'),
      turn('gpt-5.5'),
      item(msg('developer', '<permissions instructions>sandboxed</permissions instructions>')),
      item({ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Look at this' }, { type: 'input_image', image_url: 'data:image/png;base64,iVBORw0KGgo=' }] }),
      rec('event_msg', { type: 'user_message', message: 'Look at this', images: [], kind: 'plain' }),
      item(reasoning('Plan: list files, then patch.')),
      item(msg('assistant', 'Checking the repo first.', { phase: 'commentary' })),
      item(call('call_a', 'ls')),
      item(out('call_a', 'plain string output\n')),
      item({ type: 'function_call', name: 'shell', arguments: '{"command":["bash","-lc","cat a.txt"]}', call_id: 'call_b' }),
      item(out('call_b', '{"output":"json-string output\\n","metadata":{"exit_code":0,"duration_seconds":0.1}}')),
      item({ type: 'function_call', name: 'view_image', arguments: '{"path":"shot.png"}', call_id: 'call_c' }),
      item(out('call_c', [{ type: 'input_text', text: 'array output text' }, { type: 'input_image', image_url: 'data:image/png;base64,AAAA' }])),
      item({ type: 'custom_tool_call', status: 'completed', call_id: 'call_d', name: 'apply_patch', input: '*** Begin Patch\n*** Add File: b.txt\n+hello\n*** End Patch\n' }),
      item({ type: 'custom_tool_call_output', call_id: 'call_d', output: '{"output":"Success. Updated the following files:\\nA b.txt\\n","metadata":{"exit_code":0,"duration_seconds":0.0}}' }),
      item({ type: 'local_shell_call', call_id: 'call_e', status: 'completed', action: { type: 'exec', command: ['echo', 'hi'] } }),
      item({ type: 'local_shell_call_output', call_id: 'call_e', output: 'hi\n' }),
      item({ type: 'web_search_call', status: 'completed', action: { type: 'search', query: 'codex rollout format', queries: ['codex rollout format'] } }),
      item({ type: 'web_search_call', status: 'completed' }),
      item({ type: 'ghost_snapshot', ghost_commit: { id: 'abc123' } }),
      item(out('call_f', { content: 'an object output', success: false })),
      item({ type: 'hologram_call', call_id: 'call_g' }),
      rec('event_msg', { type: 'agent_message', message: 'Done.' }),
      item(msg('assistant', 'Done.', { phase: 'final_answer' })),
      rec('event_msg', { type: 'token_count', info: null, rate_limits: null }),
      rec('world_state', { cwd: '/work/demo' }),
      rec('telepathy_record', { anything: true }),
      turn('gpt-5.5-mini'),
      item(msg('user', 'And with the small model?')),
      item(reasoning('Only reasoning, then the call was cut short.')),
    ),
    // Outputs the tool cut before recording them, in every encoding, and two whole ones that only look cut.
    'tool-truncation.jsonl': lines(
      meta('00000000-0000-7000-8000-000000000008'),
      turn('gpt-5.5'),
      item(msg('user', 'Show me the big log')),
      item(call('call_t1', 'cat big.log')),
      item(out('call_t1', cutOutput(32003, 22003))),
      item(call('call_t2', 'cat big.log')),
      item(out('call_t2', cutOutput(12000, 2000, false))),
      item({ type: 'function_call', name: 'shell', arguments: '{"command":["bash","-lc","cat big.log"]}', call_id: 'call_t3' }),
      item(out('call_t3', JSON.stringify({ output: 'Total output lines: 900\n\nhead kept…1500 tokens truncated…tail kept\n', metadata: { exit_code: 0, duration_seconds: 0.2 } }))),
      item({ type: 'function_call', name: 'view_log', arguments: '{}', call_id: 'call_t4' }),
      item(out('call_t4', [{ type: 'input_text', text: 'head kept…700 tokens truncated…tail kept' }, { type: 'input_image', image_url: 'data:image/png;base64,AAAA' }])),
      item({ type: 'custom_tool_call', status: 'completed', call_id: 'call_t5', name: 'apply_patch', input: '*** Begin Patch\n*** End Patch\n' }),
      item({ type: 'custom_tool_call_output', call_id: 'call_t5', output: JSON.stringify({ output: 'Success…40 tokens truncated…done\n', metadata: { exit_code: 0, duration_seconds: 0 } }) }),
      // Whole: the header's count fits the text (a small output; one that quotes a marker).
      item(call('call_t6', 'pwd')),
      item(out('call_t6', 'Chunk ID: 1\nWall time: 0.0 seconds\nProcess exited with code 0\nOriginal token count: 3\nOutput:\n/work/demo\n')),
      item(call('call_t7', 'grep truncated notes.txt')),
      item(out('call_t7', 'Chunk ID: 2\nWall time: 0.0 seconds\nProcess exited with code 0\nOriginal token count: 9\nOutput:\nnotes.txt: …12 tokens truncated…\n')),
      item(msg('assistant', 'The log is long; I saw its head and tail.', { phase: 'final_answer' })),
    ),
    // Re-injected context before a kept prompt (docs/FORMATS.md §2.8 example, items 26–28): the prompt, and a cut output, move after it.
    'reinjected-context.jsonl': lines(
      meta('00000000-0000-7000-8000-000000000009'),
      turn('gpt-5.5'),
      item(f.prompt),
      item(f.call),
      item(f.output),
      item(f.answer),
      item(call('call_r', 'cat big.log')),
      item(out('call_r', cutOutput(32003, 22003))),
      item(second.prompt),
      item(second.call),
      item(second.output),
      rec('compacted', { message: '', replacement_history: [f.prompt, f.answer, msg('developer', '<permissions instructions>re-injected</permissions instructions>'), f.env, out('call_r', cutOutput(32003, 22003)), second.prompt, { type: 'compaction', encrypted_content: 'gAAAAB-encrypted-summary' }] }),
      item(second.answer),
    ),
    // A local compaction: non-empty message, the user prompts kept, the summary as a user message.
    'local-compaction.jsonl': lines(
      meta('00000000-0000-7000-8000-000000000002'),
      turn('gpt-5.5'),
      item(f.env),
      item(f.prompt),
      item(reasoning('list')),
      item(f.call),
      item(f.output),
      item(f.answer),
      item(second.prompt),
      item(second.call),
      item(second.output),
      rec('compacted', { message: LOCAL_SUMMARY, replacement_history: [f.prompt, second.prompt, msg('user', LOCAL_SUMMARY)] }),
      turn('gpt-5.5'),
      rec('event_msg', { type: 'context_compacted' }),
      item(second.answer),
    ),
    // A remote compaction: empty message, kept items, re-injected context, the encrypted compaction item last.
    'remote-compaction.jsonl': lines(
      meta('00000000-0000-7000-8000-000000000003'),
      turn('gpt-5.5'),
      item(f.env),
      item(f.prompt),
      item(f.call),
      item(f.output),
      item(f.answer),
      item(second.prompt),
      rec('compacted', { message: '', replacement_history: [f.prompt, f.answer, msg('developer', '<permissions instructions>re-injected</permissions instructions>'), f.env, second.prompt, { type: 'compaction', encrypted_content: 'gAAAAB-encrypted-summary' }] }),
      item(second.call),
      item(second.output),
      item(second.answer),
    ),
    // Two compactions in one file: the second keeps what survived the first and drops more.
    'two-compactions.jsonl': lines(
      meta('00000000-0000-7000-8000-000000000004'),
      turn('gpt-5.5'),
      item(f.prompt),
      item(f.call),
      item(f.output),
      item(f.answer),
      rec('compacted', { message: 'First summary.', replacement_history: [f.prompt, msg('user', 'First summary.')] }),
      item(second.prompt),
      item(second.call),
      item(second.output),
      item(second.answer),
      rec('compacted', { message: 'Second summary.', replacement_history: [f.prompt, second.prompt, msg('user', 'Second summary.')] }),
      item(msg('user', 'Third question')),
    ),
    // A legacy compaction (no replacement_history): the view keeps the real user prompts only.
    'legacy-compaction.jsonl': lines(
      meta('00000000-0000-7000-8000-000000000005', { base_instructions: undefined, instructions: 'Legacy instructions.', cli_version: '0.40.0' }),
      turn('gpt-5-codex'),
      item(f.env),
      item(f.prompt),
      item(f.call),
      item(f.output),
      item(f.answer),
      rec('compacted', { message: 'Legacy summary of the work.' }),
      item(second.prompt),
    ),
    // A forked subagent: two session_meta lines (child, then parent) and the parent's history copied.
    'forked.jsonl': lines(
      meta('00000000-0000-7000-8000-0000000000c1', { forked_from_id: '00000000-0000-7000-8000-0000000000a1', source: { subagent: { thread_spawn: { parent_thread_id: '00000000-0000-7000-8000-0000000000a1', depth: 1, agent_nickname: 'Scout', agent_role: 'explorer' } } } }),
      meta('00000000-0000-7000-8000-0000000000a1'),
      item(f.prompt),
      item(f.answer),
      turn('gpt-5.5'),
      item(msg('user', 'Child task: read README.md')),
      item(msg('assistant', 'README.md says hello.')),
    ),
    // A torn last line (no newline, cut inside the record) and a damaged line in the middle.
    'torn.jsonl': `${lines(meta('00000000-0000-7000-8000-000000000007'), turn('gpt-5.5'), item(f.prompt), '{"timestamp":"x","type":"response_item","payload":{"type":"mess', item(f.answer))}${item(second.prompt).slice(0, 40)}`,
  };
}

/** Writes the synthetic rollouts into `dir` (the committed folder by default). */
export function writeCodexSynthetic(dir = CODEX_SYNTHETIC_DIR): void {
  mkdirSync(dir, { recursive: true });
  for (const [name, text] of Object.entries(codexSynthetic())) writeFileSync(join(dir, name), text);
}

if (process.argv[1]?.endsWith('synthetic.ts') && process.argv.includes('--write')) writeCodexSynthetic();
