/**
 * A realistic Claude Code transcript of about N bytes, for the import benchmark and the loader's
 * progressive-open tests: the record shapes of docs/FORMATS.md §1 (Claude Code 2.1.x), deterministic for
 * a seed. Per turn: a `file-history-snapshot`, the user's prompt, assistant responses written one
 * content block per record with a shared `message.id` (thinking, text, parallel tool_uses), hook
 * `progress` records hanging off each tool_use, the tool_results (parallel ones in either order,
 * each with its UI-side `toolUseResult` copy), `system` turn records. Tool outputs run from a few
 * hundred bytes to megabytes; some are `<persisted-output>` stubs whose full output is written to
 * `<session>/tool-results/` (a few are left missing); a few compactions (`compact_boundary` +
 * `isCompactSummary`) and microcompactions (`microcompact_boundary`) are spread over the file.
 */
import { closeSync, mkdirSync, openSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';

export interface GeneratedTranscript {
  /** `<dir>/<sessionId>.jsonl`. */
  path: string;
  sessionId: string;
  bytes: number;
  lines: number;
  /** Counts of what was written, for the benchmark's note and the tests' expectations. */
  turns: number;
  toolCalls: number;
  compactions: number;
  microcompactions: number;
  persisted: number;
  /** `<persisted-output>` stubs whose file was not written (their originals are unavailable). */
  persistedMissing: number;
}

export interface GenerateOptions {
  /** Target size in bytes: the file stops at the first turn that reaches it. */
  bytes: number;
  seed?: number;
  /** One compaction per this many bytes (default 30 MB): a 100 MB file gets three. */
  compactEvery?: number;
  /** Tool outputs' sizes times this (default 1): below 1, more calls to the megabyte. */
  outputScale?: number;
}

/** mulberry32: small, fast, and the same sequence for a seed everywhere. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Seeded pieces of text for generated sessions (this one and bench/codexFixture.ts). */
export interface SeededText {
  random: () => number;
  int: (lo: number, hi: number) => number;
  pick: <T>(list: readonly T[]) => T;
  hex: (n: number) => string;
  sentence: (words: number) => string;
  /** About `bytes` of command output: numbered log lines with some variety, files ending in `ext`. */
  output: (bytes: number, ext: string) => string;
}

export function seededText(seed: number): SeededText {
  const random = rng(seed);
  const int = (lo: number, hi: number): number => lo + Math.floor(random() * (hi - lo + 1));
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T;
  const hex = (n: number): string => {
    let s = '';
    for (let i = 0; i < n; i++) s += '0123456789abcdef'[Math.floor(random() * 16)];
    return s;
  };
  const sentence = (words: number): string => {
    const out: string[] = [];
    for (let i = 0; i < words; i++) out.push(pick(WORDS));
    return out.join(' ');
  };
  const output = (bytes: number, ext: string): string => {
    const lines: string[] = [];
    let n = 0;
    for (let k = 0; n < bytes; k++) {
      const l = `${String(k).padStart(6, ' ')}  ${pick(['src', 'lib', 'test'])}/${pick(WORDS)}.${ext}:${int(1, 999)}: ${sentence(int(4, 14))}`;
      lines.push(l);
      n += l.length + 1;
    }
    return lines.join('\n');
  };
  return { random, int, pick, hex, sentence, output };
}

const WORDS = (
  'the a of to and in is it that for on with as this was file test build error function return const let value type module import export ' +
  'loader session record line byte offset index hash stub expand search view branch compaction summary tool result output input ' +
  'résumé naïve café 日本語 données über straße ✓ → “quoted” tab\there "json" back\\slash {braces} [brackets] <tag> 42 3.14 0x1f'
).split(' ');
const TOOLS = ['Bash', 'Read', 'Edit', 'Grep', 'Glob', 'Write', 'TodoWrite'] as const;

export function generateClaudeTranscript(dir: string, options: GenerateOptions): GeneratedTranscript {
  const { random, int, pick, hex, sentence, output: outputOf } = seededText(options.seed ?? 1130);
  const uuid = (): string => `${hex(8)}-${hex(4)}-4${hex(3)}-8${hex(3)}-${hex(12)}`;
  const output = (bytes: number): string => outputOf(bytes, 'ts');

  const sessionId = uuid();
  const path = join(dir, `${sessionId}.jsonl`);
  const toolResultsDir = join(dir, sessionId, 'tool-results');
  mkdirSync(dir, { recursive: true });
  const fd = openSync(path, 'w');
  const stats = { turns: 0, toolCalls: 0, compactions: 0, microcompactions: 0, persisted: 0, persistedMissing: 0 };
  let bytes = 0;
  let lines = 0;
  let pending: string[] = [];
  let pendingBytes = 0;
  const flush = () => {
    if (pending.length === 0) return;
    writeSync(fd, pending.join(''));
    pending = [];
    pendingBytes = 0;
  };
  const write = (record: Record<string, unknown>) => {
    const text = `${JSON.stringify(record)}\n`;
    const n = Buffer.byteLength(text);
    pending.push(text);
    pendingBytes += n;
    bytes += n;
    lines++;
    if (pendingBytes >= 4 * 1024 * 1024) flush();
  };
  let clock = Date.parse('2026-04-13T13:30:00.000Z');
  const envelope = (type: string, parentUuid: string | null): { uuid: string; [key: string]: unknown } => ({
    parentUuid,
    isSidechain: false,
    userType: 'external',
    entrypoint: 'cli',
    cwd: '/home/dev/work/project',
    sessionId,
    version: '2.1.42',
    gitBranch: 'main',
    slug: 'brave-quiet-otter',
    type,
    uuid: uuid(),
    timestamp: new Date((clock += int(50, 5000))).toISOString(),
  });

  let last: string | null = null;
  /** Tool ids whose results were written since the last compaction: microcompaction clears some. */
  let clearable: string[] = [];
  const compactEvery = options.compactEvery ?? 30_000_000;
  let nextCompaction = compactEvery;
  mkdirSync(toolResultsDir, { recursive: true });

  while (bytes < options.bytes) {
    stats.turns++;
    const promptUuid = uuid();
    write({ type: 'file-history-snapshot', messageId: promptUuid, snapshot: { messageId: promptUuid, trackedFileBackups: {}, timestamp: new Date(clock).toISOString() }, isSnapshotUpdate: false });
    const prompt = { ...envelope('user', last), uuid: promptUuid, promptId: uuid(), message: { role: 'user', content: `${sentence(int(8, 60))}?` }, permissionMode: 'default' };
    write(prompt);
    last = promptUuid;

    const steps = int(1, 6);
    for (let s = 0; s < steps; s++) {
      const msgId = `msg_01${hex(22)}`;
      const requestId = `req_011${hex(21)}`;
      const usage = { input_tokens: int(1, 9), cache_creation_input_tokens: int(0, 5000), cache_read_input_tokens: int(0, 90000), output_tokens: int(1, 900), service_tier: 'standard' };
      const blocks: Record<string, unknown>[] = [];
      if (random() < 0.5) blocks.push({ type: 'thinking', thinking: sentence(int(20, 200)), signature: `Eu${hex(200)}` });
      if (random() < 0.8 || s === steps - 1) blocks.push({ type: 'text', text: sentence(int(5, 120)) });
      const calls = s === steps - 1 ? 0 : random() < 0.25 ? int(2, 4) : 1;
      const callIds: { id: string; name: string; record: string }[] = [];
      for (let c = 0; c < calls; c++) {
        const name = pick(TOOLS);
        const id = `toolu_01${hex(22)}`;
        const input = name === 'Bash' ? { command: `${pick(['npm test', 'git status', 'ls -la', 'rg -n'])} ${pick(WORDS)}`, description: sentence(5) } : name === 'Edit' ? { file_path: `/home/dev/work/project/src/${pick(WORDS)}.ts`, old_string: sentence(int(5, 40)), new_string: sentence(int(5, 40)) } : { file_path: `/home/dev/work/project/src/${pick(WORDS)}.ts` };
        blocks.push({ type: 'tool_use', id, name, input });
        callIds.push({ id, name, record: '' });
      }
      let c = 0;
      for (const block of blocks) {
        const rec: { uuid: string; [key: string]: unknown } = { ...envelope('assistant', last), requestId, message: { model: 'claude-opus-4-5-20251101', id: msgId, type: 'message', role: 'assistant', content: [block], stop_reason: null, stop_sequence: null, usage } };
        write(rec);
        last = rec.uuid;
        if (block.type === 'tool_use') (callIds[c++] as { record: string }).record = rec.uuid;
      }
      // Hook progress records hang off each tool_use (side records of the tree).
      for (const call of callIds) {
        write({ ...envelope('progress', call.record), data: { type: 'hook_progress', hookEvent: 'PreToolUse', hookName: `PreToolUse:${call.name}`, command: 'entire hook' }, parentToolUseID: call.id, toolUseID: call.id });
      }
      // Parallel results come back in either order; the next assistant record hangs off the last.
      const order = random() < 0.5 ? callIds : [...callIds].reverse();
      for (const call of order) {
        stats.toolCalls++;
        const r = random();
        const drawn = r < 0.7 ? int(50, 3000) : r < 0.95 ? int(3000, 40_000) : r < 0.995 ? int(40_000, 400_000) : int(1_000_000, 3_000_000);
        const size = Math.max(50, Math.round(drawn * (options.outputScale ?? 1)));
        const full = output(size);
        let content: unknown = full;
        let toolUseResult: unknown = call.name === 'Read' ? { type: 'text', file: { filePath: '/home/dev/work/project/src/x.ts', content: full, numLines: 10, startLine: 1, totalLines: 10 } } : { stdout: full, stderr: '', interrupted: false, isImage: false };
        if (size > 30_000 && call.name === 'Bash') {
          const name = `b${hex(8)}.txt`;
          const missing = random() < 0.2;
          stats.persisted++;
          if (missing) stats.persistedMissing++;
          else writeFileSync(join(toolResultsDir, name), full);
          const preview = full.slice(0, 2000);
          content = `<persisted-output>\nOutput too large (${Math.round(size / 1024)}KB). Full output saved to: /home/dev/.claude/projects/-home-dev-work-project/${sessionId}/tool-results/${name}\n\nPreview (first 2KB):\n${preview.slice(0, preview.lastIndexOf('\n') + 1)}\n...\n</persisted-output>`;
          toolUseResult = { stdout: full.slice(0, 30_000), stderr: '', interrupted: false, isImage: false, noOutputExpected: false, persistedOutputPath: `/home/dev/.claude/projects/-home-dev-work-project/${sessionId}/tool-results/${name}`, persistedOutputSize: Buffer.byteLength(full) };
        } else if (random() < 0.1 && call.name !== 'Read') {
          content = [{ type: 'text', text: full }, { type: 'text', text: `agentId: a${hex(6)} (for resuming to continue this agent's work if needed)` }];
        }
        const isError = random() < 0.03;
        const rec: { uuid: string; [key: string]: unknown } = { ...envelope('user', last), message: { role: 'user', content: [{ tool_use_id: call.id, type: 'tool_result', content, ...(isError ? { is_error: true } : {}) }] }, toolUseResult, sourceToolAssistantUUID: call.record };
        write(rec);
        last = rec.uuid;
        if (typeof content === 'string' && !content.startsWith('<persisted-output>')) clearable.push(call.id);
      }
    }
    const stop = { ...envelope('system', last), subtype: 'stop_hook_summary', hookCount: 1, hookInfos: [{ command: 'entire hook' }], hookErrors: [], preventedContinuation: false, stopReason: '', hasOutput: false, level: 'suggestion' };
    write(stop);
    const duration = { ...envelope('system', stop.uuid), subtype: 'turn_duration', durationMs: int(1000, 90000), isMeta: false };
    write(duration);
    last = duration.uuid;

    if (clearable.length >= 40 && random() < 0.05) {
      stats.microcompactions++;
      const ids = clearable.slice(0, int(5, 15));
      clearable = clearable.slice(ids.length);
      const micro = { ...envelope('system', last), content: 'Context microcompacted', isMeta: false, level: 'info', microcompactMetadata: { trigger: 'auto', preTokens: int(50000, 150000), tokensSaved: int(5000, 40000), compactedToolIds: ids, clearedAttachmentUUIDs: [] }, subtype: 'microcompact_boundary' };
      write(micro);
      last = micro.uuid;
    }
    if (bytes >= nextCompaction && bytes < options.bytes) {
      nextCompaction += compactEvery;
      stats.compactions++;
      clearable = [];
      const boundary = { ...envelope('system', null), subtype: 'compact_boundary', content: 'Conversation compacted', isMeta: false, level: 'info', logicalParentUuid: last, compactMetadata: { trigger: 'auto', preTokens: int(150000, 190000) } };
      write(boundary);
      const summary = { ...envelope('user', boundary.uuid), message: { role: 'user', content: `This session is being continued from a previous conversation that ran out of context. The conversation is summarized below:\n${sentence(int(300, 900))}` }, isVisibleInTranscriptOnly: true, isCompactSummary: true };
      write(summary);
      last = summary.uuid;
    }
  }
  write({ type: 'last-prompt', lastPrompt: 'continue', leafUuid: last, sessionId });
  flush();
  closeSync(fd);
  return { path, sessionId, bytes, lines, ...stats };
}
