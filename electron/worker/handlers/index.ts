/**
 * The worker's request handlers, one per session method of the contract (docs/worker.md). The
 * table's type is a mapped type over the contract's method names: a method without a handler, or a
 * handler that takes another request or answers another reply, fails to compile. A new request
 * gets its handler in the file of its concern, and its line here.
 */
import type { z } from 'zod';
import type { HostError, ParsedParams, WorkerSessionMethod } from '../../../shared/index';
import { methods } from '../../../shared/index';
import { reproBundle } from './bundle';
import { abandoned, callDiff, calls, sessionEvents } from './calls';
import { check } from './check';
import { expand } from './expand';
import { exportDocument } from './exportDocument';
import { exportCall } from './exportCall';
import type { Handlers } from './handler';
import { hiddenTokens } from './hiddenTokens';
import { instructions } from './instructions';
import { log } from './log';
import { replay, whatIf } from './replay';
import { rowOfIndex, rowText, rows } from './rows';
import { search, searchPage } from './search';
import { callTokens, tokenMap } from './tokens';
import { trace } from './trace';
import { verify } from './verify';

export const handlers: Handlers = {
  rows,
  rowOfIndex,
  rowText,
  expand,
  search,
  searchPage,
  log,
  verify,
  check,
  calls,
  instructions,
  callDiff,
  sessionEvents,
  abandoned,
  reproBundle,
  replay,
  whatIf,
  exportDocument,
  trace,
  exportCall,
  tokenMap,
  callTokens,
  hiddenTokens,
};

/** The contract's params schema of each session method, typed per method so a parse keeps its method's type. */
const requestSchemas: { readonly [M in WorkerSessionMethod]: { readonly params: z.ZodType<ParsedParams<M>> } } = methods;

/** A list of zod issues as one line: `path: message; …`. */
export function describeIssues(issues: readonly z.core.$ZodIssue[]): string {
  return issues.map((i) => `${i.path.join('.') || '(params)'}: ${i.message}`).join('; ');
}

/** Validates the params of `method` sent by the host (from the renderer in the end), as the contract's parseParams does. */
export function parseRequest<M extends WorkerSessionMethod>(method: M, params: unknown): { ok: true; method: M; params: ParsedParams<M> } | { ok: false; error: HostError } {
  const parsed = requestSchemas[method].params.safeParse(params ?? {});
  if (!parsed.success) return { ok: false, error: { code: 'invalid_request', message: `${method}: ${describeIssues(parsed.error.issues)}` } };
  return { ok: true, method, params: parsed.data };
}
