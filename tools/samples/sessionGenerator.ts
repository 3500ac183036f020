/**
 * Deterministic sample sessions: simulates the agent turn by turn from a seed and returns the
 * sidecar records it would append, in file order, and the snapshot it would save at the end.
 *
 * The simulation mirrors the agent rather than writing files by hand:
 * - every message pushed on history is recorded (`message`), and in legacy mode (gate off) a tool
 *   output over LEGACY_CAP_BYTES is capped in history while its record keeps the full bytes + `cap`;
 * - after each turn the projection pass runs: `mintReductions(view, policy, liveLog)`, and every
 *   new reduction is appended (`reduction`), so hashes are over exactly what history held;
 * - a rewind truncates history and drops from the live log every reduction addressing `to` or
 *   beyond (as shared/calls/timeline.ts does);
 * - a model switch strips reasoning artifacts from history in place (`filterReasoningArtifacts`)
 *   and records the count it returns (`model_change`).
 *
 * The script guarantees the cases a reader must handle (see `Landmarks`): all four reduction kinds,
 * a truncation later enclosed by a cleared range, a duplicate whose canonical stays visible and one
 * whose canonical is hidden, a rewind with a re-run sharing the old output's prefix, a model switch
 * after reasoning artifacts, and, in legacy mode, capped outputs whose expansion upgrades from the
 * recorded copy. Filler turns in between vary with the seed. No I/O here: generate.ts writes files.
 */
import type { Cap, ChatMessage, ContentPart, Reduction, ReductionPolicy, SessionSnapshot, SidecarHeader, SidecarRecord, ToolCall } from '../../shared/index';
import {
  FORMAT_VERSION,
  SESSION_FORMAT,
  SIDECAR_FORMAT,
  capNotice,
  expandReduction,
  filterReasoningArtifacts,
  floorCharBoundary,
  lastAddressed,
  mintReductions,
  sidecarSearch,
  utf8Decode,
  utf8Encode,
} from '../../shared/index';
import type { World } from './content';
import {
  apiResponseJson,
  assistantReply,
  cargoTestRun,
  gitDiff,
  gitLog,
  gitStatus,
  lsTree,
  makeWorld,
  minifiedBundle,
  nodeCrash,
  npmBuildLog,
  packageJson,
  pySource,
  pytestLog,
  reasoningText,
  rgResults,
  rustSource,
  screenshot,
  tsSource,
  userPrompt,
  vitestLog,
} from './content';
import { Rng } from './rng';

export const DEFAULT_SEED = 1130;
export const DEFAULT_MESSAGES = 80;
export const MAX_MESSAGES = 20_000;
/** A legacy runtime (gate off) kept the first LEGACY_CAP_BYTES of a longer tool output in history. */
export const LEGACY_CAP_BYTES = 8192;
export const MODEL_A = 'deepthink-r2';
export const MODEL_B = 'swift-coder-3';

export interface GenerateOptions {
  /** Approximate view length (messages after the system prompt). The script itself needs about 50. */
  messages?: number;
  /** Unsigned 32-bit seed. */
  seed?: number;
  /** A legacy session: gate off, long tool outputs capped in history. */
  legacy?: boolean;
  /** Smaller outputs (still over the policy's thresholds where the script needs it): for the broken samples. */
  compact?: boolean;
}

/** Where the guaranteed cases ended up, for tests and for deriving broken samples. */
export interface Landmarks {
  /** A tool output truncated before a later `turns_cleared` range enclosed it. */
  clearedTruncation: { id: string; index: number; clearedBy: string };
  /** A duplicate whose canonical is fully visible: search must skip it. `needle` occurs only in that output. */
  visibleDuplicate: { id: string; index: number; canonical: number; needle: string };
  /** A duplicate whose canonical is hidden (truncated, and maybe cleared): searchable. `needle` is unique to that output. */
  hiddenDuplicate: { id: string; index: number; canonical: number; needle: string };
  elided: { id: string; index: number };
  rewind: {
    to: number;
    /** View index of the re-run tool result. */
    index: number;
    oldToolCallId: string;
    newToolCallId: string;
    /** Full bytes of both runs; they share a prefix longer than the legacy cap and the kept prefix. */
    oldContent: string;
    newContent: string;
    /** Reductions the rewind dropped from the live log. */
    rewoundIds: string[];
  };
  modelChange: { at: number; from: string; to: string; count: number };
  /** View indices of tool outputs capped in history (legacy only). */
  capped: number[];
}

export interface GeneratedSession {
  /** The sidecar in file order: header, system, then messages, reductions, rewinds, model changes. */
  records: SidecarRecord[];
  snapshot: SessionSnapshot;
  landmarks: Landmarks;
}

/** The policy of the samples; `clear_turns_before` grows during a session (the header holds the last one). */
export function samplePolicy(clearTurnsBefore: number | null): ReductionPolicy {
  return { protect_last_n_tool_results: 2, max_tool_result_bytes: 4096, kept_prefix_bytes: 1024, dedupe: true, clear_turns_before: clearTurnsBefore };
}

/** One compact JSON object per line, each `\n`-terminated. */
export function sidecarText(records: readonly SidecarRecord[]): string {
  return records.map((r) => JSON.stringify(r) + '\n').join('');
}

export function snapshotText(snapshot: SessionSnapshot): string {
  return JSON.stringify(snapshot, null, 2) + '\n';
}

interface ToolRun {
  name: string;
  args: Record<string, unknown>;
  output: string;
  parts?: ContentPart[];
}

interface TurnScript {
  user: string;
  /** Text of the assistant message that carries the tool calls. */
  preface?: string;
  runs: ToolRun[];
  reply: string;
}

interface TurnResult {
  start: number;
  callIndex: number;
  toolIndices: number[];
  callIds: string[];
}

type Artifact = 'metadata' | 'parts' | 'redacted' | 'encrypted' | 'none';

/** The agent: its history (view), its recorder (records) and its live reduction log. */
class Agent {
  readonly view: ChatMessage[] = [];
  /** What the recorder holds per view index: the last message recorded there, full bytes. */
  readonly recorded: ChatMessage[] = [];
  readonly records: SidecarRecord[] = [];
  log: Reduction[] = [];
  turnStarts: number[] = [];
  capped: number[] = [];
  policy: ReductionPolicy = samplePolicy(null);
  private readonly callIds = new Set<string>();
  private artifactsIssued = 0;
  /** The agent's reduction id counter (never reset by a rewind). */
  private nextId = 1;

  constructor(
    private readonly rng: Rng,
    private readonly legacy: boolean,
    public model: string,
  ) {}

  system(content: string): void {
    this.records.push({ t: 'system', msg: { role: 'system', content } });
  }

  /** Pushes a message on history and records it; a legacy runtime caps long tool outputs in history only. */
  push(msg: ChatMessage): number {
    const i = this.view.length;
    const record = structuredClone(msg);
    let held = msg;
    let cap: Cap | undefined;
    if (this.legacy && msg.role === 'tool') {
      const bytes = utf8Encode(msg.content);
      if (bytes.length > LEGACY_CAP_BYTES) {
        const k = floorCharBoundary(bytes, LEGACY_CAP_BYTES);
        cap = { kept_bytes: k, notice: capNotice(bytes.length - k) };
        held = { ...msg, content: utf8Decode(bytes.subarray(0, k)) + cap.notice };
        this.capped.push(i);
      }
    }
    this.view.push(held);
    this.recorded[i] = record;
    this.records.push(cap ? { t: 'message', i, msg: record, cap } : { t: 'message', i, msg: record });
    return i;
  }

  /** The projection pass: mints what the policy now reduces and appends it to the log and the sidecar. */
  project(): void {
    // Ids run session-wide, as the agent's counter does: a rewind never frees an id for reuse.
    for (const r of mintReductions(this.view, this.policy, this.log, { nextId: this.nextId })) {
      this.nextId = Number(r.id.slice(1)) + 1;
      this.log.push(r);
      this.records.push({ t: 'reduction', r });
    }
  }

  rewind(to: number): Reduction[] {
    this.records.push({ t: 'rewind', to });
    this.view.length = to;
    const dropped = this.log.filter((r) => lastAddressed(r) >= to);
    this.log = this.log.filter((r) => lastAddressed(r) < to);
    this.turnStarts = this.turnStarts.filter((s) => s < to);
    this.capped = this.capped.filter((i) => i < to);
    return dropped;
  }

  switchModel(to: string): { at: number; from: string; to: string; count: number } {
    const at = this.view.length;
    const from = this.model;
    const count = filterReasoningArtifacts(this.view);
    this.records.push({ t: 'model_change', at, from, to, reasoning_artifacts_filtered: count });
    this.model = to;
    return { at, from, to, count };
  }

  callId(): string {
    let id: string;
    do id = `call_${this.rng.hex(24)}`;
    while (this.callIds.has(id));
    this.callIds.add(id);
    return id;
  }

  /** An assistant message; the first model attaches reasoning artifacts the way providers do. */
  assistant(content: string, text: Rng, toolCalls?: ToolCall[]): ChatMessage {
    const msg: ChatMessage = { role: 'assistant', content };
    if (toolCalls) msg.tool_calls = toolCalls;
    const metadata: Record<string, unknown> = { model: this.model };
    if (this.model === MODEL_A) {
      const forced: Artifact[] = ['metadata', 'parts', 'redacted'];
      const kind = forced[this.artifactsIssued] ?? text.pick<Artifact>(['metadata', 'metadata', 'parts', 'encrypted', 'none', 'none']);
      this.artifactsIssued++;
      if (kind === 'metadata') {
        metadata.reasoning_content = reasoningText(text);
        metadata.thinking_signature = `sig_${text.base64(48)}`;
      } else if (kind === 'encrypted') {
        metadata.encrypted_reasoning = text.base64(96);
      } else if (kind === 'parts') {
        msg.content_parts = [{ type: 'thinking', thinking: reasoningText(text), signature: text.base64(32) }, ...(content ? [{ type: 'text', text: content }] : [])];
      } else if (kind === 'redacted') {
        msg.content_parts = [{ type: 'redacted_thinking', data: text.base64(64) }, ...(content ? [{ type: 'text', text: content }] : [])];
      }
    }
    msg.metadata = metadata;
    return msg;
  }

  /** Pushes the assistant's tool calls, their results and its reply; then runs the projection pass. */
  continueTurn(script: Omit<TurnScript, 'user'>, text: Rng): Omit<TurnResult, 'start'> {
    let callIndex = -1;
    const toolIndices: number[] = [];
    const callIds: string[] = [];
    if (script.runs.length > 0) {
      const calls = script.runs.map((run) => ({ id: this.callId(), name: run.name, arguments: JSON.stringify(run.args) }));
      callIndex = this.push(this.assistant(script.preface ?? '', text, calls));
      script.runs.forEach((run, k) => {
        const id = calls[k]?.id ?? '';
        callIds.push(id);
        toolIndices.push(this.push({ role: 'tool', tool_call_id: id, name: run.name, content: run.output, ...(run.parts ? { content_parts: run.parts } : {}) }));
      });
    }
    this.push(this.assistant(script.reply, text));
    this.project();
    return { callIndex, toolIndices, callIds };
  }

  turn(script: TurnScript, text: Rng): TurnResult {
    const start = this.view.length;
    this.turnStarts.push(start);
    this.push({ role: 'user', content: script.user });
    return { start, ...this.continueTurn(script, text) };
  }
}

function shell(cmd: string, output: string): ToolRun {
  return { name: 'shell', args: { cmd }, output };
}

function readFile(path: string, output: string): ToolRun {
  return { name: 'read_file', args: { path }, output };
}

/** A size for a filler output: mostly small, some up to ~40 KB (compact: at most a few KB). */
function fillerSize(rng: Rng, compact: boolean): number {
  const r = rng.next();
  if (compact) return r < 0.6 ? rng.int(120, 1500) : rng.int(1500, 3500);
  return r < 0.4 ? rng.int(120, 1500) : r < 0.7 ? rng.int(1500, 6000) : r < 0.9 ? rng.int(6000, 16000) : rng.int(16000, 40000);
}

/** One ordinary turn of work, drawn from the kinds of thing a coding agent does all day. */
function fillerTurn(text: Rng, world: World, compact: boolean): TurnScript {
  const size = fillerSize(text, compact);
  const kind = text.pick(['test', 'build', 'pytest', 'read', 'rg', 'git', 'api', 'crash', 'bundle', 'ls', 'patch', 'chat', 'pair'] as const);
  switch (kind) {
    case 'test':
      return {
        user: userPrompt(text, text.pick(['Run the unit tests for the formatter.', 'Does the i18n suite pass now?', '跑一下测试看看'])),
        runs: [shell(text.pick(['npm test', 'npx vitest run src/i18n', 'npm test -- --reporter=verbose']), vitestLog(text, world, size, text.chance(0.6)))],
        reply: assistantReply(text, 'One formatter test still fails on the currency symbol; the rest pass.'),
      };
    case 'build':
      return {
        user: userPrompt(text, 'Typecheck the project.'),
        runs: [shell('npx tsc --noEmit -p .', npmBuildLog(text, world, size, false))],
        reply: assistantReply(text, 'The type errors all come from the optional `locale`; fixing the options type removes most of them.'),
      };
    case 'pytest':
      return {
        user: userPrompt(text, 'Run the ETL tests too.'),
        runs: [shell('pytest -q', pytestLog(text, world, size))],
        reply: assistantReply(text, 'The loader assumes UTF-8 but the fixture is cp932 (Shift_JIS).'),
      };
    case 'read': {
      const lang = text.pick(['ts', 'py', 'rs'] as const);
      const path = lang === 'ts' ? text.pick(world.tsFiles) : lang === 'py' ? text.pick(world.pyFiles) : text.pick(world.rsFiles);
      const body = lang === 'ts' ? tsSource(text, world, size) : lang === 'py' ? pySource(text, world, size) : rustSource(text, world, size, text.hex(16), path);
      return { user: userPrompt(text, `Open ${path}.`), runs: [readFile(path, body)], reply: assistantReply(text, `Read ${path}; the conversion happens before rounding, which is the bug.`) };
    }
    case 'rg': {
      const pattern = text.pick(['formatAmount', 'symbolFor', 'Decimal', 'parse_amount']);
      return { user: userPrompt(text, `Where is ${pattern} used?`), runs: [shell(`rg -n --color=always ${pattern}`, rgResults(text, world, size, pattern))], reply: assistantReply(text, `${pattern} has a handful of call sites; only two pass a locale.`) };
    }
    case 'git': {
      const which = text.pick(['log', 'diff', 'status'] as const);
      const out = which === 'log' ? gitLog(text, world, size) : which === 'diff' ? gitDiff(text, world, size) : gitStatus(text, world);
      return { user: userPrompt(text, which === 'log' ? 'What changed recently?' : 'Show me the current changes.'), runs: [shell(which === 'log' ? `git log -n ${text.int(5, 40)}` : `git ${which}`, out)], reply: assistantReply(text, 'Nothing unexpected in the working tree.') };
    }
    case 'api':
      return {
        user: userPrompt(text, 'What does the accounts endpoint return for the 月末 batch?'),
        runs: [shell(`curl -s 'http://localhost:8080/api/v1/accounts?limit=${text.int(10, 200)}&tag=%E6%9C%88%E6%9C%AB'`, apiResponseJson(text, size, text.chance(0.5)))],
        reply: assistantReply(text, 'Balances come back as strings of minor units, so precision is preserved end to end.'),
      };
    case 'crash':
      return { user: userPrompt(text, 'Run the migrations.'), runs: [shell('npm run migrate', nodeCrash(text, world))], reply: assistantReply(text, 'The migration is not idempotent: the seed already inserted that account.') };
    case 'bundle':
      return { user: userPrompt(text, 'Is the CJK label table in the bundle?'), runs: [shell(`head -c ${size} dist/assets/index-${text.hex(8)}.js`, minifiedBundle(text, size))], reply: assistantReply(text, 'Yes, the labels are inlined into the bundle.') };
    case 'ls':
      return { user: userPrompt(text, 'List the repo.'), runs: [shell('ls -la', lsTree(text, world, size))], reply: assistantReply(text, 'The fixtures live beside the ETL tests.') };
    case 'patch':
      return {
        user: userPrompt(text, 'Apply the fix and re-run the formatter tests.'),
        preface: 'Applying the fix, then re-running the affected suite.',
        runs: [
          { name: 'apply_patch', args: { patch: `*** Begin Patch\n*** Update File: ${text.pick(world.tsFiles)}\n@@\n-  return format(input.amount, '¥');\n+  return format(input.amount, symbolFor(locale, '￥'));\n*** End Patch\n` }, output: `Success. Updated the following files:\nM ${text.pick(world.tsFiles)}\n` },
          shell('npx vitest run src/i18n', vitestLog(text, world, size, false)),
        ],
        reply: assistantReply(text, 'Patched; the formatter suite is green.'),
      };
    case 'chat':
      return { user: userPrompt(text, text.pick(['Why bigint and not number for amounts?', '为什么金额不用浮点数？', 'Should we round half-even or half-up for 円?'])), runs: [], reply: assistantReply(text, 'Floating point cannot represent most decimal fractions exactly; minor units in a bigint keep every posting exact, and rounding happens once, at presentation.') };
    case 'pair': {
      const a = text.pick(world.tsFiles);
      const b = text.pick(world.pyFiles);
      return {
        user: userPrompt(text, `Compare ${a} with ${b}.`),
        runs: [readFile(a, tsSource(text, world, Math.ceil(size / 2))), readFile(b, pySource(text, world, Math.ceil(size / 2)))],
        reply: assistantReply(text, 'Both round at presentation time, but the Python side truncates instead of rounding half-even.'),
      };
    }
  }
}

function systemPrompt(world: World): string {
  return (
    `You are supercode, a coding agent working in ${world.home} (${world.scope}/${world.project}). ` +
    'Tools: shell, read_file, apply_patch, screenshot, expand_reduction, sidecar_search. ' +
    'Old tool output may be reduced to a stub that names a reduction id; call expand_reduction(id, byte_range?) to read it back, ' +
    'or sidecar_search(query) to search everything currently reduced. Answer in the language the user writes in.'
  );
}

function createdAt(seed: number): string {
  const ms = Date.UTC(2026, 0, 5, 9, 0, 0) + (seed % 331) * 86_400_000 + (seed % 601) * 60_000 + (seed % 59) * 1000;
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function required<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`sample generator invariant broken: ${what}`);
  return value;
}

/** Messages the scripted part of a session adds to the view, and a filler turn's average. */
const SCRIPTED_MESSAGES = 51;
const FILLER_MESSAGES = 4.2;

export function generateSession(options: GenerateOptions = {}): GeneratedSession {
  const seed = options.seed ?? DEFAULT_SEED;
  const target = options.messages ?? DEFAULT_MESSAGES;
  const legacy = options.legacy ?? false;
  const compact = options.compact ?? false;
  if (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff) throw new RangeError(`seed must be an integer in [0, 4294967295], got ${seed}`);
  if (!Number.isInteger(target) || target < 1 || target > MAX_MESSAGES) throw new RangeError(`messages must be an integer in [1, ${MAX_MESSAGES}], got ${target}`);

  // Independent streams: content, ids and the filler plan. Legacy and gated sessions of one seed hold
  // the same conversation; only the recording differs.
  const root = new Rng(seed);
  const text = root.fork();
  const ids = root.fork();
  const plan = root.fork();
  const world = makeWorld(text);
  const agent = new Agent(ids, legacy, MODEL_A);
  const sessionId = `s-${legacy ? 'legacy-' : ''}${ids.hex(12)}`;
  const sz = (normal: [number, number], small: [number, number]) => (compact ? text.int(small[0], small[1]) : text.int(normal[0], normal[1]));

  const gaps = 6;
  const fillerCount = Math.max(0, Math.round((target - SCRIPTED_MESSAGES) / FILLER_MESSAGES));
  const perGap = new Array<number>(gaps).fill(0);
  for (let k = 0; k < fillerCount; k++) {
    const g = plan.int(0, gaps - 1);
    perGap[g] = (perGap[g] ?? 0) + 1;
  }
  const fillers = (gap: number) => {
    for (let k = 0; k < (perGap[gap] ?? 0); k++) agent.turn(fillerTurn(text, world, compact), text);
  };

  agent.system(systemPrompt(world));

  // The first build: a long log, truncated once two newer results exist, later cleared with its turn.
  const first = agent.turn(
    {
      user: userPrompt(text, `The CI build for ${world.project} has been red since this morning — can you find out why?`),
      preface: 'Let me reproduce the build locally first.',
      runs: [shell('npm run build', npmBuildLog(text, world, sz([9_000, 13_000], [4_800, 5_600])))],
      reply: assistantReply(text, 'The build fails in tsc: `locale` became optional in ClientOptions, and several call sites still treat it as a string.'),
    },
    text,
  );
  fillers(0);
  agent.turn(
    {
      user: userPrompt(text, 'Show me the client code, and the ETL loader that feeds it.'),
      preface: 'Reading both in parallel.',
      runs: [
        readFile('src/api/client.ts', tsSource(text, world, sz([2_500, 3_500], [1_200, 1_800]))),
        readFile('etl/loader.py', pySource(text, world, sz([1_500, 2_500], [600, 900]))),
      ],
      reply: assistantReply(text, 'In the client the options are spread before the defaults, so an explicit `undefined` wins; the loader is fine.'),
    },
    text,
  );

  // parser.rs, read twice (identical): the second copy is a duplicate of a canonical that gets truncated.
  const fingerprint = text.hex(16);
  const parserPath = `crates/${world.crate}/src/parser.rs`;
  const parserText = rustSource(text, world, sz([5_000, 7_000], [4_300, 4_800]), fingerprint, parserPath);
  const parserRead = agent.turn(
    { user: userPrompt(text, 'The tokenizer crate is involved too, right? Read the parser.'), runs: [shell(`cat ${parserPath}`, parserText)], reply: assistantReply(text, 'The parser slices identifiers by char count but spans are bytes.') },
    text,
  );
  fillers(1);

  // package.json, read twice (identical, small): the duplicate's canonical stays fully visible.
  const nonce = text.hex(32);
  const pkgText = packageJson(text, world, nonce);
  const pkgRead = agent.turn({ user: userPrompt(text, 'Which versions are we on?'), runs: [shell('cat package.json', pkgText)], reply: assistantReply(text, 'TypeScript 5.5 and Vitest 1.6.') }, text);
  // From the next pass on, the first two turns are cleared.
  agent.policy = samplePolicy(required(agent.turnStarts[2], 'a third turn starts before the package.json read'));
  fillers(2);

  // A test run, a follow-up turn (which ages the run out of protection: it gets truncated), then a
  // rewind to the run's tool call and a re-run: same index, fresh id, same prefix, different tail.
  const cargoCmd = `cargo test -p ${world.crate}`;
  // Its prefix has multi-byte characters across both cuts (the kept prefix, the legacy cap), so both floor.
  const cargo = cargoTestRun(text, world, sz([10_000, 11_500], [3_000, 3_600]), [samplePolicy(null).kept_prefix_bytes, LEGACY_CAP_BYTES]);
  const oldContent = cargo.prefix + cargo.failTail;
  const newContent = cargo.prefix + cargo.passTail;
  const run = agent.turn(
    { user: userPrompt(text, 'Run the tokenizer tests.'), runs: [shell(cargoCmd, oldContent)], reply: assistantReply(text, 'One parser test fails on a CJK identifier: the token is cut after its first character.') },
    text,
  );
  agent.turn(
    {
      user: userPrompt(text, 'Check the lexer and the fixtures.'),
      runs: [readFile(`crates/${world.crate}/src/lexer.rs`, rustSource(text, world, sz([2_000, 3_000], [800, 1_200]), text.hex(16), `crates/${world.crate}/src/lexer.rs`)), shell('ls fixtures/', lsTree(text, world, 400))],
      reply: assistantReply(text, 'The lexer advances by chars; the fixture set is complete.'),
    },
    text,
  );
  const rewindTo = run.callIndex;
  const rewound = agent.rewind(rewindTo);
  const rerun = agent.continueTurn(
    { preface: 'Re-running the suite on the updated checkout.', runs: [shell(cargoCmd, newContent)], reply: assistantReply(text, 'All tokenizer tests pass on the updated checkout.') },
    text,
  );
  fillers(3);

  agent.turn({ user: userPrompt(text, 'Show me parser.rs again, I want to double-check the CJK branch.'), runs: [shell(`cat ${parserPath}`, parserText)], reply: assistantReply(text, 'Unchanged since the last read.') }, text);
  const hiddenDupIndex = agent.view.length - 2;
  agent.turn({ user: userPrompt(text, 'Did package.json change?'), runs: [shell('cat package.json', pkgText)], reply: assistantReply(text, 'No, it is byte-for-byte the same.') }, text);
  const visibleDupIndex = agent.view.length - 2;
  fillers(4);

  // A screenshot: an oversized result with an image part is elided, not truncated.
  const shot = screenshot(text, 'http://localhost:5173/settings', sz([4_000, 5_000], [3_200, 3_300]));
  const shotTurn = agent.turn(
    { user: userPrompt(text, 'Take a screenshot of the settings page to check the 设置 labels render.'), runs: [{ name: 'screenshot', args: { url: 'http://localhost:5173/settings', full_page: true }, output: shot.content, parts: shot.parts }], reply: assistantReply(text, 'The labels render; no tofu boxes.') },
    text,
  );

  // The model switch: reasoning artifacts of the first model are stripped from history.
  const modelChange = agent.switchModel(MODEL_B);
  // From the next pass on, everything before the package.json read is cleared as well.
  agent.policy = samplePolicy(pkgRead.start);

  // The intrinsics: an expand of the first build log's truncation and a search of hidden content.
  // Their results are ordinary tool results, reduction-eligible like any other.
  const firstLog = required(
    agent.log.find((r) => r.kind === 'tool_output_truncated' && r.ptr.index === first.toolIndices[0]),
    'the first build log is truncated',
  );
  const kept = firstLog.kept_bytes ?? 0;
  const range: [number, number] = [kept, kept + (compact ? 2048 : 6144)];
  const expanded = expandReduction(agent.log, firstLog.id, agent.view, agent.recorded, range);
  if (!expanded.ok) throw new Error(`sample generator: expand ${firstLog.id} failed: ${expanded.error.message}`);
  agent.turn(
    {
      user: userPrompt(text, 'What else did that first build log say? It was cut off.'),
      runs: [{ name: 'expand_reduction', args: { reduction_id: firstLog.id, byte_range: range }, output: JSON.stringify(expanded.value) }],
      reply: assistantReply(text, 'The rest of the log repeats the same optional-locale errors in other files.'),
    },
    text,
  );
  const searched = sidecarSearch(agent.log, 'TS\\d{4,5}', agent.view, agent.recorded, { mode: 'regex' });
  if (!searched.ok) throw new Error(`sample generator: search failed: ${searched.error.message}`);
  agent.turn(
    {
      user: userPrompt(text, 'Which TypeScript error codes came up in everything you have trimmed so far?'),
      runs: [{ name: 'sidecar_search', args: { query: 'TS\\d{4,5}', regex: true }, output: JSON.stringify(searched.value) }],
      reply: assistantReply(text, `Mostly TS2322 and TS18048, ${searched.value.total_matches} hits in the reduced content.`),
    },
    text,
  );
  fillers(5);

  // Two closing turns with tool results, so everything above ages out of protection.
  agent.turn(
    { user: userPrompt(text, 'Run the whole suite one more time.'), runs: [shell('npm test -- --reporter=verbose', vitestLog(text, world, sz([24_000, 38_000], [2_000, 3_000]), false))], reply: assistantReply(text, 'Everything passes.') },
    text,
  );
  agent.turn(
    { user: userPrompt(text, 'Great. What is left uncommitted?'), runs: [shell('git status --short', gitStatus(text, world))], reply: assistantReply(text, 'Only the formatter fix and its test; ready to commit.') },
    text,
  );
  while (agent.view.length + FILLER_MESSAGES <= target) agent.turn(fillerTurn(text, world, compact), text);

  const header: SidecarHeader = {
    t: 'header',
    format: SIDECAR_FORMAT,
    version: FORMAT_VERSION,
    session_id: sessionId,
    created_at: createdAt(seed),
    model: MODEL_A,
    gate: !legacy,
    policy: agent.policy,
  };
  const records: SidecarRecord[] = [header, ...agent.records];

  const find = (kind: Reduction['kind'], index: number | undefined) => agent.log.find((r) => r.kind === kind && r.ptr.index === index);
  const truncatedFirst = required(find('tool_output_truncated', first.toolIndices[0]), 'the first build log stays truncated');
  const clearedBy = required(
    agent.log.find((r) => r.kind === 'turns_cleared' && r.ptr.index <= truncatedFirst.ptr.index && truncatedFirst.ptr.index < (r.end ?? 0) && r.minted_at > truncatedFirst.minted_at),
    'a later turns_cleared range encloses the first build log',
  );
  const hidden = required(find('duplicate_output', hiddenDupIndex), 'the second parser.rs read is a duplicate');
  const visible = required(find('duplicate_output', visibleDupIndex), 'the second package.json read is a duplicate');
  const elided = required(find('tool_output_elided', shotTurn.toolIndices[0]), 'the screenshot is elided');
  const landmarks: Landmarks = {
    clearedTruncation: { id: truncatedFirst.id, index: truncatedFirst.ptr.index, clearedBy: clearedBy.id },
    visibleDuplicate: { id: visible.id, index: visibleDupIndex, canonical: required(pkgRead.toolIndices[0], 'package.json read'), needle: nonce },
    hiddenDuplicate: { id: hidden.id, index: hiddenDupIndex, canonical: required(parserRead.toolIndices[0], 'parser.rs read'), needle: fingerprint },
    elided: { id: elided.id, index: elided.ptr.index },
    rewind: {
      to: rewindTo,
      index: required(rerun.toolIndices[0], 're-run tool result'),
      oldToolCallId: required(run.callIds[0], 'first run id'),
      newToolCallId: required(rerun.callIds[0], 're-run id'),
      oldContent,
      newContent,
      rewoundIds: rewound.map((r) => r.id),
    },
    modelChange,
    capped: [...agent.capped],
  };

  const snapshot: SessionSnapshot = {
    format: SESSION_FORMAT,
    version: FORMAT_VERSION,
    session_id: sessionId,
    model: agent.model,
    messages: structuredClone(agent.view),
    reductions: structuredClone(agent.log),
  };
  return { records, snapshot, landmarks };
}
