/**
 * Where a Codex rollout's large string values stay in the file (docs/large-lines.md): the text of
 * a `message` (its content string, its text parts' `text`) and a tool output (its `output` string,
 * its text parts' `text`), in a `response_item` and in a compaction's `replacement_history`; and
 * anything in an `event_msg` but its type (the UI's copy of the items, which the view never reads:
 * build.ts). Anywhere else a value is read whole.
 */
import type { LargeStrings, LargeText } from '../content/largeStrings';
import { isPlainObject } from '../common/json';
import { OUTPUT_TYPES, TEXT_PART_TYPES } from './build';


/** The response items of a record: its payload, or a compaction's replacement history's items. */
function itemsOf(value: Record<string, unknown>): Record<string, unknown>[] {
  const payload = value.payload;
  if (!isPlainObject(payload)) return [];
  if (value.type === 'response_item') return [payload];
  return Array.isArray(payload.replacement_history) ? (payload.replacement_history as unknown[]).filter(isPlainObject) : [];
}

/**
 * Every string of a record but its `type` fields' (its large values' tokens among them): they stay
 * tokens while the types, which say where a large value may stay, are read.
 */
export function untypedStrings(value: unknown): string[] {
  const out: string[] = [];
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const x = stack.pop();
    if (typeof x !== 'object' || x === null) continue;
    for (const [k, v] of Object.entries(x)) {
      if (typeof v === 'string') {
        if (k !== 'type' || Array.isArray(x)) out.push(v);
      } else if (typeof v === 'object' && v !== null) stack.push(v);
    }
  }
  return out;
}

/**
 * Where a response item's text may be in a `response_item` or `compacted` record: a message's
 * `content`, a tool output's `output`, then the text parts of either when it is an array. A
 * compaction's own payload is no item: its `message` (the summary, a stub) is read whole.
 */
function itemTextSlots(value: Record<string, unknown>, at: (o: Record<string, unknown>, key: string) => void): void {
  for (const item of value.type === 'response_item' || value.type === 'compacted' ? itemsOf(value) : []) {
    const key = item.type === 'message' ? 'content' : OUTPUT_TYPES.includes(String(item.type)) ? 'output' : undefined;
    if (key === undefined) continue;
    at(item, key);
    const v = item[key];
    if (Array.isArray(v)) for (const part of v as unknown[]) if (isPlainObject(part) && TEXT_PART_TYPES.includes(String(part.type))) at(part, 'text');
  }
}

/**
 * Leaves the long texts of a parsed record in the file (docs/streaming-import.md): each string
 * where a large value may stay (as keepRolloutStrings places them; in an `event_msg`, its payload's
 * own strings but its type) is offered to `keep`, which answers its kept text or undefined (too
 * short, or not found as written in the line).
 */
export function keepRolloutTexts(value: unknown, keep: (text: string) => LargeText | undefined): void {
  if (!isPlainObject(value)) return;
  const swap = (o: Record<string, unknown>, k: string): void => {
    const v = o[k];
    const t = typeof v === 'string' ? keep(v) : undefined;
    if (t) o[k] = t;
  };
  if (value.type === 'event_msg') {
    if (isPlainObject(value.payload)) for (const k of Object.keys(value.payload)) if (k !== 'type') swap(value.payload, k);
    return;
  }
  itemTextSlots(value, swap);
}

/** Puts the LargeText of each token where a large value may stay (its record's types now known). */
export function keepRolloutStrings(value: unknown, large: LargeStrings): void {
  if (!isPlainObject(value)) return;
  if (value.type === 'event_msg') {
    if (isPlainObject(value.payload)) {
      const { type } = value.payload;
      large.keepAll(value.payload);
      value.payload.type = type;
    }
    return;
  }
  itemTextSlots(value, (o, key) => large.keep(o, key));
}
