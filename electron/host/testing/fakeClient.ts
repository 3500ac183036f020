/**
 * A ResolverClient for the host's tests that answers in-process from a real `loadSession`, so the
 * SessionHost and the HTTP host are tested without the resolver worker. It answers the contract's
 * session methods the way the worker is meant to (same limits, same shapes) but makes no attempt
 * at cancellation: a search runs to completion synchronously.
 */
import type { HostError, HostEvent, ParsedParams, Reply, ResultOf, SessionInfo, WorkerSessionMethod } from '../../../shared/index';
import {
  MAX_SLICE_BYTES,
  REDUCTION_KINDS,
  ROW_TEXT_MAX_BYTES,
  floorCharBoundary,
  projectView,
  projectionLayout,
  hiddenSpan,
  resolveOriginal,
  rowOfIndex,
  snapByteRange,
  utf8Decode,
  utf8Encode,
} from '../../../shared/index';
import type { ProjectionLayout, ReductionKind } from '../../../shared/index';
import type { LoadedSession, LoadOptions } from '../../loader/session';
import { loadSession, nodeSha256 } from '../../loader/session';
import type { ResolverClient } from '../types';

export interface FakeResolverClient extends ResolverClient {
  /** Every `open` and `request` call, in order (method name, or `open:<paths>`). */
  readonly calls: string[];
  /** Pushes an event as if the worker had sent it (e.g. `workerRestarted`). */
  emit(event: HostEvent): void;
  /** True once `dispose` ran. */
  readonly disposed: boolean;
}

export interface FakeResolverClientOptions {
  loadOptions?: LoadOptions;
  /** Awaited at the start of every `open`: tests hold an open in flight with it. */
  beforeOpen?(paths: string[], generation: number): Promise<void>;
}

interface Open {
  session: LoadedSession;
  layout: ProjectionLayout;
}

type AnyReply = { ok: true; value: unknown } | { ok: false; error: HostError };

function hostError(e: { code: string; message: string }): HostError {
  return { code: e.code as HostError['code'], message: e.message };
}

function cut(text: string, maxBytes: number): { text: string; bytes: number } {
  const encoded = utf8Encode(text);
  if (encoded.length <= maxBytes) return { text, bytes: encoded.length };
  return { text: utf8Decode(encoded.subarray(0, floorCharBoundary(encoded, maxBytes))), bytes: encoded.length };
}

function countByKind(session: LoadedSession): Record<ReductionKind, number> {
  const counts = Object.fromEntries(REDUCTION_KINDS.map((k) => [k, 0])) as Record<ReductionKind, number>;
  for (const r of session.log) counts[r.kind] += 1;
  return counts;
}

function infoOf(open: Open, generation: number): SessionInfo {
  const { session, layout } = open;
  return {
    generation,
    files: session.files.map((f) => ({ ...f })),
    session_id: session.sessionId,
    model: session.model,
    gate: session.header?.gate ?? null,
    policy: session.header?.policy ?? null,
    messages: session.minted.length,
    rows: layout.rowCount,
    reductions: session.log.length,
    reductions_by_kind: countByKind(session),
    load_findings: session.loadFindings.length,
    stopped: session.stopped,
  };
}

function answer(open: Open, method: WorkerSessionMethod, params: ParsedParams<WorkerSessionMethod>): AnyReply {
  const { session, layout } = open;
  switch (method) {
    case 'rows': {
      const p = params as ParsedParams<'rows'>;
      const rows = projectView(session.minted, session.log, p, layout).map((row) => {
        const { text, bytes } = cut(row.text, ROW_TEXT_MAX_BYTES);
        return { ...row, text, text_bytes: bytes };
      });
      return { ok: true, value: { rowCount: layout.rowCount, rows } satisfies ResultOf<'rows'> };
    }
    case 'rowOfIndex': {
      const p = params as ParsedParams<'rowOfIndex'>;
      return { ok: true, value: { row: rowOfIndex(layout, p.index) } };
    }
    case 'rowText': {
      const p = params as ParsedParams<'rowText'>;
      const row = projectView(session.minted, session.log, { start: p.row, end: p.row + 1 }, layout)[0];
      if (!row) return { ok: false, error: { code: 'invalid_request', message: `no row ${p.row} (${layout.rowCount} rows)` } };
      const bytes = utf8Encode(row.text);
      const range = snapByteRange(bytes, [p.range[0], Math.min(p.range[1], p.range[0] + MAX_SLICE_BYTES)]);
      if (!range) return { ok: false, error: { code: 'invalid_byte_range', message: `byte range [${p.range[0]}, ${p.range[1]}) is invalid for row ${p.row}: total_bytes is ${bytes.length}` } };
      return { ok: true, value: { text: utf8Decode(bytes.subarray(range[0], range[1])), range, total_bytes: bytes.length } };
    }
    case 'expand': {
      const p = params as ParsedParams<'expand'>;
      const range = p.range ? ([p.range[0], Math.min(p.range[1], p.range[0] + MAX_SLICE_BYTES)] as const) : undefined;
      const outcome = session.expand(p.id, range);
      return outcome.ok ? outcome : { ok: false, error: hostError(outcome.error) };
    }
    case 'search': {
      const p = params as ParsedParams<'search'>;
      const { searchId: _, query, ...options } = p;
      const result = session.search(query, options);
      return result.ok ? result : { ok: false, error: hostError(result.error) };
    }
    case 'log': {
      const entries = session.log.map((reduction, k) => ({ reduction, ...(session.logLines?.[k] !== undefined ? { line: session.logLines[k] } : {}) }));
      return { ok: true, value: { entries } };
    }
    case 'verify': {
      const p = params as ParsedParams<'verify'>;
      const statuses = p.ids.map((id): ResultOf<'verify'>['statuses'][number] => {
        const r = session.log.find((x) => x.id === id);
        if (!r) return { id, status: 'unknown_reduction' };
        const resolved = resolveOriginal(r, session.minted, session.recorded, { sha256: nodeSha256 });
        if (!resolved.ok) {
          const status = resolved.error.code === 'hash_mismatch' ? 'hash_mismatch' : 'address_out_of_range';
          return { id, status, message: resolved.error.message };
        }
        const span = hiddenSpan(r, resolved.value.bytes, session.log);
        return { id, status: 'verified', source: resolved.value.source, total_bytes: resolved.value.bytes.length, hidden_bytes: span ? span[1] - span[0] : 0 };
      });
      return { ok: true, value: { statuses } };
    }
    case 'check':
      return { ok: true, value: session.check() };
  }
}

export function createFakeResolverClient(options: FakeResolverClientOptions = {}): FakeResolverClient {
  const listeners = new Set<(event: HostEvent) => void>();
  const calls: string[] = [];
  let open: Open | undefined;
  let disposed = false;
  const emit = (event: HostEvent): void => {
    for (const l of [...listeners]) l(event);
  };
  const closeOpen = (): void => {
    open?.session.close();
    open = undefined;
  };

  return {
    calls,
    emit,
    get disposed() {
      return disposed;
    },
    async open(paths, generation) {
      calls.push(`open:${paths.join(',')}`);
      closeOpen();
      await options.beforeOpen?.(paths, generation);
      const loaded = await loadSession(paths, {
        ...options.loadOptions,
        onProgress: (p) => emit({ name: 'loadProgress', payload: { generation, bytesRead: p.bytesRead, totalBytes: p.totalBytes } }),
      });
      if (!loaded.ok) return { ok: false, error: hostError(loaded.error) };
      const session = loaded.session;
      open = { session, layout: projectionLayout(session.minted.length, session.log) };
      return { ok: true, value: infoOf(open, generation) };
    },
    close() {
      calls.push('close');
      closeOpen();
      return Promise.resolve();
    },
    request<M extends WorkerSessionMethod>(method: M, params: ParsedParams<M>): Promise<Reply<M>> {
      calls.push(method);
      if (!open) return Promise.resolve({ ok: false, error: { code: 'no_session', message: 'no session is open' } });
      return Promise.resolve(answer(open, method, params) as Reply<M>);
    },
    cancelSearch() {
      return false;
    },
    onEvent(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    dispose() {
      disposed = true;
      closeOpen();
      listeners.clear();
      return Promise.resolve();
    },
  };
}
