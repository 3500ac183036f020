/** Number and size formatting for the UI (fixed locale, so tests and screenshots agree). */
import type { SessionFormat } from '../../shared/contract';
import { nameText } from './nameText';

const integer = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

/** `1,234,567` */
export function formatCount(n: number): string {
  return integer.format(n);
}

/**
 * A count with its noun: `1 reduction`, `2 reductions`, `1,234 matches`. The one way the app
 * words a count, so none says "1 reductions"; `plural` is for a noun not made by adding `s`.
 */
export function countOf(n: number, singular: string, plural = `${singular}s`): string {
  return `${formatCount(n)} ${n === 1 ? singular : plural}`;
}

/** `1,234 bytes`, `12.3 KiB`, `4.0 MiB`: exact below 10 KiB, binary units above. */
export function formatBytes(n: number): string {
  if (n < 10 * 1024) return countOf(n, 'byte');
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let value = n / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}

/**
 * How far a load has read, as a whole percent (floored: 100 only when every byte is read) and in
 * words: `316.4 MiB of 512.0 MiB (61 %)`.
 */
export function loadedText(bytesRead: number, totalBytes: number): { percent: number; text: string } {
  const percent = totalBytes > 0 ? Math.min(100, Math.floor((bytesRead / totalBytes) * 100)) : 0;
  return { percent, text: `${formatBytes(bytesRead)} of ${formatBytes(totalBytes)} (${percent} %)` };
}

/** A short label of a reduction kind: `truncated`, `elided`, `duplicate`, `turns cleared`. */
export function kindLabel(kind: string): string {
  switch (kind) {
    case 'tool_output_truncated':
      return 'truncated';
    case 'tool_output_elided':
      return 'elided';
    case 'duplicate_output':
      return 'duplicate';
    case 'turns_cleared':
      return 'turns cleared';
    case 'summarized':
      return 'summarized';
    default:
      return kind;
  }
}

/**
 * What checking a reduction found, in words. "verified" only for a hash the file itself recorded:
 * a hash an importer computed says only that the bytes are those it hashed ("hashed at import",
 * SPEC §10.1). An original the file does not hold is "original not recorded".
 */
export function verificationLabel(status: { status: string; hash_origin?: string | undefined } | undefined): string {
  if (status === undefined) return 'checking…';
  switch (status.status) {
    case 'verified':
      return status.hash_origin === 'import' ? 'hashed at import' : 'verified';
    case 'original_unavailable':
      return 'original not recorded';
    default:
      return status.status.replace(/_/g, ' ');
  }
}

/** A reduction's provenance in words, when it is worth saying: a native reduction (recorded, its hash recorded) says nothing. */
export function provenanceLabel(status: { provenance?: string | undefined; hash_origin?: string | undefined } | undefined): string | undefined {
  if (status?.provenance === undefined) return undefined;
  if (status.provenance === 'recorded' && status.hash_origin === 'recorded') return undefined;
  return status.provenance === 'derived' ? 'derived' : 'recorded by the agent';
}

/**
 * Where a reduction's original bytes were read: an importer's words for its file ("the tool-results
 * file x.txt"), else the native view they came from (`minted`, `recorded`).
 */
export function sourceLabel(status: { source?: string | undefined; original_from?: string | undefined } | undefined): string {
  if (status?.original_from !== undefined) return `Original from ${nameText(status.original_from)}`;
  return status?.source !== undefined ? `Source ${status.source}` : 'Source unknown';
}

/** The last path segment, for either separator. */
export function baseName(path: string): string {
  const parts = path.split(/[\\/]/);
  return nameText(parts[parts.length - 1] || path);
}

/** Each §10.1 session format by the name its agent goes by: what the header's format badge says. */
export const FORMAT_LABELS: Readonly<Record<SessionFormat, string>> = {
  supercode: 'Supercode',
  'claude-code': 'Claude Code',
  codex: 'Codex',
  'swe-agent': 'SWE-agent',
  inspect: 'Inspect AI',
  openhands: 'OpenHands',
};

/** Longest session title the picker shows (a title is the first words of a prompt, from the file). */
const SESSION_TITLE_CHARS = 80;

/** The scorers a picker label names at most. */
const LABEL_SCORES = 3;

/**
 * What a format calls the sessions one file holds (SPEC §10.1): an Inspect log's samples (each
 * one, the first too: a log has no main session), Claude Code's subagents (beside its main
 * session); any other format's, sessions.
 */
export type SessionNoun = 'sample' | 'subagent' | 'session';

export function sessionNoun(format: SessionFormat | null | undefined): SessionNoun {
  return format === 'inspect' ? 'sample' : format === 'claude-code' ? 'subagent' : 'session';
}

/** `Sample 2_epoch_1`, `Subagent a1`, `Session s1`: one session of a file named by its id as its format calls it. */
export function sessionName(id: string, noun: SessionNoun): string {
  return `${noun === 'sample' ? 'Sample' : noun === 'subagent' ? 'Subagent' : 'Session'} ${nameText([...id].slice(0, 100).join(''))}`;
}

/**
 * One session of the picker in words: the main one (`main`) or its id, its title when the file
 * gives one, and its message count (or that it is not read yet, with the count the log's summary
 * records when it does, or that it could not be counted), then what an Inspect log's summary
 * records of it: its scores and the limit it hit. Every part from the file goes through nameText.
 */
export function sessionLabel(
  entry: { id: string; title?: string | undefined; messages: number; counting?: 'pending' | 'failed' | undefined; recorded?: { messages?: number | undefined; scores?: Record<string, string> | undefined; limit?: string | undefined; error?: string | undefined } | undefined },
  main: boolean,
  noun: SessionNoun = 'session',
): string {
  const who = main && noun !== 'sample' ? 'Main session' : sessionName(entry.id, noun);
  // By code point, so a cut never splits a surrogate pair.
  const title = entry.title === undefined ? [] : [...entry.title.replace(/\s+/g, ' ').trim()];
  const shown = title.length === 0 ? '' : `: ${nameText(title.length > SESSION_TITLE_CHARS ? `${title.slice(0, SESSION_TITLE_CHARS).join('')}…` : title.join(''))}`;
  const recorded = entry.recorded;
  const pending = recorded?.messages !== undefined ? `not read yet; the log records ${countOf(recorded.messages, 'message')}` : 'not read yet';
  const count = entry.counting === 'pending' ? pending : entry.counting === 'failed' ? 'messages not counted' : countOf(entry.messages, 'message');
  const scores = Object.entries(recorded?.scores ?? {})
    .slice(0, LABEL_SCORES)
    .map(([name, value]) => nameText(`${name} ${value}`.replace(/\s+/g, ' ')));
  const stopped = recorded?.error !== undefined ? ['error'] : recorded?.limit !== undefined ? [`${nameText(recorded.limit)} limit`] : [];
  return `${who}${shown} (${[count, ...scores, ...stopped].join(', ')})`;
}
