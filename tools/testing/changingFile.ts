/** Session files for the tests of a file that changes on disk while it is open. */
import { closeSync, openSync, readFileSync, statSync, utimesSync, writeSync } from 'node:fs';
import type { ChatMessage, Reduction } from '../../shared/index';
import { makeReduction, tool, user } from '../../shared/testing/builders';
import { makeHeader, messageRecord, reductionRecord, writeSidecar } from './files';

/** A tool output of this many bytes is read back by range, from checkpoints (≥ 8 MiB). */
export const LARGE_OUTPUT_BYTES = 9 * 1024 * 1024;

/** ASCII lines, so a byte flipped keeps the length and the JSON valid. */
export function largeOutput(bytes = LARGE_OUTPUT_BYTES): string {
  const line = 'PASS test/unit/resolver.test.ts > expands every reduction to verified bytes\n';
  return line.repeat(Math.ceil(bytes / line.length)).slice(0, bytes);
}

/** A sidecar whose one tool output (view index 1) is truncated to its first 1024 bytes as r1. */
export function writeLargeOutputSidecar(path: string, content = largeOutput()): { path: string; view: ChatMessage[]; log: Reduction[] } {
  const view = [user('run the tests'), tool(content, 'call_1')];
  const log = [makeReduction(view, { id: 'r1', kind: 'tool_output_truncated', index: 1, kept_bytes: 1024 })];
  writeSidecar(path, [makeHeader(), ...view.map((m, i) => messageRecord(i, m)), ...log.map(reductionRecord)]);
  return { path, view, log };
}

/**
 * Rewrites `length` bytes at `offset` in place with other bytes of the same length (each ASCII
 * letter moved on by one), then sets the modification time back to what it was: a change that
 * size and mtime alone do not show. Returns the bytes written.
 */
export function rewriteInPlace(path: string, offset: number, length: number): Buffer {
  const { atime, mtime } = statSync(path);
  const bytes = readFileSync(path).subarray(offset, offset + length);
  const altered = Buffer.from(bytes.map((b) => (b >= 0x61 && b < 0x7a ? b + 1 : b)));
  const fd = openSync(path, 'r+');
  try {
    writeSync(fd, altered, 0, altered.length, offset);
  } finally {
    closeSync(fd);
  }
  utimesSync(path, atime, mtime);
  return altered;
}

/** The file offset where the record of `content` holds its byte `at` (ASCII content: JSON escapes only the newlines). */
export function fileOffsetOf(path: string, content: string, at: number): number {
  const escapedBefore = JSON.stringify(content.slice(0, at)).length - 2;
  const start = readFileSync(path).indexOf(JSON.stringify(content.slice(0, 200)).slice(0, -1));
  if (start < 0) throw new Error('content not found in the file');
  return start + 1 + escapedBefore;
}
