/** Session files with very many findings or messages: what once overflowed the stack. */
import type { ChatMessage } from '../../shared/index';
import { makeHeader, makeSnapshot, messageRecord, sidecarText, writeSnapshot } from './files';
import { writeFileSync } from 'node:fs';

export const MANY = 130_000;

/** A sidecar of a header, one message, then `count` lines of garbage: one malformed_line each. */
export function writeGarbageSidecar(path: string, count = MANY): string {
  const records: (object | string)[] = [makeHeader(), messageRecord(0, { role: 'user', content: 'hello' })];
  for (let k = 0; k < count; k++) records.push(`npm WARN garbage line ${k}`);
  writeFileSync(path, sidecarText(records));
  return path;
}

/** A compact snapshot of `count` messages; with `invalid`, every message has a role no format knows. */
export function writeManyMessageSnapshot(path: string, count = MANY, invalid = false): string {
  const messages = Array.from({ length: count }, (_, i) => ({ role: invalid ? 'robot' : i % 2 ? 'assistant' : 'user', content: `message ${i}` }) as ChatMessage);
  return writeSnapshot(path, makeSnapshot(messages), false);
}
