/** Driving the real resolver worker (dist/worker.cjs) through its real client, as the hosts do. */
import type { HostError, Method, ParsedParams } from '../../shared/index';
import { methods } from '../../shared/index';
import type { WorkerResolverClient } from '../../electron/worker/client';
import { createResolverClient } from '../../electron/worker/client';

/** A fresh worker thread with no Node flags of its own (the host's are not inherited). */
export function startClient(workerPath: string): WorkerResolverClient {
  return createResolverClient({ workerPath, execArgv: [] });
}

export function value<T>(what: string, reply: { ok: true; value: T } | { ok: false; error: HostError }): T {
  if (!reply.ok) throw new Error(`${what} failed: ${reply.error.code}: ${reply.error.message}`);
  return reply.value;
}

/** Params as the contract parses them (defaults applied), from their wire form. */
export function params<M extends Method>(method: M, raw: unknown): ParsedParams<M> {
  return methods[method].params.parse(raw) as ParsedParams<M>;
}

export const SLICE = 64 * 1024;
