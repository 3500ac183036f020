/**
 * What a search of hidden content searches (SPEC §5.3): each live reduction's hidden span over its
 * resolved content, a range message by message; computed once per session state and kept, and done
 * ahead in a host's idle time (`searchPreparationSteps`).
 */
import type { ResolveOptions } from '../resolver/original';
import { canonicalFullyVisible, hiddenSpan, resolveMessage, resolveOriginal } from '../resolver/original';
import type { MessageList, Reduction, Result } from '../format/types';
import { ContentUnavailableError, holdsOriginal, isRangeKind, ok } from '../format/types';
import type { LoadedUnit, SearchUnit } from './types';
import { encodedOnReadSource, isMemorySource, isTextSource } from '../format/bytes';

/**
 * What a search does once per session state, done ahead: each unit resolved, its content
 * verified and kept as searchUnitsOf keeps it, one unit a step; returns how many units there are.
 * A host runs it in its idle time after an open, so that a first search sent later finds that work
 * done (and reads no record of a hidden content). A unit whose content the file no longer holds is
 * left to the search, which says so.
 */
export function* searchPreparationSteps(log: readonly Reduction[], minted: MessageList, recorded: MessageList | undefined, options: ResolveOptions = {}): Generator<void, Result<number>> {
  const { units } = searchUnitsOf(log, minted, recorded, options);
  for (const unit of units) {
    try {
      unit.load();
    } catch (e) {
      if (!(e instanceof ContentUnavailableError)) throw e;
    }
    yield;
  }
  return ok(units.length);
}

/** searchUnits' answer for a log, with the lists it was computed over (see searchUnitsOf). */
interface KnownUnits {
  minted: MessageList;
  recorded: MessageList | undefined;
  logLength: number;
  mintedLength: number;
  recordedLength: number | undefined;
  value: ReturnType<typeof searchUnits>;
}

const unitsByLog = new WeakMap<readonly Reduction[], KnownUnits>();

/**
 * searchUnits, computed once per session state: the same log over the same lists (a
 * log is never changed once handed out; a followed session hands out a new one, or a longer one,
 * as it grows). A unit over a large content keeps what it loaded — its verified source and hidden
 * span, which the reader keeps anyway — so a later search neither resolves nor verifies it again,
 * work that was a fifth of a warm search over 3,000 contents. A unit over an in-memory content
 * keeps nothing (its text would outlive the message cache's bound) and is loaded at each search.
 */
export function searchUnitsOf(log: readonly Reduction[], minted: MessageList, recorded: MessageList | undefined, options: ResolveOptions): KnownUnits['value'] {
  const known = unitsByLog.get(log);
  if (
    known !== undefined &&
    known.minted === minted &&
    known.recorded === recorded &&
    known.logLength === log.length &&
    known.mintedLength === minted.length &&
    known.recordedLength === recorded?.length
  ) {
    return known.value;
  }
  const value = searchUnits(log, minted, recorded, options);
  for (const unit of value.units) {
    const load = unit.load;
    let kept: LoadedUnit | null | undefined;
    unit.load = () => {
      if (kept !== undefined) return kept;
      const found = load();
      if (found === null || 'source' in found) kept = found;
      return found;
    };
  }
  unitsByLog.set(log, { minted, recorded, logLength: log.length, mintedLength: minted.length, recordedLength: recorded?.length, value });
  return value;
}

/** A unit's place in its file, not known until its first search (SearchUnit.quick). */
const unknownRange = (): NonNullable<SearchUnit['quick']> => ({ file: -1, from: 0, to: 0, bytes: 0, searched: 0, source: undefined });

/**
 * The strings to search, per §5.3: each live reduction's hidden span over its resolved content;
 * a `turns_cleared` or `summarized` range message by message (content only), where a match inside
 * the hidden span of a per-message reduction of that message is attributed to that reduction.
 * Reductions whose original cannot be verified (bad address, hash mismatch) are not searched: the
 * integrity check reports them. `verified` counts the ranges, verified up front; `unavailable` the
 * reductions whose original the file does not hold (`ptr.hash: null`), never searched.
 */
function searchUnits(
  log: readonly Reduction[],
  minted: MessageList,
  recorded: MessageList | undefined,
  options: ResolveOptions,
): { units: SearchUnit[]; verified: number; unavailable: number } {
  const units: SearchUnit[] = [];
  const unavailable = log.filter((r) => !holdsOriginal(r.ptr)).length;
  // Only a cleared range whose transcript verifies encloses anything; per-message reductions inside
  // an unverifiable range are searched on their own.
  const cleared = log.filter((r) => isRangeKind(r.kind) && holdsOriginal(r.ptr) && resolveOriginal(r, minted, recorded, options).ok);
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
    return isMemorySource(bytes) ? { content: resolved.value.messages[0]?.content ?? '', bytes: bytes.length, span } : { source: bytes, span };
  };

  for (const r of log) {
    if (isRangeKind(r.kind) || !holdsOriginal(r.ptr)) continue;
    if (enclosing(r.ptr.index)) {
      inner.set(r.ptr.index, [...(inner.get(r.ptr.index) ?? []), r]);
      continue;
    }
    units.push({
      index: r.ptr.index,
      quick: unknownRange(),
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
        quick: unknownRange(),
        load: () => {
          // Verified above, but read again: a file-backed list can lose a message meanwhile.
          const msg = minted.at(index);
          if (msg === undefined) return null;
          // A content held in memory is measured, not encoded: it is searched as text (scanText).
          const m = resolveMessage(index, msg, recorded, encodedOnReadSource);
          const owners = (inner.get(index) ?? []).flatMap((r) => {
            const found = perMessage(r);
            return found ? [{ r, span: found.span }] : [];
          });
          const attribute = (offset: number, length: number) => owners.find((o) => o.span[0] <= offset && offset + length <= o.span[1])?.r ?? c;
          const span: [number, number] = [0, m.bytes.length];
          return isTextSource(m.bytes)
            ? { content: m.content, bytes: m.bytes.length, span, attribute, searched: owners.length }
            : { source: m.bytes, span, attribute, searched: owners.length };
        },
      });
    }
  }
  // Stable: units of one index keep log order.
  units.sort((a, b) => a.index - b.index);
  return { units, verified: cleared.length, unavailable };
}
