/** What the status bar says, part by part: pure, so its wording is tested without a DOM. */
import type { ContextMapInfo, SessionInfo } from '../../../shared/contract';
import { REDUCTION_KINDS } from '../../../shared/format/types';
import { baseName, countOf, formatBytes, formatCount, kindLabel } from '../../text/format';
import { nameText } from '../../text/nameText';
import { shownCallText } from '../calls/callsBar';
import type { TokenMapInfo } from '../calls/contextMapTokens';
import { contextStatusText, tokenCalls } from '../calls/contextMapTokens';

export interface StatusInput {
  session: SessionInfo | null;
  shownCall: number | null;
  contextMap: ContextMapInfo | null;
  /** The worker's estimates per call, once here (SPEC §15). */
  tokenMap?: TokenMapInfo | null;
  rowCount: number;
  checkStatus: string;
  /** Findings of the check, once it is done. */
  findings: number | null;
}

/**
 * SPEC §15: the context of the call shown (the last call's in the latest view) as
 * `<tokens> / <window> (<pct>)`, `est.` for an estimate; '' when nothing is known of it.
 */
export function contextPart(shownCall: number | null, contextMap: ContextMapInfo | null, tokenMap: TokenMapInfo | null): string {
  if (!contextMap || contextMap.calls === 0) return '';
  const call = shownCall ?? contextMap.calls;
  if (call < 1 || call > contextMap.calls) return '';
  const text = contextStatusText(tokenCalls(contextMap, tokenMap)[call - 1]);
  return text === '' ? '' : shownCall === null ? `last call ${text}` : text;
}

export function statusParts({ session, shownCall, contextMap, tokenMap = null, rowCount, checkStatus, findings }: StatusInput): string[] {
  if (!session) return ['No session open'];
  const parts: string[] = [];
  const bytes = session.files.reduce((n, f) => n + f.bytes, 0);
  parts.push(`${session.files.map((f) => baseName(f.path)).join(' + ')} (${formatBytes(bytes)})`);
  parts.push(shownCallText(shownCall, contextMap?.calls ?? 0));
  const at = shownCall !== null && contextMap ? shownCall - 1 : -1;
  if (at >= 0 && contextMap && at < contextMap.calls) {
    // A past call: what that call was given (its input is the messages before its answer), not the latest view's counts.
    parts.push(`${countOf(contextMap.index[at] ?? 0, 'message')} given`);
    parts.push(countOf(rowCount, 'row'));
    parts.push(`${formatBytes(contextMap.given[at] ?? 0)} given, ${formatBytes(contextMap.hidden[at] ?? 0)} hidden`);
  } else {
    parts.push(countOf(session.messages, 'message'));
    parts.push(countOf(session.rows, 'row'));
  }
  const context = contextPart(shownCall, contextMap, tokenMap);
  if (context !== '') parts.push(context);
  const kinds = REDUCTION_KINDS.map((k) => [k, session.reductions_by_kind[k] ?? 0] as const)
    .filter(([, n]) => n > 0)
    .map(([k, n]) => `${formatCount(n)} ${kindLabel(k)}`);
  parts.push(`${at >= 0 ? 'latest view: ' : ''}${countOf(session.reductions, 'reduction')}${kinds.length > 0 ? ` (${kinds.join(', ')})` : ''}`);
  parts.push(checkStatus === 'done' && findings !== null ? countOf(findings, 'finding') : checkStatus === 'running' ? 'checking integrity…' : 'not checked');
  if (session.model) parts.push(`model ${nameText(session.model)}`);
  if (session.gate !== null) parts.push(session.gate ? 'gate on' : 'gate off');
  return parts;
}
