/**
 * Rows of the projected view, fetched from the host in pages as the viewport asks for them. Only
 * pages near the viewport are fetched (nearest first, a few at a time) and only a bounded number
 * are kept: a million-row session is never held whole. A row cut at ROW_TEXT_MAX_BYTES pages
 * through the rest of its text with `rowText` ("Show more"), and a tool call whose arguments were
 * cut pages through the rest of them the same way (`rowText` with `tool_call`).
 */
import type { HostError, ProjectedRowInfo, SessionInfo } from '../../shared/contract';
import { MAX_ROWS_PER_REQUEST, ROW_TEXT_MAX_BYTES } from '../../shared/contract';
import { utf8Length } from '../../shared/format/utf8';
import type { AppState, SliceCreator } from './appState';
import { callParams } from './callParams';

/** Rows per `rows` request (at most MAX_ROWS_PER_REQUEST). */
export const ROW_PAGE_SIZE = Math.min(100, MAX_ROWS_PER_REQUEST);
/** Pages kept in the store; the farthest from the viewport are dropped first. */
export const MAX_ROW_PAGES = 40;
/** Requests in flight at once; the rest wait for the viewport to settle. */
const MAX_PAGES_IN_FLIGHT = 4;

export interface RowPage {
  status: 'loading' | 'ready' | 'error';
  rows: ProjectedRowInfo[];
  error?: HostError;
}

/** Text of a cut row beyond what `rows` carried: `text` continues the row's `text` exactly. */
export interface RowMore {
  text: string;
  /** Bytes of the row's text now shown (the first cut plus `text`). */
  shownBytes: number;
  loading: boolean;
  error?: string;
}

export type ScrollAlign = 'start' | 'center' | 'end' | 'auto';

export interface ScrollRequest {
  row: number;
  align: ScrollAlign;
  /** Distinguishes two requests for the same row. */
  seq: number;
}

export interface RowsSlice {
  rowCount: number;
  rowPages: ReadonlyMap<number, RowPage>;
  rowMore: ReadonlyMap<number, RowMore>;
  /** Like `rowMore`, for the arguments of tool call `call` of row `row` (key: argumentsKey). */
  argumentsMore: ReadonlyMap<string, RowMore>;
  selectedRow: number | null;
  scrollRequest: ScrollRequest | null;
  /** The viewport shows rows `[start, end)`: fetch the pages near it that are missing. */
  wantRows: (start: number, end: number) => void;
  showMoreText: (row: number) => Promise<void>;
  showMoreArguments: (row: number, call: number) => Promise<void>;
  selectRow: (row: number | null, align?: ScrollAlign | false) => void;
  moveSelection: (delta: number) => void;
  /** Asks every page held again, showing the old rows until the new ones arrive (a followed session grew). */
  refreshRows: () => void;
}

export function freshRows(info: SessionInfo | null): Pick<RowsSlice, 'rowCount' | 'rowPages' | 'rowMore' | 'argumentsMore' | 'selectedRow' | 'scrollRequest'> {
  return { rowCount: info && !info.stopped ? info.rows : 0, rowPages: new Map(), rowMore: new Map(), argumentsMore: new Map(), selectedRow: null, scrollRequest: null };
}

export function argumentsKey(row: number, call: number): string {
  return `${row}/${call}`;
}

/** The row `row` if its page is loaded. */
export function rowAt(state: Pick<AppState, 'rowPages'>, row: number): ProjectedRowInfo | undefined {
  const page = state.rowPages.get(Math.floor(row / ROW_PAGE_SIZE));
  return page?.status === 'ready' ? page.rows[row % ROW_PAGE_SIZE] : undefined;
}

export const createRowsSlice: SliceCreator<RowsSlice> = (deps) => (set, get) => {
  let wanted = { start: 0, end: 0 };
  // Pages belong to one epoch and one shown call.
  let inFlight = { epoch: -1, call: null as number | null, pages: new Set<number>() };
  let scrollSeq = 0;

  const inFlightPages = (): Set<number> => {
    if (inFlight.epoch !== get().epoch || inFlight.call !== get().shownCall) inFlight = { epoch: get().epoch, call: get().shownCall, pages: new Set() };
    return inFlight.pages;
  };

  const setPage = (page: number, value: RowPage | undefined): void => {
    const pages = new Map(get().rowPages);
    if (value) pages.set(page, value);
    else pages.delete(page);
    set({ rowPages: pages });
  };

  /** Drops the pages farthest from the viewport beyond MAX_ROW_PAGES (never one in flight). */
  const evict = (): void => {
    const pages = get().rowPages;
    if (pages.size <= MAX_ROW_PAGES) return;
    const center = (wanted.start + wanted.end) / 2 / ROW_PAGE_SIZE;
    const byDistance = [...pages.entries()].filter(([, p]) => p.status !== 'loading').sort((a, b) => Math.abs(b[0] - center) - Math.abs(a[0] - center));
    const next = new Map(pages);
    for (const [page] of byDistance) {
      if (next.size <= MAX_ROW_PAGES) break;
      next.delete(page);
    }
    set({ rowPages: next });
  };

  /** `keep`: the page shown stays until its new rows arrive. */
  const fetchPage = async (page: number, keep = false): Promise<void> => {
    const { epoch, shownCall: call } = get();
    const pending = inFlightPages();
    pending.add(page);
    if (!keep || get().rowPages.get(page)?.status !== 'ready') setPage(page, { status: 'loading', rows: [] });
    const start = page * ROW_PAGE_SIZE;
    const end = Math.min(get().rowCount, start + ROW_PAGE_SIZE);
    const reply = await deps.api.rows({ start, end, ...callParams(call) });
    if (get().epoch !== epoch || get().shownCall !== call) return;
    pending.delete(page);
    if (reply.ok) {
      setPage(page, { status: 'ready', rows: reply.value.rows });
      if (reply.value.rowCount !== get().rowCount) set({ rowCount: reply.value.rowCount });
    } else {
      setPage(page, { status: 'error', rows: [], error: reply.error });
    }
    evict();
    pump();
  };

  /** Starts requests for missing pages around the wanted range, nearest the middle first. */
  const pump = (): void => {
    const { rowCount, rowPages } = get();
    if (rowCount === 0) return;
    const pending = inFlightPages();
    const first = Math.max(0, Math.floor((wanted.start - ROW_PAGE_SIZE / 2) / ROW_PAGE_SIZE));
    const last = Math.min(Math.ceil(rowCount / ROW_PAGE_SIZE) - 1, Math.floor((wanted.end + ROW_PAGE_SIZE / 2) / ROW_PAGE_SIZE));
    const center = (wanted.start + wanted.end) / 2 / ROW_PAGE_SIZE;
    const missing: number[] = [];
    for (let p = first; p <= last; p++) if (!rowPages.has(p) && !pending.has(p)) missing.push(p);
    missing.sort((a, b) => Math.abs(a + 0.5 - center) - Math.abs(b + 0.5 - center));
    for (const page of missing) {
      if (pending.size >= MAX_PAGES_IN_FLIGHT) break;
      void fetchPage(page);
    }
  };

  /**
   * Appends the next ROW_TEXT_MAX_BYTES of a cut text (a row's, or a tool call's arguments) after
   * what is shown: `first` is what `rows` carried, `before` what was appended so far.
   */
  const pageOn = async (
    what: { row: number; tool_call?: number },
    before: RowMore | undefined,
    first: { text: string; bytes: number },
    update: (more: RowMore) => void,
  ): Promise<void> => {
    const { epoch, shownCall: call } = get();
    if (before?.loading) return;
    const shownBytes = before?.shownBytes ?? utf8Length(first.text);
    if (shownBytes >= first.bytes) return;
    const text = before?.text ?? '';
    update({ text, shownBytes, loading: true });
    const reply = await deps.api.rowText({ ...what, range: [shownBytes, Math.min(first.bytes, shownBytes + ROW_TEXT_MAX_BYTES)], ...callParams(call) });
    if (get().epoch !== epoch || get().shownCall !== call) return;
    if (!reply.ok) {
      update({ text, shownBytes, loading: false, error: reply.error.message });
      return;
    }
    // Ranges tile the text exactly (both ends floored to character boundaries), so appending is exact.
    update({ text: text + reply.value.text, shownBytes: reply.value.range[1], loading: false });
  };

  return {
    ...freshRows(null),

    wantRows(start, end) {
      wanted = { start: Math.max(0, start), end: Math.max(start, end) };
      pump();
    },

    async showMoreText(row) {
      const info = rowAt(get(), row);
      if (!info) return;
      await pageOn(
        { row },
        get().rowMore.get(row),
        { text: info.text, bytes: info.text_bytes },
        (more) => {
          const next = new Map(get().rowMore);
          next.set(row, more);
          set({ rowMore: next });
        },
      );
    },

    async showMoreArguments(row, call) {
      const toolCall = rowAt(get(), row)?.tool_calls?.[call];
      if (!toolCall) return;
      const key = argumentsKey(row, call);
      await pageOn(
        { row, tool_call: call },
        get().argumentsMore.get(key),
        { text: toolCall.arguments, bytes: toolCall.arguments_bytes },
        (more) => {
          const next = new Map(get().argumentsMore);
          next.set(key, more);
          set({ argumentsMore: next });
        },
      );
    },

    selectRow(row, align = 'auto') {
      if (row === null) {
        set({ selectedRow: null });
        return;
      }
      const clamped = Math.max(0, Math.min(row, get().rowCount - 1));
      set({ selectedRow: clamped, ...(align ? { scrollRequest: { row: clamped, align, seq: ++scrollSeq } } : {}) });
    },

    refreshRows() {
      const pending = inFlightPages();
      const last = Math.ceil(get().rowCount / ROW_PAGE_SIZE) - 1;
      for (const page of [...get().rowPages.keys()]) {
        if (page > last) setPage(page, undefined);
        else if (!pending.has(page)) void fetchPage(page, true);
      }
      pump();
    },

    moveSelection(delta) {
      const { rowCount, selectedRow } = get();
      if (rowCount === 0) return;
      const from = selectedRow ?? (delta > 0 ? wanted.start - 1 : wanted.start + 1);
      get().selectRow(Math.max(0, Math.min(rowCount - 1, from + delta)), 'auto');
    },
  };
};
