/**
 * §5.3 sidecarSearch: bounded search over content currently reduced out of the view.
 *
 * Invariants: every match lies inside a hidden span of its reduction's resolved original; each
 * span is searched as its own string (a match never straddles into visible text); matches are
 * leftmost-first and non-overlapping, ordered by view index then offset; the compact JSON of the
 * result never exceeds `max_result_bytes`, matches being dropped whole and `truncated` saying so.
 */
import { RE2JS } from 're2js';
import { MAX_MATCHES, MAX_RESULT_BYTES, SNIPPET_MAX_BYTES } from './constants';
import type { ResolveOptions } from './original';
import { canonicalFullyVisible, hiddenSpan, resolveMessage, resolveOriginal } from './original';
import { floorSourceBoundary } from './bytes';
import type { ByteSource, MessageList, Reduction, Result, SearchMode, SidecarSearchMatch, SidecarSearchResult } from './types';
import { ContentUnavailableError, err, ok } from './types';
import { Utf16ToUtf8Cursor, utf8Decode, utf8Encode, utf8Length } from './utf8';

export interface SearchOptions extends ResolveOptions {
  mode?: SearchMode;
  case_sensitive?: boolean;
  max_matches?: number;
  snippet_max_bytes?: number;
  max_result_bytes?: number;
  /** Checked between spans and while scanning; an aborted search returns `cancelled`. */
  signal?: { readonly aborted: boolean };
  /** Window size over large contents (default 1 MiB); tests make it small to cross windows. */
  window_bytes?: number;
  /** Called as the search goes: hidden spans searched so far of all, and their bytes. */
  onProgress?: (progress: { spans_searched: number; spans: number; hidden_bytes_searched: number }) => void;
}

/**
 * Finds leftmost-first, non-overlapping matches in one string from UTF-16 index `from`; yields
 * UTF-16 [start, end) until `onMatch` returns false.
 */
type Matcher = (text: string, onMatch: (start: number, end: number) => boolean, from?: number) => void;

/** A large content is searched in windows of this many bytes (plus an overlap, below): small enough that the strings decoded for the regex engine stay small. */
const WINDOW_BYTES = 1024 * 1024;
/**
 * How far a window reaches past its own part: a literal match always fits; a regex match in a large
 * content is searched within its window, so one longer than this can be cut at the window's end.
 */
const WINDOW_OVERLAP_BYTES = 64 * 1024;

/**
 * One string searched on its own: a hidden span of one message, attributed to a reduction. Content
 * is resolved only when the unit is searched, so a search holds one message's content at a time.
 */
interface SearchUnit {
  index: number;
  /** The whole resolved content of the message and its hidden span in bytes; null when nothing is searchable. */
  load: () => LoadedUnit | null;
}

/** A unit's content: as text when it is in memory, else as a source read window by window. */
type LoadedUnit = { span: [number, number]; attribute: (offset: number, length: number) => Reduction; searched: number } & (
  | { content: string; /** UTF-8 bytes of `content`. */ bytes: number }
  | { source: ByteSource }
);

function literalMatcher(query: string): Matcher {
  return (text, onMatch, from = 0) => {
    for (let i = text.indexOf(query, from); i !== -1; i = text.indexOf(query, i + query.length)) {
      if (!onMatch(i, i + query.length)) return;
    }
  };
}

/**
 * Case-insensitive substring search without the regex engine, exact where it applies. For an
 * ASCII query, RE2's case folding (simple Unicode folding) pairs each letter with its other case,
 * plus K with U+212A KELVIN SIGN (which toLowerCase also maps to k) and s with U+017F LONG S
 * (which it does not). So `toLowerCase` on both sides finds exactly RE2's matches, at the same
 * UTF-16 positions, when lowercasing changed no length (İ becomes two units) and, for a query
 * with an s, the text has no long s. Anything else falls back to the engine.
 */
function foldedMatcher(query: string, engine: Matcher): Matcher {
  // eslint-disable-next-line no-control-regex
  if (!/^[\x00-\x7f]*$/.test(query)) return engine;
  const hasS = /s/i.test(query);
  const needle = query.toLowerCase();
  return (text, onMatch, from = 0) => {
    const hay = text.toLowerCase();
    if (hay.length !== text.length || (hasS && text.includes('\u017F'))) return engine(text, onMatch, from);
    for (let i = hay.indexOf(needle, from); i !== -1; i = hay.indexOf(needle, i + needle.length)) {
      if (!onMatch(i, i + needle.length)) return;
    }
  };
}

function compileMatcher(query: string, mode: SearchMode, caseSensitive: boolean): Result<Matcher> {
  if (query.length === 0) return err({ code: 'invalid_query', message: 'the query is empty', position: 0 });
  if (mode === 'substring' && caseSensitive) return ok(literalMatcher(query));
  const pattern = mode === 'substring' ? RE2JS.quote(query) : query;
  let re: RE2JS;
  try {
    re = RE2JS.compile(pattern, caseSensitive ? 0 : RE2JS.CASE_INSENSITIVE);
  } catch (e) {
    const fragment = (e as { input?: unknown }).input;
    const at = typeof fragment === 'string' && fragment.length > 0 && fragment !== query ? query.indexOf(fragment) : query.length;
    const position = utf8Length(query.slice(0, Math.max(0, at)));
    return err({ code: 'invalid_query', message: `invalid regex at byte ${position}: ${(e as Error).message}`, position });
  }
  const engine: Matcher = (text, onMatch, from = 0) => {
    const m = re.matcher(text);
    let pos = from;
    let lastEnd = -1;
    while (pos <= text.length && m.find(pos)) {
      const s = m.start();
      const e = m.end();
      const step = s < text.length ? codePointLength(text, s) : 1;
      if (s === e && s === lastEnd) {
        // RE2 semantics: an empty match abutting the previous match is not reported.
        pos = s + step;
        continue;
      }
      if (!onMatch(s, e)) return;
      lastEnd = e;
      pos = e > s ? e : s + step;
    }
  };
  return ok(mode === 'substring' ? foldedMatcher(query, engine) : engine);
}

function codePointLength(text: string, i: number): number {
  const c = text.charCodeAt(i);
  return c >= 0xd800 && c <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00 ? 2 : 1;
}

function utf8CodePointBytes(text: string, i: number): number {
  const c = text.codePointAt(i) ?? 0;
  if (c < 0x80) return 1;
  if (c < 0x800) return 2;
  if (c < 0x10000) return 3;
  return 4;
}

/** UTF-16 index of byte offset `byteOffset` in `text` (a character boundary). */
function utf16IndexOfByte(text: string, byteOffset: number): number {
  let bytes = 0;
  let i = 0;
  while (i < text.length && bytes < byteOffset) {
    bytes += utf8CodePointBytes(text, i);
    i += codePointLength(text, i);
  }
  return i;
}

/**
 * A window of at most `max` bytes around the match `[s, e)` (UTF-16, within `text`), on character
 * boundaries. Context is shared evenly before and after; what one side cannot use goes to the
 * other. A match longer than `max` is cut to its first `max` bytes.
 */
function snippetOf(text: string, s: number, e: number, matchBytes: number, max: number): { snippet: string; match: [number, number] } {
  if (matchBytes >= max) {
    let i = s;
    let used = 0;
    while (i < e) {
      const b = utf8CodePointBytes(text, i);
      if (used + b > max) break;
      used += b;
      i += codePointLength(text, i);
    }
    return { snippet: text.slice(s, i), match: [0, used] };
  }
  let budget = max - matchBytes;
  let left = s;
  let leftBytes = 0;
  const stepLeft = (limit: number): void => {
    while (left > 0) {
      const i = left >= 2 && (text.charCodeAt(left - 1) & 0xfc00) === 0xdc00 && (text.charCodeAt(left - 2) & 0xfc00) === 0xd800 ? left - 2 : left - 1;
      const b = utf8CodePointBytes(text, i);
      if (leftBytes + b > limit) break;
      leftBytes += b;
      left = i;
    }
  };
  stepLeft(Math.floor(budget / 2));
  budget -= leftBytes;
  let right = e;
  let rightBytes = 0;
  while (right < text.length) {
    const b = utf8CodePointBytes(text, right);
    if (rightBytes + b > budget) break;
    rightBytes += b;
    right += codePointLength(text, right);
  }
  stepLeft(max - matchBytes - rightBytes);
  return { snippet: text.slice(left, right), match: [leftBytes, leftBytes + matchBytes] };
}

function jsonBytes(value: unknown): number {
  return utf8Length(JSON.stringify(value));
}

type AddMatch = (offset: number, length: number, snippet: () => { snippet: string; match: [number, number] }) => void;

/** Searches a hidden span held as text. */
function scanText(unit: { content: string; bytes: number; span: [number, number] }, matcher: Matcher, counted: () => boolean, add: AddMatch, snippetMax: number): void {
  // Spans mostly start at 0 or a short kept prefix and end at the content's end: no walk needed there.
  const from = unit.span[0] === 0 ? 0 : utf16IndexOfByte(unit.content, unit.span[0]);
  const to = unit.span[1] === unit.bytes ? unit.content.length : utf16IndexOfByte(unit.content, unit.span[1]);
  const text = unit.content.slice(from, to);
  const cursor = new Utf16ToUtf8Cursor(text, unit.span[0]);
  matcher(text, (s, e) => {
    if (!counted()) return false;
    const offset = cursor.byteOffsetOf(s);
    const length = cursor.byteOffsetOf(e) - offset;
    add(offset, length, () => snippetOf(text, s, e, length, snippetMax));
    return true;
  });
}

/** The snippet around `[offset, offset + length)` of a source, its context kept inside `span`. */
function sourceSnippet(source: ByteSource, span: [number, number], offset: number, length: number, max: number): { snippet: string; match: [number, number] } {
  const a = Math.max(span[0], floorSourceBoundary(source, offset - max));
  const b = Math.max(offset + length, Math.min(span[1], floorSourceBoundary(source, Math.min(span[1], offset + length + max))));
  const text = utf8Decode(source.read(a, b));
  return snippetOf(text, utf16IndexOfByte(text, offset - a), utf16IndexOfByte(text, offset + length - a), length, max);
}

/**
 * Searches a hidden span of a large content. A case-sensitive substring goes through the source's
 * own search when it has one (a file-backed source searches its raw bytes); anything else is
 * decoded window by window, each window starting where the previous match ended so matches stay
 * leftmost-first and non-overlapping across windows.
 */
function scanSource(
  source: ByteSource,
  span: [number, number],
  matcher: Matcher,
  literal: Uint8Array | undefined,
  counted: () => boolean,
  add: AddMatch,
  snippetMax: number,
  isAborted: () => boolean,
  windowBytes: number,
): void {
  if (literal && source.findAll) {
    source.findAll(literal, span[0], span[1], (at) => {
      if (!counted()) return false;
      add(at(), literal.length, () => sourceSnippet(source, span, at(), literal.length, snippetMax));
      return true;
    });
    return;
  }
  let next = span[0];
  for (let a = span[0]; a < span[1]; ) {
    if (isAborted()) return;
    // A window ends on a character boundary, at least one character on.
    const own = span[1] - a <= windowBytes ? span[1] : Math.max(floorSourceBoundary(source, a + windowBytes), floorSourceBoundary(source, Math.min(span[1], a + 4)));
    const from = Math.max(a, next);
    if (from < own) {
      const start = Math.max(span[0], floorSourceBoundary(source, from - snippetMax));
      const end = Math.min(span[1], floorSourceBoundary(source, Math.min(span[1], own + WINDOW_OVERLAP_BYTES)));
      const text = utf8Decode(source.read(start, Math.max(end, own)));
      const cursor = new Utf16ToUtf8Cursor(text, start);
      let stop = false;
      matcher(
        text,
        (s, e) => {
          const offset = cursor.byteOffsetOf(s);
          if (offset >= own) return false;
          const endOffset = cursor.byteOffsetOf(e);
          next = endOffset > offset ? endOffset : offset + utf8CodePointBytes(text, s);
          if (!counted()) {
            stop = true;
            return false;
          }
          add(offset, endOffset - offset, () => snippetOf(text, s, e, endOffset - offset, snippetMax));
          return true;
        },
        utf16IndexOfByte(text, from - start),
      );
      if (stop) return;
    }
    a = own;
  }
}

export function sidecarSearch(
  log: readonly Reduction[],
  query: string,
  minted: MessageList,
  recorded?: MessageList,
  options: SearchOptions = {},
): Result<SidecarSearchResult> {
  const mode = options.mode ?? 'substring';
  const caseSensitive = options.case_sensitive ?? true;
  const maxMatches = Math.max(0, Math.floor(options.max_matches ?? MAX_MATCHES));
  const snippetMax = Math.max(1, Math.floor(options.snippet_max_bytes ?? SNIPPET_MAX_BYTES));
  const maxResultBytes = options.max_result_bytes ?? MAX_RESULT_BYTES;
  const compiled = compileMatcher(query, mode, caseSensitive);
  if (!compiled.ok) return compiled;
  const matcher = compiled.value;
  const cancelled = () => err({ code: 'cancelled' as const, message: `search for ${JSON.stringify(query)} was cancelled` });

  const { units, verified } = searchUnits(log, minted, recorded, options);
  let searched = verified;
  const kept: SidecarSearchMatch[] = [];
  let total = 0;
  let hiddenBytes = 0;
  let spansDone = 0;
  let aborted = false;
  let sinceCheck = 0;
  /** Counts a match; false when the search was cancelled meanwhile. */
  const counted = (): boolean => {
    total++;
    if (++sinceCheck >= 4096) {
      sinceCheck = 0;
      if (options.signal?.aborted) aborted = true;
    }
    return !aborted;
  };
  const literal = mode === 'substring' && caseSensitive ? utf8Encode(query) : undefined;
  // Units come sorted by (index, span start); matches of different units at one index are merged
  // by offset, keeping only the first `maxMatches` of each index since the result is in index order.
  let i = 0;
  while (i < units.length) {
    if (options.signal?.aborted) return cancelled();
    const index = units[i]?.index as number;
    const atIndex: SidecarSearchMatch[] = [];
    for (; i < units.length && units[i]?.index === index; i++) {
      try {
        const unit = (units[i] as SearchUnit).load();
        spansDone++;
        if (!unit) continue;
        searched += unit.searched;
        hiddenBytes += unit.span[1] - unit.span[0];
        const room = Math.max(0, maxMatches - kept.length);
        let fromUnit = 0;
        const add = (offset: number, length: number, snippet: () => { snippet: string; match: [number, number] }): void => {
          if (fromUnit >= room) return;
          fromUnit++;
          const r = unit.attribute(offset, length);
          const { snippet: text, match } = snippet();
          atIndex.push({ reduction_id: r.id, kind: r.kind, index, offset, length, snippet: text, snippet_match: match });
        };
        if ('content' in unit) scanText(unit, matcher, counted, add, snippetMax);
        else scanSource(unit.source, unit.span, matcher, literal, counted, add, snippetMax, () => options.signal?.aborted === true || aborted, options.window_bytes ?? WINDOW_BYTES);
        if (aborted || options.signal?.aborted) return cancelled();
      } catch (e) {
        // A large content whose file changed since it was indexed is not searched.
        if (!(e instanceof ContentUnavailableError)) throw e;
      }
      options.onProgress?.({ spans_searched: spansDone, spans: units.length, hidden_bytes_searched: hiddenBytes });
    }
    atIndex.sort((a, b) => a.offset - b.offset);
    for (const m of atIndex) if (kept.length < maxMatches) kept.push(m);
  }

  const result: SidecarSearchResult = {
    query,
    mode,
    case_sensitive: caseSensitive,
    matches: [],
    total_matches: total,
    truncated: false,
    reductions_searched: searched,
    hidden_bytes_searched: hiddenBytes,
  };
  // Sized with `truncated: false`, the longer literal, so the bound holds whichever value it ends with.
  let size = jsonBytes(result);
  if (size > maxResultBytes) {
    return err({
      code: 'invalid_query',
      message: `a result for this ${utf8Length(query)}-byte query cannot fit in max_result_bytes=${maxResultBytes}`,
    });
  }
  for (const m of kept) {
    const add = jsonBytes(m) + (result.matches.length > 0 ? 1 : 0);
    if (size + add > maxResultBytes) break;
    size += add;
    result.matches.push(m);
  }
  result.truncated = result.matches.length < total;
  return ok(result);
}

/**
 * The strings to search, per §5.3: each live reduction's hidden span over its resolved content;
 * a `turns_cleared` range message by message (content only), where a match inside the hidden span
 * of a per-message reduction of that message is attributed to that reduction. Reductions whose
 * original cannot be verified (bad address, hash mismatch) are not searched: the integrity check
 * reports them. `verified` counts the cleared ranges, verified up front.
 */
function searchUnits(
  log: readonly Reduction[],
  minted: MessageList,
  recorded: MessageList | undefined,
  options: ResolveOptions,
): { units: SearchUnit[]; verified: number } {
  const units: SearchUnit[] = [];
  // Only a cleared range whose transcript verifies encloses anything; per-message reductions inside
  // an unverifiable range are searched on their own.
  const cleared = log.filter((r) => r.kind === 'turns_cleared' && resolveOriginal(r, minted, recorded, options).ok);
  const enclosing = (index: number) => cleared.find((c) => c.ptr.index <= index && index < (c.end ?? c.ptr.index));
  /** Per-message reductions inside cleared ranges, by index: matches in their hidden spans are theirs. */
  const inner = new Map<number, Reduction[]>();

  /** The resolved content and hidden span of a per-message reduction, or null when it has none to search. */
  const perMessage = (r: Reduction) => {
    if (r.kind === 'duplicate_output' && canonicalFullyVisible(r, log)) return null;
    const resolved = resolveOriginal(r, minted, recorded, options);
    if (!resolved.ok) return null;
    const bytes = resolved.value.bytes;
    const span = hiddenSpan(r, bytes, log);
    if (!span) return null;
    return 'bytes' in bytes ? { content: resolved.value.messages[0]?.content ?? '', bytes: bytes.length, span } : { source: bytes, span };
  };

  for (const r of log) {
    if (r.kind === 'turns_cleared') continue;
    if (enclosing(r.ptr.index)) {
      inner.set(r.ptr.index, [...(inner.get(r.ptr.index) ?? []), r]);
      continue;
    }
    units.push({
      index: r.ptr.index,
      load: () => {
        const found = perMessage(r);
        return found && { ...found, attribute: () => r, searched: 1 };
      },
    });
  }
  const seen = new Set<number>();
  for (const c of cleared) {
    for (let index = c.ptr.index; index < (c.end ?? c.ptr.index); index++) {
      if (seen.has(index)) continue;
      seen.add(index);
      units.push({
        index,
        load: () => {
          // Verified above, but read again: a file-backed list can lose a message meanwhile.
          const msg = minted.at(index);
          if (msg === undefined) return null;
          const m = resolveMessage(index, msg, recorded);
          const owners = (inner.get(index) ?? []).flatMap((r) => {
            const found = perMessage(r);
            return found ? [{ r, span: found.span }] : [];
          });
          const attribute = (offset: number, length: number) => owners.find((o) => o.span[0] <= offset && offset + length <= o.span[1])?.r ?? c;
          const span: [number, number] = [0, m.bytes.length];
          return 'bytes' in m.bytes
            ? { content: m.content, bytes: m.bytes.length, span, attribute, searched: owners.length }
            : { source: m.bytes, span, attribute, searched: owners.length };
        },
      });
    }
  }
  // Stable: units of one index keep log order.
  units.sort((a, b) => a.index - b.index);
  return { units, verified: cleared.length };
}
