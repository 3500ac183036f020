/**
 * What `bundle.json` of a repro bundle (SPEC §12) records. A module of its own: bundle.ts writes it,
 * template.ts writes the README and the spec from it, and neither imports the other for it
 * (docs/import-cycles.md).
 */
import type { SessionFileFormat } from '../../shared/index';
import type { UnitKind } from './units';

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
    algorithm: 'view prefix, then ddmin';
    /** The view length the first stage kept (null: no message records). */
    view: number | null;
    units: { name: string; kind: UnitKind; before: number; after: number }[];
    oracle_calls: number;
    max_oracle_calls: number;
    max_items: number;
    max_bytes: number;
    accepted_steps: number;
    stop: 'minimal' | 'call_cap' | 'too_large';
    bytes_before: number;
    bytes_after: number;
  };
}
