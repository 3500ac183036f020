/** The command line on Codex rollouts (SPEC §10.2): detected by content; check, expand, search and log. */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CheckReport, ExpandOutcome, SidecarSearchResult } from '../../shared/index';
import { ENCRYPTED_SUMMARY } from '../loader/codex/build';
import { CODEX_SYNTHETIC_DIR } from '../loader/codex/testing/synthetic';
import { runCli } from './testing/runCli';

const REMOTE = join(CODEX_SYNTHETIC_DIR, 'remote-compaction.jsonl');
const LOCAL = join(CODEX_SYNTHETIC_DIR, 'local-compaction.jsonl');
const TORN = join(CODEX_SYNTHETIC_DIR, 'torn.jsonl');
const CUT = join(import.meta.dirname, '../../e2e/fixtures/real/codex/rollout-0.139-review-cut-output-ENTIRE.jsonl');
const REAL = join(import.meta.dirname, '../../e2e/fixtures/real/codex/rollout-0.40.0-vscode-unmodified.jsonl');

interface LogOut {
  reductions: { id: string; kind: string; stub: string; status: string; provenance: string; hash_origin: string | null; group?: string; origin?: { line: number }; hidden_bytes: number; ptr: { hash: string | null; bytes: number | null }; kept_bytes?: number; stated_size?: string }[];
}

describe('codex rollouts on the command line', () => {
  it('check: a real rollout is format codex with one session, clean', async () => {
    const r = await runCli(['check', REAL]);
    const report = JSON.parse(r.stdout) as CheckReport;
    expect(r.code).toBe(0);
    expect(report.findings).toEqual([]);
    expect(report.summary).toMatchObject({ format: 'codex', session_id: '019982b8-3422-79e0-8b3b-05abaf4f3c3e', model: 'gpt-5-codex', messages: 71, reductions: 0 });
    expect(report.summary.files).toEqual([{ path: REAL, format: 'codex-rollout', bytes: 208776 }]);
    expect(report.summary.sessions).toEqual([{ id: '019982b8-3422-79e0-8b3b-05abaf4f3c3e', messages: 71 }]);
  });

  it('check: a compaction counts its summarized runs; a damaged rollout exits 1 with line numbers', async () => {
    const report = JSON.parse((await runCli(['check', LOCAL])).stdout) as CheckReport;
    expect(report.summary.reductions_by_kind.summarized).toBe(3);
    const torn = await runCli(['check', TORN]);
    expect(torn.code).toBe(1);
    expect((JSON.parse(torn.stdout) as CheckReport).findings.map((f) => [f.code, f.line])).toEqual([
      ['malformed_line', 4],
      ['truncated_last_line', 6],
    ]);
  });

  it('log: every run is recorded, hashed at import, verified, with its line and group', async () => {
    const r = await runCli(['log', REMOTE]);
    expect(r.code).toBe(0);
    const log = JSON.parse(r.stdout) as LogOut;
    expect(log.reductions.map((x) => [x.id, x.kind, x.status, x.provenance, x.hash_origin, x.group, x.origin?.line, x.stub])).toEqual([
      ['codex-L9-1', 'summarized', 'verified', 'recorded', 'import', 'compaction-L9', 9, ENCRYPTED_SUMMARY],
      ['codex-L9-2', 'summarized', 'verified', 'recorded', 'import', 'compaction-L9', 9, ENCRYPTED_SUMMARY],
      // the kept prompt moved after the re-injected context: its earlier place is the compaction's and hides nothing the model does not see
      ['codex-L9-moved-5', 'duplicate_output', 'verified', 'recorded', 'import', 'compaction-L9', 9, ENCRYPTED_SUMMARY],
    ]);
    expect(log.reductions.map((x) => x.hidden_bytes > 0)).toEqual([true, true, false]);
  });

  it('log: an output the tool cut is original_unavailable, with the size the file states (approximately, in tokens); check raises nothing', async () => {
    const r = await runCli(['log', CUT]);
    expect(r.code).toBe(0);
    const log = JSON.parse(r.stdout) as LogOut;
    expect(log.reductions.map((x) => [x.id, x.kind, x.status, x.provenance, x.hash_origin, x.origin?.line, x.ptr.hash, x.ptr.bytes, x.kept_bytes, x.hidden_bytes, x.stated_size])).toEqual([
      ['codex-L17-cut-8', 'tool_output_truncated', 'original_unavailable', 'recorded', null, 17, null, 68343 * 4, 0, 68343 * 4, 'Original token count: 68343, at 4 bytes a token'],
    ]);
    const check = JSON.parse((await runCli(['check', CUT])).stdout) as CheckReport;
    expect(check.findings).toEqual([]);
    expect(check.summary.reductions_by_kind.tool_output_truncated).toBe(1);
    const expand = await runCli(['expand', '--id', 'codex-L17-cut-8', CUT]);
    expect(expand.code).not.toBe(0);
    expect(expand.stdout + expand.stderr).toContain('original_unavailable');
    expect(expand.stdout + expand.stderr).toContain('only approximately (Original token count: 68343, at 4 bytes a token: about 273372 bytes)');
  });

  it('expand prints the dropped run as a transcript; a range slices it', async () => {
    const r = await runCli(['expand', '--id', 'codex-L12-2', LOCAL]);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as ExpandOutcome;
    expect(out).toMatchObject({ reduction_id: 'codex-L12-2', kind: 'summarized', index: 2 });
    expect(out.content).toContain('⟨tool call_1⟩\nChunk ID: 1');
    const slice = JSON.parse((await runCli(['expand', '--id', 'codex-L12-2', '--range', '0:12', LOCAL])).stdout) as ExpandOutcome;
    expect(slice.content).toBe(out.content.slice(0, slice.content.length));
  });

  it('search finds text only the hidden content holds', async () => {
    const r = await runCli(['search', '--query', 'secret-hidden-marker', LOCAL]);
    expect(r.code).toBe(0);
    const found = JSON.parse(r.stdout) as SidecarSearchResult;
    expect(found.matches.length).toBeGreaterThan(0);
    expect(found.matches.every((m) => m.reduction_id.startsWith('codex-L12-'))).toBe(true);
  });
});
