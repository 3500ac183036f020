/**
 * What the document importers (SWE-agent, Inspect, OpenHands) record of a replaced text: its hash
 * and size as a reduction's `ptr` (SPEC §3.5), and the prefix an input kept of it.
 */
import { createHash } from 'node:crypto';
import { ptrHash } from '../../../shared/format/hash';
import { utf8Length } from '../../../shared/format/utf8';

/** A text's `ptr.hash` and `ptr.bytes`. */
export function hashOf(text: string): { hash: string; bytes: number } {
  return { hash: ptrHash(createHash('sha256').update(text, 'utf8').digest('hex')), bytes: utf8Length(text) };
}

/** The byte length of the longest common prefix of two texts, at a code point boundary. */
export function commonPrefixBytes(a: string, b: string): number {
  let i = 0;
  const n = Math.min(a.length, b.length);
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  // Never split a surrogate pair: a shared high surrogate followed by anything in either text (a low
  // half in one, something else or nothing in the other) stays out, or the prefix's bytes would end
  // inside the 4-byte character of the text that has the pair.
  if (i > 0 && (i < a.length || i < b.length) && a.charCodeAt(i - 1) >= 0xd800 && a.charCodeAt(i - 1) <= 0xdbff) i--;
  return utf8Length(a.slice(0, i));
}
