/**
 * What `bundle.json` of a repro bundle (SPEC §12; docs/bundles.md) records. A module of its own:
 * bundle.ts writes it, template.ts writes the README and the spec from it, and neither imports the
 * other for it (docs/import-cycles.md).
 */
import type { SessionFileFormat } from '../../shared/index';
import type { Rewrite, UnitKind } from './units';

/** Why the minimizer ended: 1-minimal, or stopped early (its cap, a cancel, a time limit), or not run (too large). */
export type MinimizerStop = 'minimal' | 'call_cap' | 'too_large' | 'cancelled' | 'time_limit';

/** One removed unit of a session file: its kind, its source lines and bytes, the ids it carried. */
export interface CutUnit {
  file: string;
  kind: string;
  /** Source lines (1-based); none for a snapshot element. */
  lines: number[];
  /** Its bytes in the source file, `[start, end)`. */
  ranges: [number, number][];
  ids: string[];
  bytes: number;
}

/** What the minimizer removed. `bytes_before − removed_bytes − Σ(rewritten: bytes_before − bytes_after) = bytes_after`. */
export interface CutReport {
  /** Units removed, by kind (most bytes first). */
  by_kind: { kind: string; units: number; bytes: number }[];
  removed_units: number;
  removed_bytes: number;
  /** Each removed unit, in file order. */
  units: CutUnit[];
  /** Kept lines whose bytes the cut changed (a re-linked `parentUuid`, a snapshot written again). */
  rewritten: (Rewrite & { file: string })[];
}

export interface BundleManifest {
  format: 'session-inspector-bundle';
  version: 1;
  sources: { path: string; format: SessionFileFormat; bytes: number; sha256: string }[];
  files: { name: string; format: SessionFileFormat; bytes: number; sha256: string }[];
  ids: string[];
  codes: string[];
  /** What `expand --id` prints for each id, in short: the bundle's must match. */
  expand: { id: string; total_bytes: number; range: [number, number]; source: string; sha256: string }[];
  options: { session?: string; format?: string };
  minimizer: {
    algorithm: 'view prefix, then ddmin over format units';
    /** The view length the first stage kept (null: no message records). */
    view: number | null;
    units: { name: string; kind: UnitKind; before: number; after: number }[];
    oracle_calls: number;
    max_oracle_calls: number;
    max_items: number;
    max_bytes: number;
    /** The time limit asked for, in milliseconds (null: none). */
    max_time_ms: number | null;
    accepted_steps: number;
    stop: MinimizerStop;
    /** Set when the search ended before the bundle was 1-minimal: why, in words. The files are the smallest found that reproduce. */
    stopped_early: { reason: Exclude<MinimizerStop, 'minimal'>; message: string } | null;
    bytes_before: number;
    bytes_after: number;
    cut: CutReport;
  };
}
