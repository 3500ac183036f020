/**
 * Finding a search match inside a `turns_cleared` or `summarized` transcript. Search reports a match in a cleared
 * range by its message's index and the byte offset in that message's content (SPEC §5.3), but the
 * reduction expands to the transcript of the whole range (§3.5: per message
 * `"⟨" + role + (" " + tool_call_id)? + "⟩\n" + content + "\n"`). To show the match in the
 * expanded transcript, the view needs the transcript offset of that message's content.
 *
 * Message headers are located by parsing; content may itself contain header-like lines, so each
 * candidate start is checked against the match's snippet (the bytes around the match, taken from
 * the same content) before it is trusted.
 */
import { utf8Length } from '../../shared/utf8';
import { byteOffsetToIndex } from './utf8Offsets';

/** Candidates checked before giving up (each check reads up to the match's offset). */
const MAX_CANDIDATES = 64;
const HEADER = /(?:^|\n)⟨(?:system|user|assistant|tool)(?: [^⟩\n]*)?⟩\n/g;

export interface TranscriptMatch {
  /** Position of the message inside the cleared range (its view index minus the range start). */
  ordinal: number;
  /** Byte offset of the match in the message's content. */
  offset: number;
  snippet: string;
  /** Byte range of the match inside `snippet`. */
  snippet_match: readonly [number, number];
}

/**
 * The transcript byte offset of `match`, given the transcript's text from its start (it may be a
 * prefix of the whole transcript); null when it cannot be placed with certainty.
 */
export function locateInTranscript(transcript: string, match: TranscriptMatch): number | null {
  // Content starts (string index, byte offset) after each header at a line start, in order.
  const starts: { index: number; bytes: number }[] = [];
  let lastIndex = 0;
  let lastBytes = 0;
  HEADER.lastIndex = 0;
  for (let m = HEADER.exec(transcript); m !== null; m = HEADER.exec(transcript)) {
    const index = m.index + m[0].length;
    lastBytes += utf8Length(transcript.slice(lastIndex, index));
    lastIndex = index;
    starts.push({ index, bytes: lastBytes });
  }
  const snippetLead = match.offset - match.snippet_match[0];
  if (snippetLead < 0) return null;
  const verifies = (start: { index: number; bytes: number }): boolean => {
    const at = start.index + byteOffsetToIndex(transcript.slice(start.index, start.index + snippetLead + 16), snippetLead);
    return transcript.startsWith(match.snippet, at) && utf8Length(transcript.slice(start.index, at)) === snippetLead;
  };
  // The header counted `ordinal` first; then the nearest other candidates, in both directions.
  const order = starts
    .map((_, k) => k)
    .sort((a, b) => Math.abs(a - match.ordinal) - Math.abs(b - match.ordinal) || a - b)
    .slice(0, MAX_CANDIDATES);
  for (const k of order) {
    const start = starts[k];
    if (start && verifies(start)) return start.bytes + match.offset;
  }
  return null;
}
