/**
 * A fake HostApi for store tests: a session of `rows` one-message rows (every tenth with an
 * elided output), reductions whose content is a repeated alphabet, and every call recorded.
 * Answers can be replaced per method (`answer`), or held back (`hold`) to test ordering.
 */
import type { HostApi, HostEvent, Method, Params, Reply, ResultOf, SessionInfo } from '../../../shared/contract';
import { MAX_SLICE_BYTES } from '../../../shared/contract';

export function sessionInfo(overrides: Partial<SessionInfo> = {}): SessionInfo {
  return {
    generation: 1,
    files: [{ path: '/x/demo.sidecar.jsonl', format: 'supercode-sidecar', bytes: 1234 }],
    session_id: 's-demo',
    model: 'model-a',
    gate: true,
    policy: null,
    messages: 1000,
    rows: 1000,
    reductions: 100,
    reductions_by_kind: { tool_output_truncated: 0, tool_output_elided: 100, duplicate_output: 0, turns_cleared: 0, summarized: 0 },
    load_findings: 0,
    stopped: false,
    format: 'supercode',
    session: '',
    sessions: [{ id: 's-demo', messages: 1000 }],
    ...overrides,
  };
}

/** Content of every reduction: `total` bytes of a repeated alphabet. */
export const CONTENT_BYTES = 200_000;
export function contentOf(range: readonly [number, number]): string {
  let s = '';
  for (let i = range[0]; i < range[1]; i++) s += String.fromCharCode(97 + (i % 26));
  return s;
}

type Answer<M extends Method> = (params: Params<M>) => Reply<M> | Promise<Reply<M>>;

export interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
}

export function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

function ok<M extends Method>(value: ResultOf<M>): Reply<M> {
  return { ok: true, value };
}

/** How many model calls the fake session has. */
export const FAKE_CALLS = 7;

const ONE_FILE = [{ id: 'file-1', name: 'demo.sidecar.jsonl', bytes: 1234 }];

export function fakeHost(
  info: SessionInfo | null = sessionInfo(),
  files: ResultOf<'state'>['files'] = ONE_FILE,
  loadError: ResultOf<'state'>['loadError'] = null,
) {
  const calls: { method: Method; params: unknown }[] = [];
  const listeners = new Set<(event: HostEvent) => void>();
  const answers: { [M in Method]?: Answer<M> } = {};
  let current = info;

  const defaults: { [M in Method]: Answer<M> } = {
    state: () => ok<'state'>({ host: 'http', session: current, files, loadError }),
    openFile: () => ok<'openFile'>(sessionInfo({ generation: (current?.generation ?? 0) + 1 })),
    openLink: ({ file }) => ok<'openLink'>(sessionInfo({ generation: (current?.generation ?? 0) + 1, link_file: { path: file } })),
    openDialog: () => ({ ok: false, error: { code: 'not_supported', message: 'no dialog' } }),
    close: () => ok<'close'>({}),
    // No folder served unless a test answers otherwise.
    folder: () => ({ ok: false, error: { code: 'not_supported', message: 'no folder' } }),
    library: () => ({ ok: false, error: { code: 'not_supported', message: 'no library' } }),
    librarySearch: () => ({ ok: false, error: { code: 'not_supported', message: 'no library' } }),
    setFollow: ({ follow }) => ok<'setFollow'>({ follow }),
    // A session of no calls unless a test answers otherwise.
    // One base prompt for every call, and one attachment that names the call it was given at.
    instructions: ({ call }) =>
      ok<'instructions'>({
        instructions: [
          { source: 'codex_base_instructions', placement: 'instructions', index: 0, line: 1, text: 'You are a coding agent.', text_bytes: 23 },
          { source: 'claude_code_attachment', kind: 'skill_listing', placement: 'user_message', index: 1, line: 3, text: `skills at ${call ?? 'latest'}`, text_bytes: 100_000 },
        ],
        total: 2,
      }),
    calls: () => ok<'calls'>({ calls: 0, index: [], given: [], hidden: [], minted: [], rewinds: [], model_switches: [], minted_after_last: 0, unplaced: 0, ended: 0 }),
    rows: ({ start, end }) =>
      ok<'rows'>({
        rowCount: current?.rows ?? 0,
        rows: Array.from({ length: Math.max(0, Math.min(end, current?.rows ?? 0) - start) }, (_, k) => {
          const row = start + k;
          return {
            row,
            index: row,
            end: row + 1,
            role: 'tool' as const,
            text: `row ${row}`,
            text_bytes: `row ${row}`.length,
            reductions: row % 10 === 0 ? [{ id: `r${row}`, kind: 'tool_output_elided' as const }] : [],
          };
        }),
      }),
    rowOfIndex: ({ index }) => ok<'rowOfIndex'>({ row: index < (current?.messages ?? 0) ? index : -1 }),
    rowText: ({ range }) => ok<'rowText'>({ text: contentOf(range), range, total_bytes: CONTENT_BYTES }),
    expand: ({ id, range }) => {
      const [s, e] = range ?? [0, MAX_SLICE_BYTES];
      const end = Math.min(e, CONTENT_BYTES, s + MAX_SLICE_BYTES);
      if (s > end) return { ok: false, error: { code: 'invalid_byte_range', message: `total_bytes is ${CONTENT_BYTES}` } };
      return ok<'expand'>({ reduction_id: id, kind: 'tool_output_elided', index: 0, role: 'tool', content: contentOf([s, end]), range: [s, end], total_bytes: CONTENT_BYTES, source: 'minted' });
    },
    search: ({ query }) =>
      ok<'search'>({ query, mode: 'substring', case_sensitive: true, matches: [], total_matches: 0, truncated: false, reductions_searched: 1, hidden_bytes_searched: 10 }),
    cancelSearch: () => ok<'cancelSearch'>({ cancelled: true }),
    cancelBundle: () => ok<'cancelBundle'>({ cancelled: false }),
    log: () =>
      ok<'log'>({
        entries: Array.from({ length: 100 }, (_, k) => ({
          reduction: { id: `r${k * 10}`, kind: 'tool_output_elided' as const, ptr: { index: k * 10, hash: 'sha256:00', bytes: CONTENT_BYTES }, stub: `⟦reduced⟧ id=r${k * 10}`, minted_at: 1 },
        })),
      }),
    verify: ({ ids }) => ok<'verify'>({ statuses: ids.map((id) => ({ id, status: 'verified' as const, source: 'minted' as const, total_bytes: CONTENT_BYTES, hidden_bytes: CONTENT_BYTES })) }),
    check: () =>
      ok<'check'>({
        findings: [],
        summary: { files: [], session_id: null, model: null, gate: null, messages: 0, reductions: 0, reductions_by_kind: { tool_output_truncated: 0, tool_output_elided: 0, duplicate_output: 0, turns_cleared: 0, summarized: 0 }, errors: 0, warnings: 0, format: 'supercode', sessions: [] },
      }),
    // Part B: FAKE_CALLS calls, an empty diff; a rewind event at every multiple of 100.
    callDiff: ({ from, to }) => {
      const none = { count: 0, bytes: 0 };
      return ok<'callDiff'>({ calls: FAKE_CALLS, from, to, added: [], removed: [], reduced: [], restored: [], totals: { added: none, removed: none, reduced: none, restored: none }, bytes: { from: 0, to: 0 }, changed: [], changed_count: 0, between: [], between_count: 0, compactions: [] });
    },
    sessionEvents: ({ start, end }) => {
      const events = [];
      for (let i = Math.ceil(start / 100) * 100; i < Math.min(end, (current?.messages ?? 0) + 1); i += 100) events.push({ kind: 'rewind' as const, index: i, line: i + 1, rewind: i / 100, abandoned: 2 });
      return ok<'sessionEvents'>({ events, total: events.length });
    },
    // No matches unless a test answers otherwise.
    searchPage: ({ query, page, page_size = 50, scope = 'hidden' }) =>
      ok<'searchPage'>({ query, mode: 'substring', case_sensitive: true, scope, page, page_size, first: page * page_size, matches: [], view_matches: [], total_matches: 0, pageable: 0, reductions_searched: 1, hidden_bytes_searched: 10 }),
    abandoned: ({ rewind }) => ok<'abandoned'>({ to: rewind * 100, line: rewind * 100 + 1, total: 2, messages: [{ index: rewind * 100, role: 'user', text: 'gone', text_bytes: 4 }] }),
    // Every reduction hid a quarter of its bytes' worth of tokens; nothing pending.
    hiddenTokens: ({ ids }) =>
      ok<'hiddenTokens'>({
        reductions: ids.map((id) => ({ id, hidden: { tokens: CONTENT_BYTES / 4, source: 'estimated' as const }, original: { tokens: CONTENT_BYTES / 4, source: 'estimated' as const } })),
        pending: [],
        unknown: [],
        sampling: { above_bytes: 8 * 1024 * 1024, chunks: 64, chunk_bytes: 64 * 1024 },
      }),
    // The host builds bundles; the fake has none unless a test answers otherwise.
    exportCall: () => ({ ok: false, error: { code: 'not_supported', message: 'no exports in the fake host' } }),
    // No estimates unless a test answers otherwise.
    tokenMap: () => ({ ok: false, error: { code: 'not_supported', message: 'no token estimates in the fake host' } }),
    callTokens: () => ({ ok: false, error: { code: 'not_supported', message: 'no token estimates in the fake host' } }),
    reproBundle: () => ({ ok: false, error: { code: 'not_supported', message: 'no bundles in the fake host' } }),
    exportDocument: () => ({ ok: false, error: { code: 'not_supported', message: 'no documents in the fake host' } }),
    // Nothing to replay and nothing differs unless a test answers otherwise.
    replay: () => ok<'replay'>({ replayed: false, note: 'replay is not possible: the sidecar header names no policy (policy: null)', policy: null, passes: 0, findings: [], divergences: 0 }),
    whatIf: () => ok<'whatIf'>({ counts: { added: 0, removed: 0, changed: 0, messages: 0 }, bytes: { recorded: 0, policy: 0 }, added: [], removed: [], changed: [], messages: [] }),
    // No occurrence unless a test answers otherwise.
    trace: ({ query, mode, case_sensitive }) => ok<'trace'>({ query, mode: mode ?? 'substring', case_sensitive: case_sensitive ?? true, calls: 0, occurrences: [], total_matches: 0, truncated: false }),
  };

  const call = <M extends Method>(method: M) => (params: Params<M>): Promise<Reply<M>> => {
    calls.push({ method, params });
    const answer = answers[method] ?? defaults[method];
    return Promise.resolve(answer(params));
  };

  const api = Object.fromEntries((Object.keys(defaults) as Method[]).map((m) => [m, call(m)])) as unknown as HostApi;
  api.onEvent = (listener) => {
    listeners.add(listener);
    return () => void listeners.delete(listener);
  };

  return {
    api,
    calls,
    /** Calls of one method, their params. */
    callsOf<M extends Method>(method: M): Params<M>[] {
      return calls.filter((c) => c.method === method).map((c) => c.params as Params<M>);
    },
    answer<M extends Method>(method: M, fn: Answer<M>): void {
      (answers as Record<string, unknown>)[method] = fn;
    },
    setSession(next: SessionInfo | null): void {
      current = next;
    },
    emit(event: HostEvent): void {
      for (const l of [...listeners]) l(event);
    },
  };
}

/** Lets pending promise callbacks and zero-delay timers run. */
export async function settle(rounds = 5): Promise<void> {
  for (let k = 0; k < rounds; k++) await new Promise((r) => setTimeout(r, 0));
}
