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
import type { MessageList, Reduction, Result, SearchMode, SidecarSearchMatch, SidecarSearchResult } from './types';
import { err, ok } from './types';
import { Utf16ToUtf8Cursor, utf8Length } from './utf8';

export interface SearchOptions extends ResolveOptions {
  mode?: SearchMode;
  case_sensitive?: boolean;
  max_matches?: number;
  snippet_max_bytes?: number;
  max_result_bytes?: number;
  /** Checked between spans and while scanning; an aborted search returns `cancelled`. */
  signal?: { readonly aborted: boolean };
}

/** Finds leftmost-first, non-overlapping matches in one string; yields UTF-16 [start, end). */
type Matcher = (text: string, onMatch: (start: number, end: number) => boolean) => void;

/**
 * One string searched on its own: a hidden span of one message, attributed to a reduction. Content
 * is resolved only when the unit is searched, so a search holds one message's content at a time.
 */
interface SearchUnit {
  index: number;
  /** The whole resolved content of the message and its hidden span in bytes; null when nothing is searchable. */
  load: () => { content: string; /** UTF-8 bytes of `content`. */ bytes: number; span: [number, number]; attribute: (offset: number, length: number) => Reduction; searched: number } | null;
}

function literalMatcher(query: string): Matcher {
  return (text, onMatch) => {
    for (let i = text.indexOf(query); i !== -1; i = text.indexOf(query, i + query.length)) {
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
  return (text, onMatch) => {
    const hay = text.toLowerCase();
    if (hay.length !== text.length || (hasS && text.includes('\u017F'))) return engine(text, onMatch);
    for (let i = hay.indexOf(needle); i !== -1; i = hay.indexOf(needle, i + needle.length)) {
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
  const engine: Matcher = (text, onMatch) => {
    const m = re.matcher(text);
    let pos = 0;
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
  // Units come sorted by (index, span start); matches of different units at one index are merged
  // by offset, keeping only the first `maxMatches` of each index since the result is in index order.
  let i = 0;
  while (i < units.length) {
    if (options.signal?.aborted) return cancelled();
    const index = units[i]?.index;
    const atIndex: SidecarSearchMatch[] = [];
    for (; i < units.length && units[i]?.index === index; i++) {
      const unit = (units[i] as SearchUnit).load();
      if (!unit) continue;
      searched += unit.searched;
      hiddenBytes += unit.span[1] - unit.span[0];
      const room = Math.max(0, maxMatches - kept.length);
      let fromUnit = 0;
      let sinceCheck = 0;
      let aborted = false;
      // Spans mostly start at 0 or a short kept prefix and end at the content's end: no walk needed there.
      const from = unit.span[0] === 0 ? 0 : utf16IndexOfByte(unit.content, unit.span[0]);
      const to = unit.span[1] === unit.bytes ? unit.content.length : utf16IndexOfByte(unit.content, unit.span[1]);
      const text = unit.content.slice(from, to);
      const cursor = new Utf16ToUtf8Cursor(text, unit.span[0]);
      matcher(text, (s, e) => {
        total++;
        if (++sinceCheck >= 4096) {
          sinceCheck = 0;
          if (options.signal?.aborted) return !(aborted = true);
        }
        if (fromUnit >= room) return true;
        fromUnit++;
        const offset = cursor.byteOffsetOf(s);
        const length = cursor.byteOffsetOf(e) - offset;
        const r = unit.attribute(offset, length);
        const { snippet, match } = snippetOf(text, s, e, length, snippetMax);
        atIndex.push({ reduction_id: r.id, kind: r.kind, index: index as number, offset, length, snippet, snippet_match: match });
        return true;
      });
      if (aborted) return cancelled();
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
    const span = hiddenSpan(r, resolved.value.bytes, log);
    return span ? { content: resolved.value.messages[0]?.content ?? '', bytes: resolved.value.bytes.length, span } : null;
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
          return {
            content: m.content,
            bytes: m.bytes.length,
            span: [0, m.bytes.length],
            attribute: (offset, length) => owners.find((o) => o.span[0] <= offset && offset + length <= o.span[1])?.r ?? c,
            searched: owners.length,
          };
        },
      });
    }
  }
  // Stable: units of one index keep log order.
  units.sort((a, b) => a.index - b.index);
  return { units, verified: cleared.length };
}
