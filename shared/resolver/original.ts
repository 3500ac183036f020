/**
 * Resolving a reduction's original bytes (§3.5, §5.1 steps 1–3): address check, hash verification
 * over the minted view, and the recorded upgrade. Everything that reads content goes through here,
 * so expand, search, inversion and the integrity check can never disagree about which bytes a
 * reduction stands for.
 */
import { concatSources, contentSource, encodedOnReadSource, floorSourceBoundary, memorySource, sourceSha256, sourceStartsWith, textSource } from '../format/bytes';
import { CAP_NOTICE_MARKER } from '../format/constants';
import { sha256Hex } from '../format/hash';
import type { ByteSource, ChatMessage, HashOrigin, MessageList, Reduction, ResolverError, Result, Sha256, Source } from '../format/types';
import { ContentUnavailableError, err, hashToBeMade, holdsOriginal, isRangeKind, ok } from '../format/types';
import { bytesLastIndexOf, utf8Encode } from '../format/utf8';
import type { TranscriptHashes } from './transcriptHashes';

export interface ResolveOptions {
  /** SHA-256 used to verify `ptr.hash`; defaults to a portable implementation. */
  sha256?: Sha256;
  /** Transcript hashes kept between resolves of one list (transcriptHashes.ts): a range's hash is taken on from the last one of the same start. */
  transcripts?: TranscriptHashes;
}

const CAP_MARKER_BYTES = utf8Encode(CAP_NOTICE_MARKER);

/** One message of a resolved original: which copy was used, and its content bytes. */
export interface ResolvedMessage {
  index: number;
  minted: ChatMessage;
  /** The content as text; for a large message only its first bytes (the bytes are in `bytes`). */
  content: string;
  bytes: ByteSource;
  source: Source;
}

export interface ResolvedOriginal {
  reduction: Reduction;
  /** The addressed message, or every message of a cleared range, in view order. */
  messages: ResolvedMessage[];
  /** The resolved original bytes: the message content, or the transcript rebuilt from resolved messages. */
  bytes: ByteSource;
  source: Source;
  /** Length of the minted original the hash was verified over (what `ptr.bytes` should say). */
  mintedLength: number;
}

/** `⟨role[ tool_call_id]⟩\n` — the header of one message in a `turns_cleared` or `summarized` transcript. */
export function transcriptHeader(msg: ChatMessage): string {
  return `\u27E8${msg.role}${msg.tool_call_id !== undefined ? ` ${msg.tool_call_id}` : ''}\u27E9\n`;
}

/** The transcript of §3.5: per message `⟨role[ id]⟩\n` + content + `\n`. */
export function transcriptOf(messages: readonly { minted: ChatMessage; content: string }[]): string {
  let s = '';
  for (const m of messages) s += transcriptHeader(m.minted) + m.content + '\n';
  return s;
}

/**
 * The cap-notice-bearing-prefix test of §5.1 step 3, on content bytes: with `k` the last position
 * of CAP_NOTICE_MARKER in minted, `k` exists and recorded starts with `minted[0..k]` and is longer.
 */
export function isCapNoticeBearingPrefix(minted: Uint8Array, recorded: Uint8Array | ByteSource): boolean {
  const k = bytesLastIndexOf(minted, CAP_MARKER_BYTES);
  return k >= 0 && recorded.length > k && sourceStartsWith(asSource(recorded), minted.subarray(0, k));
}

function asSource(bytes: Uint8Array | ByteSource): ByteSource {
  return bytes instanceof Uint8Array ? memorySource(bytes) : bytes;
}

function hasId(id: string | undefined): id is string {
  return typeof id === 'string' && id.length > 0;
}

/**
 * The full recorded-upgrade key of §5.1 step 3 (the index is the caller's: both copies are read at
 * the same index). `tool_call_id` must be present on both sides: after a rewind a re-run carries a
 * fresh id, so an old-timeline copy can never satisfy the key.
 */
export function recordedSupersedes(
  minted: ChatMessage,
  mintedBytes: Uint8Array,
  recorded: ChatMessage | undefined,
  recordedBytes?: Uint8Array | ByteSource,
): boolean {
  if (recorded === undefined) return false;
  if (recorded.role !== minted.role) return false;
  if (!hasId(minted.tool_call_id) || !hasId(recorded.tool_call_id) || minted.tool_call_id !== recorded.tool_call_id) return false;
  return isCapNoticeBearingPrefix(mintedBytes, recordedBytes ?? contentSource(recorded));
}

/**
 * A resolved message whose `content` is read from `copy` only when asked for: the text of a large
 * content (its first bytes) is decoded from the file, and most callers never need it.
 */
function resolvedMessage(index: number, minted: ChatMessage, copy: ChatMessage, bytes: ByteSource, source: Source): ResolvedMessage {
  if (copy.large === undefined) return { index, minted, content: copy.content, bytes, source };
  return new LargeResolvedMessage(index, minted, copy, bytes, source);
}

class LargeResolvedMessage implements ResolvedMessage {
  constructor(
    readonly index: number,
    readonly minted: ChatMessage,
    private readonly copy: ChatMessage,
    readonly bytes: ByteSource,
    readonly source: Source,
  ) {}

  get content(): string {
    return this.copy.content;
  }
}

/**
 * Resolves one view message: the recorded copy when the upgrade key holds, else the minted one. A
 * minted copy too large to hold in memory is never a capped copy (caps keep a short prefix), so it
 * is never upgraded.
 */
export function resolveMessage(index: number, minted: ChatMessage, recorded: MessageList | undefined, sourceOf: (m: ChatMessage) => ByteSource = contentSource): ResolvedMessage {
  const mintedBytes = sourceOf(minted);
  const rec = recorded?.at(index);
  if (rec !== undefined && rec !== minted && minted.large === undefined && (rec.large !== undefined || rec.content !== minted.content)) {
    const recBytes = sourceOf(rec);
    if (recordedSupersedes(minted, mintedBytes.read(0, mintedBytes.length), rec, recBytes)) {
      return resolvedMessage(index, minted, rec, recBytes, 'recorded');
    }
  }
  return resolvedMessage(index, minted, minted, mintedBytes, 'minted');
}

const NEWLINE = memorySource(utf8Encode('\n'));

/**
 * The transcript of §3.5 over resolved messages, as one source: each piece read where it is (a
 * content held in memory is encoded when read, into the window read, not into an array of its own).
 */
function transcriptSource(messages: readonly ResolvedMessage[]): ByteSource {
  const parts: ByteSource[] = [];
  for (const m of messages) parts.push(textSource(transcriptHeader(m.minted)), m.bytes, NEWLINE);
  return concatSources(parts);
}

/** The `<hex>` of a `sha256:<hex>` pointer hash, lowercased; undefined when it has another form. */
export function hashHex(ptrHash: string | null): string | undefined {
  if (ptrHash === null || ptrHash.length !== 71 || !ptrHash.startsWith('sha256:')) return undefined;
  // A loop, not a regex: every search asks this of every reduction it searches.
  let lower = true;
  for (let i = 7; i < 71; i++) {
    const c = ptrHash.charCodeAt(i);
    if ((c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x66)) continue;
    if (c >= 0x41 && c <= 0x46) lower = false;
    else return undefined;
  }
  const hex = ptrHash.slice(7);
  return lower ? hex : hex.toLowerCase();
}

/** The view range a reduction addresses, `[start, end)`. */
export function addressedRange(r: Reduction): [number, number] {
  return isRangeKind(r.kind) ? [r.ptr.index, r.end ?? r.ptr.index] : [r.ptr.index, r.ptr.index + 1];
}

/** §10.1: where a reduction's hash came from, or null when it has none (the original is not in the file). */
export function hashOrigin(r: Reduction): HashOrigin | null {
  return holdsOriginal(r.ptr) ? (r.hash_origin ?? 'recorded') : null;
}

/** The bytes a reduction hides as the file states them, for a reduction whose original is not in the file (`ptr.bytes`, less a truncation's kept prefix). */
export function statedHiddenBytes(r: Reduction): number | null {
  if (r.ptr.bytes === null) return null;
  return r.kind === 'tool_output_truncated' ? Math.max(0, r.ptr.bytes - (r.kept_bytes ?? 0)) : r.ptr.bytes;
}

/** What the file states of an original's size: in bytes, only approximately (`stated_size`), or nothing. */
function recordedSize(r: Reduction): string {
  if (r.ptr.bytes === null) return 'no size for them';
  if (r.stated_size !== undefined) return `their size only approximately (${r.stated_size}: about ${r.ptr.bytes} bytes)`;
  return `their size, ${r.ptr.bytes} bytes,`;
}

/** `original_unavailable` (§10.1): what the file records of an original it does not hold. */
export function originalUnavailable(r: Reduction): ResolverError {
  return {
    code: 'original_unavailable',
    message: `reduction ${r.id}: the file does not record the original bytes (ptr.hash is null); it records ${recordedSize(r)} and the ${r.kind === 'summarized' ? 'summary' : 'stub'} the model saw${r.unavailable_why !== undefined ? `; ${r.unavailable_why}` : ''}`,
    reduction_id: r.id,
    index: r.ptr.index,
  };
}

function unreadableAddress(r: Reduction, index: number): ResolverError {
  return { code: 'address_out_of_range', message: `reduction ${r.id} addresses index ${index}, which holds no readable message`, reduction_id: r.id, index };
}

/**
 * Checks that the indices a reduction addresses lie inside the minted view, without reading them:
 * whether each holds a readable message is known only when it is read, once (resolveOriginal).
 */
function checkRange(r: Reduction, minted: MessageList): ResolverError | undefined {
  const [start, end] = addressedRange(r);
  const fail = (what: string): ResolverError => ({
    code: 'address_out_of_range',
    message: `reduction ${r.id} addresses ${what}, outside the minted view of ${minted.length} messages`,
    reduction_id: r.id,
    index: start,
  });
  if (isRangeKind(r.kind)) {
    if (!Number.isInteger(r.end) || end <= start) {
      return { code: 'address_out_of_range', message: `reduction ${r.id} clears the empty or inverted range [${start}, ${String(r.end)})`, reduction_id: r.id, index: start };
    }
    if (!Number.isInteger(start) || start < 0 || end > minted.length) return fail(`the range [${start}, ${end})`);
  } else if (!Number.isInteger(start) || start < 0 || start >= minted.length) {
    return fail(`index ${start}`);
  }
  return undefined;
}

/**
 * §5.1 steps 2–3: the verified original of `r`. The hash is always checked over the minted bytes
 * first; only then may recorded copies replace messages, so the result is either the exact hashed
 * bytes or their verified same-call superset.
 */
export function resolveOriginal(
  r: Reduction,
  minted: MessageList,
  recorded: MessageList | undefined,
  options: ResolveOptions = {},
): Result<ResolvedOriginal> {
  const rangeError = checkRange(r, minted);
  if (rangeError) return err(rangeError);
  // The address is checked first: a bad address is the file's error whether or not it holds the original.
  // A hash still to be made is made here, from the bytes this resolve reads (resolveInRange).
  if (!holdsOriginal(r.ptr)) return err(originalUnavailable(r));
  return withContent(r, () => resolveInRange(r, minted, recorded, options));
}

/**
 * Runs `body`, which reads content of `r`; a content that can no longer be read from its file
 * answers `address_out_of_range`, like a message that cannot be read.
 */
export function withContent<T>(r: Reduction, body: () => Result<T>): Result<T> {
  try {
    return body();
  } catch (e) {
    if (!(e instanceof ContentUnavailableError)) throw e;
    return err(contentUnreadable(r.id, r.ptr.index, e));
  }
}

/** `address_out_of_range` for a content of reduction `id`, at view index `index`, that can no longer be read from its file. */
export function contentUnreadable(id: string, index: number, e: ContentUnavailableError): { code: 'address_out_of_range'; message: string; reduction_id: string; index: number } {
  return { code: 'address_out_of_range', message: `reduction ${id}: the content at index ${index} can no longer be read: ${e.message}`, reduction_id: id, index };
}

/**
 * The minted messages `[start, end)`, each read once (a list backed by a file can lose a message
 * between two reads: the file shrank, and the bytes hashed must be the bytes returned); the first
 * index that cannot be read, when one cannot. A function of its own: V8 compiles a long range's
 * loop while it runs (on-stack replacement), and that code, when it held the rest of
 * resolveInRange, was entered again at every later resolve and thrown away after the loop each
 * time, at a branch the range had not taken: 3,697–4,327 times after an open in 2 of 6 runs
 * (docs/search.md "Loops compiled while they run").
 */
function mintedIn(minted: MessageList, start: number, end: number, sourceOf: (m: ChatMessage) => ByteSource): ResolvedMessage[] | number {
  const read: ResolvedMessage[] = [];
  for (let i = start; i < end; i++) {
    const m = minted.at(i);
    if (m === undefined) return i;
    read.push(resolvedMessage(i, m, m, sourceOf(m), 'minted'));
  }
  return read;
}

function resolveInRange(r: Reduction, minted: MessageList, recorded: MessageList | undefined, options: ResolveOptions): Result<ResolvedOriginal> {
  const [start, end] = addressedRange(r);
  const range = isRangeKind(r.kind);
  // A range's contents held in memory are encoded when read, not all at once (textSource).
  const sourceOf = range ? encodedOnReadSource : contentSource;
  const mintedMessages = mintedIn(minted, start, end, sourceOf);
  if (typeof mintedMessages === 'number') return err(unreadableAddress(r, mintedMessages));
  const mintedBytes = range ? transcriptSource(mintedMessages) : (mintedMessages[0]?.bytes ?? memorySource(new Uint8Array()));
  // A hash an importer makes only when first read, and not made yet, is these bytes' own: given
  // here, so that they are not hashed twice (once apart to make it, once to verify it).
  const toBeMade = hashToBeMade(r.ptr);
  const expected = toBeMade ? undefined : hashHex(r.ptr.hash);
  // A range's transcript taken on from a kept hash of the same messages; hashed whole when none reaches it, and again before a mismatch is reported.
  const kept = range ? options.transcripts?.hash(start, mintedMessages.map((m) => m.minted), (from) => transcriptSource(mintedMessages.slice(from))) : undefined;
  const actual = kept !== undefined && (toBeMade !== undefined || kept === expected) ? kept : sourceSha256(mintedBytes, options.sha256 ?? sha256Hex);
  if (toBeMade) toBeMade.settle(`sha256:${actual}`);
  else if (expected !== actual) {
    return err({
      code: 'hash_mismatch',
      message: `reduction ${r.id}: ptr.hash is ${r.ptr.hash} but the minted bytes at ${range ? `[${start}, ${end})` : `index ${start}`} hash to sha256:${actual}`,
      reduction_id: r.id,
      index: start,
    });
  }
  // The minted bytes as hashed (a content's length is counted once).
  const messages = mintedMessages.map((m) => resolveMessage(m.index, m.minted, recorded, (msg) => (msg === m.minted ? m.bytes : sourceOf(msg))));
  const upgraded = messages.some((m) => m.source === 'recorded');
  const bytes = range ? (upgraded ? transcriptSource(messages) : mintedBytes) : (messages[0]?.bytes ?? mintedBytes);
  return ok({ reduction: r, messages, bytes, source: upgraded ? 'recorded' : 'minted', mintedLength: mintedBytes.length });
}

/** Per log: how many live records address each index, and the cleared ranges, sorted. */
interface LogAddresses {
  length: number;
  members: Set<Reduction>;
  addressed: Map<number, number>;
  cleared: (readonly [number, number])[];
}

/**
 * Computed once per log array (a log is never changed once resolved; the loader's preview works on
 * copies): asking every duplicate of a 10,000-entry log for its canonical's visibility would
 * otherwise scan the log once per duplicate.
 */
const addressesByLog = new WeakMap<readonly Reduction[], LogAddresses>();

function addressesOf(log: readonly Reduction[]): LogAddresses {
  let known = addressesByLog.get(log);
  if (known && known.length === log.length) return known;
  const addressed = new Map<number, number>();
  const cleared: (readonly [number, number])[] = [];
  for (const r of log) {
    if (isRangeKind(r.kind)) cleared.push([r.ptr.index, r.end ?? r.ptr.index]);
    else addressed.set(r.ptr.index, (addressed.get(r.ptr.index) ?? 0) + 1);
  }
  known = { length: log.length, members: new Set(log), addressed, cleared };
  addressesByLog.set(log, known);
  return known;
}

/**
 * True when a duplicate's canonical is fully visible: no other live record addresses its index and
 * no `turns_cleared` or `summarized` range encloses it (§3.5, §10.1).
 */
export function canonicalFullyVisible(r: Reduction, log: readonly Reduction[]): boolean {
  const c = r.canonical?.index;
  if (c === undefined) return false;
  const { members, addressed, cleared } = addressesOf(log);
  const self = members.has(r) ? 1 : 0;
  // Records addressing c, other than r itself.
  if (isRangeKind(r.kind)) {
    if ((addressed.get(c) ?? 0) > 0) return false;
    return cleared.filter(([start, end]) => start <= c && c < end).length <= (self && r.ptr.index <= c && c < (r.end ?? r.ptr.index) ? 1 : 0);
  }
  if ((addressed.get(c) ?? 0) - (self && r.ptr.index === c ? 1 : 0) > 0) return false;
  return !cleared.some(([start, end]) => start <= c && c < end);
}

/**
 * The hidden span of §3.5 over the resolved original of `r` (of `bytes`, its resolved bytes):
 * `[start, end)` in bytes, or null when nothing is hidden (a duplicate whose canonical is visible).
 * A `kept_bytes` inside a character is floored, so the span is always a valid UTF-8 string.
 */
export function hiddenSpan(r: Reduction, bytes: Uint8Array | ByteSource, log: readonly Reduction[]): [number, number] | null {
  const total = bytes.length;
  switch (r.kind) {
    case 'tool_output_truncated':
      return [floorSourceBoundary(asSource(bytes), Math.max(0, r.kept_bytes ?? 0)), total];
    case 'duplicate_output':
      return canonicalFullyVisible(r, log) ? null : [0, total];
    case 'tool_output_elided':
    case 'turns_cleared':
    case 'summarized':
      return [0, total];
  }
}

/** The live record with this id (the most recent, should an id have been minted twice). */
export function findReduction(log: readonly Reduction[], id: string): Reduction | undefined {
  for (let i = log.length - 1; i >= 0; i--) if (log[i]?.id === id) return log[i];
  return undefined;
}

export function unknownReduction(id: string, log: readonly Reduction[]): ResolverError {
  return { code: 'unknown_reduction', message: `no reduction with id ${JSON.stringify(id)} in the live log (${log.length} reductions)`, reduction_id: id };
}
