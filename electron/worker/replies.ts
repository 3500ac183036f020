/**
 * The reply values every handler answers with (docs/worker.md): errors are values, never throws.
 * A reply is the contract's `{ ok: true, value } | { ok: false, error: { code, message } }`.
 */
import type { HostError, HostErrorCode } from '../../shared/index';

export function ok<T>(value: T): { ok: true; value: T } {
  return { ok: true, value };
}

export function fail(code: HostErrorCode, message: string): { ok: false; error: HostError } {
  return { ok: false, error: { code, message } };
}

/** An unexpected exception, as the `internal_error` reply it becomes. */
export function internal(e: unknown): { ok: false; error: HostError } {
  const message = e instanceof Error ? e.message : String(e);
  return fail('internal_error', `the resolver worker failed unexpectedly: ${message}`);
}

/** A resolver error (it may carry `reduction_id`, `total_bytes`…) as the contract's `{ code, message }`. */
export function hostError(error: { code: HostErrorCode; message: string }): { ok: false; error: HostError } {
  return fail(error.code, error.message);
}
