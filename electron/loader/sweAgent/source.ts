/**
 * SWE-agent and mini-swe-agent trajectories as sources: one JSON document each, parsed whole at
 * detection (the agents write it whole at the end of a run, or after each step: there is nothing
 * to tail) and built once (build.ts, mini.ts).
 */
import { type BuiltDocument, type DocumentParse, JsonDocumentSource } from '../common/documentSource';
import { buildTraj } from './build';
import { buildMini } from './mini';

/** What detection found: the parsed document, or why the claimed file does not parse. */
export type TrajParse = DocumentParse<Record<string, unknown>>;

export class TrajSource extends JsonDocumentSource<Record<string, unknown>> {
  readonly format = 'swe-agent-traj' as const;

  protected build(doc: Record<string, unknown>): BuiltDocument {
    return buildTraj(doc);
  }
}

/** A mini-swe-agent trajectory (mini.ts): its saved state or a bare list of messages. */
export class MiniTrajSource extends JsonDocumentSource<Record<string, unknown> | unknown[]> {
  readonly format = 'mini-swe-agent-traj' as const;

  protected build(doc: Record<string, unknown> | unknown[]): BuiltDocument {
    return { ...buildMini(doc), log: [], logLines: [] };
  }
}
