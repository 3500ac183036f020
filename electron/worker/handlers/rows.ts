/**
 * The projected view's rows (docs/worker.md): `rows`, `rowOfIndex` and `rowText`, over the latest
 * view or a call's input (handlers/calls.ts). Every reply is bounded: a row's text is cut to
 * ROW_TEXT_MAX_BYTES and `rowText` pages through the rest.
 */
import type { ByteSource, ChatMessage, MessageList, ProjectedRow, ProjectedRowInfo, Reduction } from '../../../shared/index';
import { ROW_TEXT_MAX_BYTES, floorCharBoundary, memorySource, projectView, rowOfIndex as rowOfViewIndex, snapByteRange, stubPosition, utf8Decode, utf8Encode, utf8Length } from '../../../shared/index';
import { fail, ok } from '../replies';
import { callView } from './calls';
import { clampSlice } from './expand';
import type { Handler } from './handler';

/**
 * `text` cut to at most `maxBytes` UTF-8 bytes on a character boundary, with the byte length of
 * the whole text. Only the head is encoded: every UTF-16 unit is at least one byte, so the first
 * `maxBytes + 1` units hold more than `maxBytes` bytes (the extra unit keeps a surrogate pair whole
 * at the cut).
 */
export function cutToBytes(text: string, maxBytes: number): { text: string; bytes: number } {
  const bytes = utf8Length(text);
  if (bytes <= maxBytes) return { text, bytes };
  const head = utf8Encode(text.slice(0, maxBytes + 1));
  return { text: utf8Decode(head.subarray(0, floorCharBoundary(head, maxBytes))), bytes };
}

/** Per log, its live records by id (the most recent of an id, as findReduction answers): a row's applied reduction is found without a scan. */
const idsByLog = new WeakMap<readonly Reduction[], Map<string, Reduction>>();
export function reductionsById(log: readonly Reduction[]): Map<string, Reduction> {
  let byId = idsByLog.get(log);
  if (!byId) {
    byId = new Map(log.map((r) => [r.id, r]));
    idsByLog.set(log, byId);
  }
  return byId;
}

/** The content of a row that shows one whole message read from the file (not reduced), else undefined. */
function rowSource(minted: MessageList, row: ProjectedRow): ByteSource | undefined {
  if (row.applied !== undefined || row.end !== row.index + 1 || row.missing) return undefined;
  return minted.at(row.index)?.large;
}

/**
 * `list` for one request: each message read once. A page of rows reads each of its messages to
 * project them, then again for the content it shows; a message of tens of MB (a tool call's
 * arguments) was read from the file and parsed twice when the session's message cache could not
 * keep the page (docs/worker.md "Rows: each message read once").
 */
function readOnce(list: MessageList): MessageList {
  const read = new Map<number, ChatMessage | undefined>();
  return {
    length: list.length,
    at(index) {
      if (!read.has(index)) read.set(index, list.at(index));
      return read.get(index);
    },
    ...(list.contentBytes ? { contentBytes: (index: number) => list.contentBytes?.(index) } : {}),
  };
}

/**
 * A row as `rows` sends it: its text cut to ROW_TEXT_MAX_BYTES, and its tool calls' arguments cut
 * to an even share of another ROW_TEXT_MAX_BYTES (a call's arguments can be megabytes, and a
 * message can hold many calls), each with its whole length.
 */
function rowInfo(row: ProjectedRow, log: readonly Reduction[]): ProjectedRowInfo {
  const { text, bytes } = cutToBytes(row.text, ROW_TEXT_MAX_BYTES);
  const { tool_calls: calls, ...rest } = row;
  // Where the stub stands, so the renderer never looks for it in the text.
  const applied = row.applied !== undefined ? reductionsById(log).get(row.applied) : undefined;
  const stub = applied ? stubPosition(row.text, applied) : undefined;
  if (stub) Object.assign(rest, { stub });
  if (!calls) return { ...rest, text, text_bytes: bytes };
  const share = Math.floor(ROW_TEXT_MAX_BYTES / Math.max(1, calls.length));
  const tool_calls = calls.map((c) => {
    const args = cutToBytes(c.arguments, share);
    return { id: c.id, name: c.name, arguments: args.text, arguments_bytes: args.bytes };
  });
  return { ...rest, tool_calls, text, text_bytes: bytes };
}

/** Rows `[start, end)` of the projected view (clamped to the row count); each row's text cut to ROW_TEXT_MAX_BYTES. */
export const rows: Handler<'rows'> = (request, state) =>
  state.withSession('rows', (open) => {
    const { session } = open;
    const view = callView(open, request.call);
    if ('ok' in view) return view;
    const { layout } = view;
    const minted = readOnce(session.minted);
    // The latest view's messages are the session's: read once for both uses.
    const projected = projectView(view.minted === session.minted ? minted : view.minted, view.log, { start: request.start, end: request.end }, layout);
    return ok({
      rowCount: layout.rowCount,
      rows: projected.map((row) => {
        const info = rowInfo(row, session.log);
        // A content read from the file shows its preview; the row says how long it really is.
        const large = rowSource(minted, row);
        return large ? { ...info, text_bytes: large.length } : info;
      }),
    });
  });

export const rowOfIndex: Handler<'rowOfIndex'> = (request, state) =>
  state.withSession('rowOfIndex', (open) => {
    const view = callView(open, request.call);
    return 'ok' in view ? view : ok({ row: rowOfViewIndex(view.layout, request.index) });
  });

/**
 * Bytes `range` of a row's whole visible text (or, with `tool_call`, of that tool call's whole
 * arguments), as `expand` slices: a range longer than MAX_SLICE_BYTES is cut to it, `end` is
 * clamped to the total, both ends are floored to character boundaries, so consecutive ranges tile
 * the text.
 */
export const rowText: Handler<'rowText'> = (request, state) =>
  state.withSession('rowText', (open) => {
    const { session } = open;
    const view = callView(open, request.call);
    if ('ok' in view) return view;
    const { layout } = view;
    const call = request.call ?? null;
    if (request.row >= layout.rowCount) {
      return fail('invalid_request', `row ${request.row} is outside the projected view of ${layout.rowCount} rows`);
    }
    const last = open.lastRowText;
    let bytes = last?.row === request.row && last.toolCall === request.tool_call && last.call === call ? last.bytes : undefined;
    if (!bytes) {
      const minted = readOnce(session.minted);
      const [row] = projectView(view.minted === session.minted ? minted : view.minted, view.log, { start: request.row, end: request.row + 1 }, layout);
      if (request.tool_call === undefined) {
        bytes = (row && rowSource(minted, row)) ?? memorySource(utf8Encode(row?.text ?? ''));
      } else {
        const toolCall = row?.tool_calls?.[request.tool_call];
        if (!toolCall) {
          return fail('invalid_request', `row ${request.row} has no tool call ${request.tool_call} (it has ${row?.tool_calls?.length ?? 0})`);
        }
        bytes = memorySource(utf8Encode(toolCall.arguments));
      }
      open.lastRowText = { row: request.row, toolCall: request.tool_call, call, bytes };
    }
    const range = snapByteRange(bytes, clampSlice(request.range));
    if (!range) {
      return fail(
        'invalid_byte_range',
        `byte range [${request.range[0]}, ${request.range[1]}) is invalid for row ${request.row}: total_bytes is ${bytes.length} (start must be <= end and <= ${bytes.length})`,
      );
    }
    return ok({ text: utf8Decode(bytes.read(range[0], range[1])), range, total_bytes: bytes.length });
  });
