/**
 * Large sessions for benchmarks (`npm run generate -- --out DIR --size 1GiB`): a long agent session
 * streamed straight to `DIR/STEM.sidecar.jsonl`, never held in memory, plus `DIR/STEM.manifest.json`
 * saying what was planted in it.
 *
 * The simulation is the small generator's (sessionGenerator.ts) at scale, with the projection pass
 * (`mintReductions`, shared/resolver/mint.ts) mirrored incrementally instead of re-run over the whole view:
 * - every message is written as a `message` record as soon as it is made; afterwards only what a
 *   later reduction needs is kept (index, byte length, SHA-256, the kept-prefix length), never the
 *   content. A huge output is made, hashed, JSON-escaped and written one block at a time;
 * - after each turn the pass mints exactly what `mintReductions(view, policy, log)` would: tool
 *   results older than the last `protect_last_n_tool_results` that are byte-identical to an earlier
 *   one become `duplicate_output` of the earliest copy; others over `max_tool_result_bytes` keep a
 *   character-floored `kept_prefix_bytes` prefix (`tool_output_truncated`), or are
 *   `tool_output_elided` when they carry an image part; turns before a grown `clear_turns_before`
 *   become one `turns_cleared` range, whose transcript was hashed while its messages were written.
 *   (scaleGenerator.test.ts replays the file through mintReductions and compares.)
 *
 * Shape: a dozen small opening turns (later cleared in two ranges), then ordinary turns whose tool
 * outputs are log-normal from ~200 B to a few MB, and three huge outputs of about 5%, 11% and 19% of
 * the size (50, 120 and 200 MB at 1 GiB; at most HUGE_MAX_BYTES each). A needle is planted in hidden
 * content (inside each huge output, in some truncated outputs, in cleared turns) and in visible
 * places (kept prefixes, open messages); the manifest counts the hidden occurrences exactly.
 *
 * Output is a pure function of (size, seed): the same arguments give byte-identical files.
 */
import { createHash } from 'node:crypto';
import type { Hash } from 'node:crypto';
import { closeSync, mkdirSync, openSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { ChatMessage, ContentPart, Reduction, NativeReductionKind, ReductionPolicy, SidecarHeader, ToolCall } from '../../shared/index';
import { FORMAT_VERSION, NATIVE_REDUCTION_KINDS, SIDECAR_FORMAT, floorCharBoundary, stubText, transcriptOf, utf8Length } from '../../shared/index';
import type { World } from './content';
import { makeWorld } from './content';
import { Rng } from './rng';
import type { BlockSource, ToolOutput } from './scaleContent';
import { assistantText, gitLogPatchBlocks, logNormal, logUniform, needleLine, serverLogBlocks, toolOutput, userText, verboseTestBlocks } from './scaleContent';
import { DEFAULT_SEED, MODEL_B } from './sessionGenerator';

export const KIB = 1024;
export const MIB = 1024 * KIB;
export const GIB = 1024 * MIB;
export const MIN_SCALE_BYTES = MIB;
export const MAX_SCALE_BYTES = 8 * GIB;
export const DEFAULT_SCALE_STEM = 'large';
/** The planted needle: ASCII, and nothing else the generator writes contains it. */
export const SCALE_NEEDLE = 'ZQXJ-needle-7';
/** A huge output's cap (content bytes). */
export const HUGE_MAX_BYTES = 200_000_000;
/**
 * A huge output's record stops growing past this many bytes (escaping can make a log's record a
 * third longer than its content), so it stays below the loader's 256 MiB record limit.
 */
export const HUGE_MAX_RECORD_BYTES = 240 * 1024 * 1024;

/** The policy of large sessions; `clear_turns_before` grows twice (the header holds the last value). */
export function scalePolicy(clearTurnsBefore: number | null): ReductionPolicy {
  return { protect_last_n_tool_results: 2, max_tool_result_bytes: 4096, kept_prefix_bytes: 2048, dedupe: true, clear_turns_before: clearTurnsBefore };
}

const SIZE_UNITS: Readonly<Record<string, number>> = { B: 1, kB: 1000, KB: 1000, KiB: KIB, MB: 1000 ** 2, MiB: MIB, GB: 1000 ** 3, GiB: GIB };

/**
 * A byte size: a whole number of bytes, or a number with a unit (`1GiB`, `512MiB`, `1.5GiB`, `300MB`,
 * `64KiB`; units are case-sensitive, no space). Undefined when the text is not one. Not range-checked.
 */
export function parseByteSize(text: string): number | undefined {
  const m = /^(\d{1,15})(\.\d{1,6})?(B|kB|KB|KiB|MB|MiB|GB|GiB)?$/.exec(text);
  if (!m) return undefined;
  const [, whole = '', fraction, unit = 'B'] = m;
  if (fraction !== undefined && unit === 'B') return undefined;
  return Math.floor(Number(whole + (fraction ?? '')) * (SIZE_UNITS[unit] ?? 1));
}

/** "1 GiB", "8 MiB", "300000000 bytes": how a size reads in messages. */
export function formatByteSize(bytes: number): string {
  if (bytes % GIB === 0) return `${bytes / GIB} GiB`;
  if (bytes % MIB === 0) return `${bytes / MIB} MiB`;
  return `${bytes} bytes`;
}

export interface ScaleOptions {
  out: string;
  /** File stem (default "large"). */
  stem?: string;
  /** Target sidecar size in bytes, within [MIN_SCALE_BYTES, MAX_SCALE_BYTES]; the file lands within ±5%. */
  size: number;
  seed?: number;
}

/** `STEM.manifest.json`: what a benchmark needs to know about the session without reading it. */
export interface ScaleManifest {
  seed: number;
  session_id: string;
  /** The requested size. */
  target_bytes: number;
  /** The sidecar's actual size. */
  bytes: number;
  /** View messages (`message` records). */
  messages: number;
  /** Live reductions (all of them: nothing is inverted or rewound). */
  reductions: number;
  /** The generator mints native kinds only. */
  by_kind: Record<NativeReductionKind, number>;
  /** The huge tool outputs, all truncated, by size (content bytes). */
  huge: { reduction_id: string; index: number; bytes: number }[];
  /** `hidden_matches` is what `sidecarSearch(needle)` must report as `total_matches`; `planted` counts visible ones too. */
  needle: { text: string; hidden_matches: number; planted: number };
}

export interface ScaleResult {
  sidecarPath: string;
  manifestPath: string;
  manifest: ScaleManifest;
}

// ---------------------------------------------------------------------------------------------
// Writing

/** Appends UTF-8 text to a file descriptor through a 1 MiB buffer; counts the bytes written. */
class BufferedWriter {
  private readonly buf = Buffer.allocUnsafe(MIB);
  private pos = 0;
  bytes = 0;

  constructor(private readonly fd: number) {}

  write(text: string): void {
    const n = Buffer.byteLength(text, 'utf8');
    if (n > this.buf.length - this.pos) this.flush();
    if (n > this.buf.length) this.writeAll(Buffer.from(text, 'utf8'), n);
    else this.pos += this.buf.write(text, this.pos, 'utf8');
    this.bytes += n;
  }

  flush(): void {
    this.writeAll(this.buf, this.pos);
    this.pos = 0;
  }

  private writeAll(bytes: Buffer, length: number): void {
    for (let off = 0; off < length; ) off += writeSync(this.fd, bytes, off, length - off);
  }
}

/**
 * A JSON string literal's inside, escaped exactly as JSON.stringify escapes the same characters in a
 * longer string: pieces written one after another make the literal of their concatenation, provided
 * no piece starts or ends inside a surrogate pair (which JSON.stringify would escape as lone).
 */
function jsonInside(piece: string): string {
  if (piece.length > 0 && ((piece.charCodeAt(0) & 0xfc00) === 0xdc00 || (piece.charCodeAt(piece.length - 1) & 0xfc00) === 0xd800)) {
    throw new Error('scale generator: a piece of a streamed string splits a surrogate pair');
  }
  return JSON.stringify(piece).slice(1, -1);
}

/**
 * Bytes of the kept prefix of content starting with `head` (at least the content's first
 * `kept + 4` UTF-16 units, or all of it): `floorCharBoundary(content bytes, kept)`. Encoding only a
 * head is exact: a surrogate pair split at its end sits at byte `kept + 3` or later.
 */
function keptPrefixBytes(head: string, kept: number): number {
  return floorCharBoundary(Buffer.from(head.slice(0, kept + 4), 'utf8'), kept);
}

function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

// ---------------------------------------------------------------------------------------------
// The agent

/** Where needles were planted in one message (byte offsets), and how the message ended up reduced. */
interface NeedleSite {
  index: number;
  offsets: number[];
  reduction?: { kind: NativeReductionKind; kept: number };
}

/** What the projection pass needs of a tool result it has not decided on yet. */
interface PendingTool {
  index: number;
  bytes: number;
  hash: string;
  kept: number;
  hasImage: boolean;
  /** Index of the earliest byte-identical tool result (itself when it is the first). */
  earliest: number;
  needles?: NeedleSite;
  huge?: { index: number; bytes: number; id?: string };
}

/** A view range to be cleared later: its transcript (§3.5) is hashed while its messages are written. */
class ClearRange {
  readonly hash: Hash = createHash('sha256');
  bytes = 0;

  constructor(
    readonly start: number,
    readonly end: number,
  ) {}
}

const IMAGE_PART_TYPES = ['image', 'image_url', 'input_image'];

class ScaleAgent {
  viewLength = 0;
  readonly byKind: Record<NativeReductionKind, number> = { tool_output_truncated: 0, tool_output_elided: 0, duplicate_output: 0, turns_cleared: 0 };
  readonly needles: NeedleSite[] = [];
  readonly huge: { index: number; bytes: number; id?: string }[] = [];
  clearedEnd = 0;
  private nextId = 1;
  private pending: PendingTool[] = [];
  /** sha256 + length of each distinct tool result -> its earliest index. */
  private readonly firstCopy = new Map<string, number>();
  /** Indices of tool results with planted needles (their content must stay unique). */
  private readonly planted = new Set<number>();

  constructor(
    private readonly writer: BufferedWriter,
    private readonly policy: ReductionPolicy,
    private readonly ranges: readonly ClearRange[],
  ) {}

  system(content: string): void {
    this.writer.write(JSON.stringify({ t: 'system', msg: { role: 'system', content } }) + '\n');
  }

  /** Writes a message record at the next view index; returns the index. */
  message(msg: ChatMessage, needleOffsets: readonly number[] = []): number {
    const i = this.viewLength++;
    this.writer.write(JSON.stringify({ t: 'message', i, msg }) + '\n');
    for (const r of this.ranges) {
      if (r.start <= i && i < r.end) {
        const piece = transcriptOf([{ minted: msg, content: msg.content }]);
        r.hash.update(piece, 'utf8');
        r.bytes += Buffer.byteLength(piece, 'utf8');
      }
    }
    if (needleOffsets.length > 0) this.needles.push({ index: i, offsets: [...needleOffsets] });
    return i;
  }

  /** A tool result held in memory while it is written. */
  tool(callId: string, out: { name: string; content: string; parts?: ContentPart[] }, needleOffsets: readonly number[] = []): number {
    const msg: ChatMessage = { role: 'tool', tool_call_id: callId, name: out.name, content: out.content };
    if (out.parts) msg.content_parts = out.parts;
    const index = this.message(msg, needleOffsets);
    const bytes = Buffer.byteLength(out.content, 'utf8');
    const site = needleOffsets.length > 0 ? this.needles[this.needles.length - 1] : undefined;
    this.enqueue({
      index,
      bytes,
      hash: sha256Hex(out.content),
      kept: keptPrefixBytes(out.content, this.policy.kept_prefix_bytes),
      hasImage: out.parts?.some((p) => IMAGE_PART_TYPES.includes(p.type)) ?? false,
      earliest: index,
      ...(site ? { needles: site } : {}),
    });
    return index;
  }

  /**
   * A huge tool result, streamed: blocks of `source` until `target` bytes (or HUGE_MAX_RECORD_BYTES
   * of record), a needle line before the first block that starts at or past each of `needleAt`
   * (fractions of `target`; any left over go
   * at the end), and `head` (which may hold a needle, visible in the kept prefix) first.
   */
  hugeTool(callId: string, name: string, target: number, source: BlockSource, needleAt: readonly number[], rng: Rng, head: string): number {
    if (this.ranges.some((r) => r.start <= this.viewLength && this.viewLength < r.end)) throw new Error('scale generator: a huge output inside a range to be cleared');
    const index = this.viewLength++;
    const recordStart = this.writer.bytes;
    this.writer.write(`{"t":"message","i":${index},"msg":{"role":"tool","tool_call_id":${JSON.stringify(callId)},"name":${JSON.stringify(name)},"content":"`);
    const hash = createHash('sha256');
    const offsets: number[] = [];
    let bytes = 0;
    let start = '';
    const put = (piece: string) => {
      if (start.length < this.policy.kept_prefix_bytes + 4) start += piece.slice(0, this.policy.kept_prefix_bytes + 4 - start.length);
      hash.update(piece, 'utf8');
      bytes += Buffer.byteLength(piece, 'utf8');
      this.writer.write(jsonInside(piece));
    };
    const needle = () => {
      const { line, before } = needleLine(rng, SCALE_NEEDLE);
      offsets.push(bytes + utf8Length(before));
      put(line);
    };
    for (let k = head.indexOf(SCALE_NEEDLE); k !== -1; k = head.indexOf(SCALE_NEEDLE, k + SCALE_NEEDLE.length)) offsets.push(utf8Length(head.slice(0, k)));
    put(head);
    let next = 0;
    while (bytes < target && this.writer.bytes - recordStart < HUGE_MAX_RECORD_BYTES) {
      while (next < needleAt.length && bytes >= (needleAt[next] ?? 1) * target) {
        needle();
        next++;
      }
      put(source(Math.max(4 * KIB, Math.min(256 * KIB, target - bytes))));
    }
    for (; next < needleAt.length; next++) needle();
    this.writer.write('"}}\n');
    const site: NeedleSite = { index, offsets };
    if (offsets.length > 0) this.needles.push(site);
    const huge = { index, bytes };
    this.huge.push(huge);
    this.enqueue({
      index,
      bytes,
      hash: hash.digest('hex'),
      kept: keptPrefixBytes(start, this.policy.kept_prefix_bytes),
      hasImage: false,
      earliest: index,
      needles: site,
      huge,
    });
    return index;
  }

  private enqueue(t: PendingTool): void {
    const key = `${t.hash}:${t.bytes}`;
    const earliest = this.firstCopy.get(key);
    if (earliest === undefined) this.firstCopy.set(key, t.index);
    else if (t.needles || this.planted.has(earliest)) throw new Error(`scale generator: view index ${t.index} repeats view index ${earliest}, and one of them has a planted needle`);
    if (t.needles && t.needles.offsets.length > 0) this.planted.add(t.index);
    this.pending.push({ ...t, earliest: earliest ?? t.index });
  }

  private emit(kind: NativeReductionKind, index: number, hash: string, bytes: number, hidden: number, extra: Partial<Reduction>): Reduction {
    const id = `r${this.nextId++}`;
    const r: Reduction = { id, kind, ptr: { index, hash: `sha256:${hash}`, bytes }, ...extra, stub: stubText(id, kind, hidden), minted_at: this.viewLength };
    this.writer.write(JSON.stringify({ t: 'reduction', r }) + '\n');
    this.byKind[kind]++;
    return r;
  }

  /**
   * The projection pass after a turn, as mintReductions runs it: per-message reductions in view
   * order for the tool results that just left protection, then the new cleared range, if any.
   */
  pass(clear?: ClearRange): void {
    const clearTo = clear ? Math.min(clear.end, this.viewLength) : this.clearedEnd;
    if (clear && (clear.start !== this.clearedEnd || clearTo <= this.clearedEnd)) throw new Error('scale generator: cleared ranges must follow each other');
    while (this.pending.length > this.policy.protect_last_n_tool_results) {
      const t = this.pending.shift() as PendingTool;
      // A result inside a cleared range (an earlier one or this pass's) is never reduced on its own.
      if (t.index < clearTo) continue;
      if (this.policy.dedupe && t.earliest !== t.index && t.bytes > 0 && utf8Length(stubText(`r${this.nextId}`, 'duplicate_output', t.bytes)) <= t.bytes) {
        if (t.needles) throw new Error('scale generator: a needle in a duplicate');
        this.emit('duplicate_output', t.index, t.hash, t.bytes, t.bytes, { canonical: { index: t.earliest, hash: `sha256:${t.hash}` } });
        continue;
      }
      if (t.bytes <= this.policy.max_tool_result_bytes || t.kept >= t.bytes) continue;
      const kind = t.kept === 0 || t.hasImage ? 'tool_output_elided' : 'tool_output_truncated';
      const r = this.emit(kind, t.index, t.hash, t.bytes, kind === 'tool_output_elided' ? t.bytes : t.bytes - t.kept, kind === 'tool_output_truncated' ? { kept_bytes: t.kept } : {});
      if (t.needles) t.needles.reduction = { kind, kept: t.kept };
      if (t.huge) {
        if (kind !== 'tool_output_truncated') throw new Error('scale generator: a huge output must be truncated');
        t.huge.id = r.id;
      }
    }
    if (clear) {
      if (clearTo !== clear.end) throw new Error('scale generator: a range is cleared before it is written');
      this.emit('turns_cleared', clear.start, clear.hash.digest('hex'), clear.bytes, clear.bytes, { end: clear.end });
      this.clearedEnd = clear.end;
    }
  }

  /** Needle occurrences a search of hidden content finds (§5.3): whole messages in cleared ranges, hidden spans elsewhere. */
  hiddenNeedles(): { hidden: number; planted: number } {
    let hidden = 0;
    let planted = 0;
    for (const site of this.needles) {
      planted += site.offsets.length;
      if (site.index < this.clearedEnd) hidden += site.offsets.length;
      else if (site.reduction?.kind === 'tool_output_elided') hidden += site.offsets.length;
      else if (site.reduction?.kind === 'tool_output_truncated') hidden += site.offsets.filter((o) => o >= (site.reduction?.kept ?? 0)).length;
    }
    return { hidden, planted };
  }
}

// ---------------------------------------------------------------------------------------------
// The session

/** Sizes of the huge outputs as fractions of the target: 50, 120 and 200 MB at 1 GiB. */
const HUGE = [
  { at: 0.2, fraction: 120e6 / GIB, needles: [0.05, 0.3, 0.6, 0.95] },
  { at: 0.42, fraction: 200e6 / GIB, needles: [0.02, 0.25, 0.5, 0.75, 0.99] },
  { at: 0.66, fraction: 50e6 / GIB, needles: [0.1, 0.55, 0.9] },
] as const;
/** Opening turns: the first CLEAR_A_TURNS are cleared first, the rest of them later. */
const OPENING_TURNS = 12;
const CLEAR_A_TURNS = 5;
/** Room kept for the two closing turns and the last reductions. */
const CLOSING_RESERVE = 8 * KIB;

function createdAt(seed: number): string {
  const ms = Date.UTC(2026, 2, 2, 8, 0, 0) + (seed % 331) * 86_400_000 + (seed % 601) * 60_000 + (seed % 59) * 1000;
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/**
 * Plants the needle in `content` at line starts: one past byte ~3000 (`hidden`: beyond any kept
 * prefix) and/or one near the start (`visible`: inside the kept prefix). Returns byte offsets.
 */
function plantNeedles(rng: Rng, content: string, hidden: boolean, visible: boolean): { content: string; offsets: number[] } {
  const at = (from: number) => {
    const nl = content.indexOf('\n', from);
    return nl === -1 ? content.length : nl + 1;
  };
  const v = visible ? Math.min(at(0), Math.max(0, content.length - 1)) : 0;
  const visibleAt = visible && utf8Length(content.slice(0, v)) < 1500 ? v : 0;
  const h = hidden ? at(3000 + Math.floor(rng.next() * Math.max(1, content.length - 3000))) : content.length;
  const vLine = visible ? needleLine(rng, SCALE_NEEDLE) : { line: '', before: '' };
  const hLine = hidden ? needleLine(rng, SCALE_NEEDLE) : { line: '', before: '' };
  const a = content.slice(0, visibleAt);
  const b = content.slice(visibleAt, h);
  const offsets: number[] = [];
  if (visible) offsets.push(utf8Length(a) + utf8Length(vLine.before));
  if (hidden) offsets.push(utf8Length(a) + utf8Length(vLine.line) + utf8Length(b) + utf8Length(hLine.before));
  return { content: a + vLine.line + b + hLine.line + content.slice(h), offsets };
}

interface TurnSizes {
  user: [number, number];
  assistant: [number, number];
  /** Upper bound of one tool output. */
  toolCap: number;
}

/** Generates and writes the session; returns the manifest (also written). */
export function writeScaleSession(options: ScaleOptions): ScaleResult {
  const seed = options.seed ?? DEFAULT_SEED;
  const size = options.size;
  const stem = options.stem ?? DEFAULT_SCALE_STEM;
  if (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff) throw new RangeError(`seed must be an integer in [0, 4294967295], got ${seed}`);
  if (!Number.isInteger(size) || size < MIN_SCALE_BYTES || size > MAX_SCALE_BYTES) throw new RangeError(`size must be an integer in [${MIN_SCALE_BYTES}, ${MAX_SCALE_BYTES}], got ${size}`);

  // Independent streams, so that one part can change shape without shifting the others.
  const root = new Rng(seed);
  const text = root.fork();
  const ids = root.fork();
  const plan = root.fork();
  const needles = root.fork();
  const world: World = makeWorld(text);
  const sessionId = `s-scale-${ids.hex(12)}`;
  const pkgNonce = ids.hex(32);
  const callId = () => `call_${ids.hex(24)}`;

  // The opening turns' shapes are drawn first: the ranges they will be cleared in, and so the
  // header's policy, depend on their message counts.
  const openingCalls = Array.from({ length: OPENING_TURNS }, () => plan.pick([0, 1, 1, 1, 2, 2, 3]));
  const starts: number[] = [0];
  for (const k of openingCalls) starts.push((starts[starts.length - 1] ?? 0) + 2 + (k > 0 ? 1 + k : 0));
  const rangeA = new ClearRange(0, starts[CLEAR_A_TURNS] ?? 0);
  const rangeB = new ClearRange(rangeA.end, starts[OPENING_TURNS] ?? 0);
  const policy = scalePolicy(rangeB.end);

  mkdirSync(options.out, { recursive: true });
  const sidecarPath = join(options.out, `${stem}.sidecar.jsonl`);
  const manifestPath = join(options.out, `${stem}.manifest.json`);
  const fd = openSync(sidecarPath, 'w');
  const writer = new BufferedWriter(fd);
  let agent: ScaleAgent;
  try {
    const header: SidecarHeader = { t: 'header', format: SIDECAR_FORMAT, version: FORMAT_VERSION, session_id: sessionId, created_at: createdAt(seed), model: MODEL_B, gate: true, policy };
    writer.write(JSON.stringify(header) + '\n');
    agent = new ScaleAgent(writer, policy, [rangeA, rangeB]);
    agent.system(
      `You are supercode, a coding agent working in ${world.home} (${world.scope}/${world.project}). ` +
        'Tools: shell, read_file, apply_patch, screenshot, expand_reduction, sidecar_search. ' +
        'Old tool output may be reduced to a stub that names a reduction id; call expand_reduction(id, byte_range?) to read it back, ' +
        'or sidecar_search(query) to search everything currently reduced.',
    );
    const a = agent;

    /** Outputs worth repeating verbatim later (re-reads, re-runs): the source of duplicate_output. */
    const repeats: ToolOutput[] = [];
    const remember = (out: ToolOutput) => {
      if (!out.repeatable) return;
      if (repeats.length < 32) repeats.push(out);
      else repeats[plan.int(0, repeats.length - 1)] = out;
    };

    const turn = (calls: number, sizes: TurnSizes, needleRate: number) => {
      let user = userText(text, logUniform(text, sizes.user[0], sizes.user[1]));
      let userNeedles: number[] = [];
      if (needles.chance(needleRate / 4)) {
        const before = `${user}\n\nAlso grep the logs for `;
        userNeedles = [utf8Length(before)];
        user = `${before}${SCALE_NEEDLE}, it showed up in the audit trail.`;
      }
      a.message({ role: 'user', content: user }, userNeedles);
      if (calls > 0) {
        const outputs: ToolOutput[] = [];
        for (let k = 0; k < calls; k++) {
          const repeat = repeats.length > 0 && plan.chance(0.06) ? plan.pick(repeats) : undefined;
          outputs.push(repeat ?? toolOutput(text, world, logNormal(text, 6 * KIB, 1.7, 200, sizes.toolCap), pkgNonce));
        }
        const toolCalls: ToolCall[] = outputs.map((o) => ({ id: callId(), name: o.name, arguments: JSON.stringify(o.args) }));
        a.message({ role: 'assistant', content: assistantText(text, logUniform(text, 100, 600)), tool_calls: toolCalls });
        outputs.forEach((out, k) => {
          let offsets: number[] = [];
          let content = out.content;
          if (out.plantable && !repeats.includes(out) && content.length > 4000 && needles.chance(needleRate)) {
            ({ content, offsets } = plantNeedles(needles, content, true, needles.chance(0.3)));
          } else remember(out);
          a.tool(toolCalls[k]?.id ?? callId(), { name: out.name, content, ...(out.parts ? { parts: out.parts } : {}) }, offsets);
        });
      }
      a.message({ role: 'assistant', content: assistantText(text, logUniform(text, sizes.assistant[0], sizes.assistant[1])) });
    };

    // The opening: small turns, cleared later in two ranges (a needle in the first user message).
    const openingCap = Math.min(12 * KIB, Math.max(KIB, Math.floor(size / 150)));
    openingCalls.forEach((calls, t) => {
      if (a.viewLength !== starts[t]) throw new Error('scale generator: opening turn plan drifted');
      turn(calls, { user: [50, 600], assistant: [100, 1200], toolCap: openingCap }, t === 0 ? 4 : 0.3);
      a.pass();
    });

    // The body: ordinary turns, the huge outputs at their points, the two clears.
    const toolCap = Math.min(4 * MIB, Math.max(64 * KIB, Math.floor(size * 0.004)));
    let huge = 0;
    let turns = OPENING_TURNS;
    let clearedA = -1;
    let clearedB = false;
    while (writer.bytes + CLOSING_RESERVE < size) {
      const h = HUGE[huge];
      if (h && writer.bytes >= h.at * size) {
        const target = Math.min(HUGE_MAX_BYTES, Math.round(h.fraction * size));
        a.message({ role: 'user', content: userText(text, logUniform(text, 50, 400)) });
        const [name, cmd, source, head]: [string, string, BlockSource, string] =
          huge === 0
            ? ['shell', 'git log -p --all', gitLogPatchBlocks(text, world), '']
            : huge === 1
              ? ['shell', 'cat /var/log/ledger/api.log', serverLogBlocks(text, world, Date.UTC(2026, 1, 1)), `# ledger-api ${world.version} on ${world.home} (audit marker ${SCALE_NEEDLE})\n`]
              : ['shell', 'npm test --workspaces -- --reporter=verbose', verboseTestBlocks(text, world), ''];
        const id = callId();
        a.message({ role: 'assistant', content: assistantText(text, logUniform(text, 100, 400)), tool_calls: [{ id, name, arguments: JSON.stringify({ cmd }) }] });
        a.hugeTool(id, name, target, source, h.needles, needles, head);
        a.message({ role: 'assistant', content: assistantText(text, logUniform(text, 100, 1200)) });
        a.pass();
        huge++;
        turns++;
        continue;
      }
      const calls = plan.chance(0.15) ? 0 : plan.pick([1, 1, 1, 2, 2, 3]);
      // Near the end outputs shrink so the file lands on its size (escaping can nearly double a log).
      const room = size - writer.bytes - CLOSING_RESERVE;
      turn(calls, { user: [50, 2000], assistant: [100, 4000], toolCap: Math.max(200, Math.min(toolCap, Math.floor(room / (4 * Math.max(1, calls))))) }, 0.02);
      turns++;
      let clear: ClearRange | undefined;
      if (clearedA < 0 && turns >= OPENING_TURNS + 3 && writer.bytes >= 0.1 * size) {
        clear = rangeA;
        clearedA = turns;
      } else if (clearedA >= 0 && clearedA < turns && !clearedB && writer.bytes >= 0.5 * size) {
        clear = rangeB;
        clearedB = true;
      }
      a.pass(clear);
    }
    if (huge < HUGE.length) throw new Error('scale generator: not every huge output was written');

    // The closing: two small turns with tool results push everything above out of protection, and
    // clear whatever is still due (only for tiny sizes).
    const closing = (clear?: ClearRange) => {
      turn(1, { user: [50, 300], assistant: [100, 600], toolCap: 1500 }, 0);
      a.pass(clear);
    };
    closing(clearedA < 0 ? rangeA : undefined);
    closing(clearedB ? undefined : rangeB);
    writer.flush();
  } finally {
    closeSync(fd);
  }

  const { hidden, planted } = agent.hiddenNeedles();
  const byKind = Object.fromEntries(NATIVE_REDUCTION_KINDS.map((k) => [k, agent.byKind[k]])) as Record<NativeReductionKind, number>;
  const manifest: ScaleManifest = {
    seed,
    session_id: sessionId,
    target_bytes: size,
    bytes: writer.bytes,
    messages: agent.viewLength,
    reductions: NATIVE_REDUCTION_KINDS.reduce((n, k) => n + byKind[k], 0),
    by_kind: byKind,
    huge: agent.huge
      .map((h) => {
        if (h.id === undefined) throw new Error(`scale generator: the huge output at ${h.index} was not reduced`);
        return { reduction_id: h.id, index: h.index, bytes: h.bytes };
      })
      .sort((x, y) => x.bytes - y.bytes),
    needle: { text: SCALE_NEEDLE, hidden_matches: hidden, planted },
  };
  writeFileSync(manifestPath, JSON.stringify(manifest, null, 2) + '\n');
  return { sidecarPath, manifestPath, manifest };
}
