/**
 * A SWE-agent trajectory as a source: one JSON document, parsed whole at detection (SWE-agent
 * writes it whole at the end of a run, or after each step: there is nothing to tail) and built
 * once (build.ts). A document that does not parse is one `malformed_line` finding at the parser's
 * line, and no messages.
 */
import { arrayList } from '../../../shared/session';
import type { Finding } from '../../../shared/types';
import type { OpenFile } from '../openFile';
import type { SourceIndex } from '../source';
import { WholeFileSource } from '../wholeFileSource';
import { buildTraj } from './build';
import { buildMini } from './mini';

/** What detection found: the parsed document, or why the claimed file does not parse. */
export type TrajParse = { doc: Record<string, unknown>; notUtf8: boolean } | { error: string; line: number };

export class TrajSource extends WholeFileSource {
  readonly format = 'swe-agent-traj' as const;

  constructor(
    file: OpenFile,
    private parsed: TrajParse,
    private readonly sessionId: string,
  ) {
    super(file);
  }

  protected parseWhole(): SourceIndex {
    const parsed = this.parsed;
    this.parsed = { error: 'already built', line: 1 };
    const findings: Finding[] = [];
    if ('error' in parsed) {
      findings.push({ code: 'malformed_line', severity: 'error', line: parsed.line, message: `line ${parsed.line}: the trajectory is not one JSON document (${parsed.error}); nothing is shown` });
      return { records: { header: null, view: arrayList([]), recorded: arrayList([]), log: [], logLines: [], messageLines: [], modelChanges: [], findings, system: () => undefined } };
    }
    if (parsed.notUtf8) findings.push({ code: 'malformed_line', severity: 'error', line: 1, message: 'the trajectory holds bytes that are not valid UTF-8; they read as U+FFFD' });
    const built = buildTraj(parsed.doc);
    for (const f of built.findings) findings.push(f);
    const view = arrayList(built.view);
    return {
      records: { header: null, view, recorded: view, log: built.log, logLines: built.logLines, messageLines: built.messageLines, modelChanges: [], findings, system: () => undefined },
      snapshot: { session_id: this.sessionId, model: built.model ?? '', messages: view, findings: [] },
    };
  }
}

/** What detection found in a mini-swe-agent file: the parsed document, or why it does not parse. */
export type MiniParse = { doc: Record<string, unknown> | unknown[]; notUtf8: boolean } | { error: string; line: number };

/** A mini-swe-agent trajectory (mini.ts): one document, parsed at detection, built once. */
export class MiniTrajSource extends WholeFileSource {
  readonly format = 'mini-swe-agent-traj' as const;

  constructor(
    file: OpenFile,
    private parsed: MiniParse,
    private readonly sessionId: string,
  ) {
    super(file);
  }

  protected parseWhole(): SourceIndex {
    const parsed = this.parsed;
    this.parsed = { error: 'already built', line: 1 };
    const findings: Finding[] = [];
    if ('error' in parsed) {
      findings.push({ code: 'malformed_line', severity: 'error', line: parsed.line, message: `line ${parsed.line}: the trajectory is not one JSON document (${parsed.error}); nothing is shown` });
      return { records: { header: null, view: arrayList([]), recorded: arrayList([]), log: [], logLines: [], messageLines: [], modelChanges: [], findings, system: () => undefined } };
    }
    if (parsed.notUtf8) findings.push({ code: 'malformed_line', severity: 'error', line: 1, message: 'the trajectory holds bytes that are not valid UTF-8; they read as U+FFFD' });
    const built = buildMini(parsed.doc);
    for (const f of built.findings) findings.push(f);
    const view = arrayList(built.view);
    return {
      records: { header: null, view, recorded: view, log: [], logLines: [], messageLines: built.messageLines, modelChanges: [], findings, system: () => undefined },
      snapshot: { session_id: this.sessionId, model: built.model ?? '', messages: view, findings: [] },
    };
  }
}
