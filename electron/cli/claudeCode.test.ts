/** The command line on Claude Code transcripts: check, expand, search and log, --session and --format. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { writeSynthetic } from '../loader/claudeCode/testing/build';
import { tempDir } from '../../tools/testing/files';
import { runCli } from './testing/runCli';

const REAL = join(import.meta.dirname, '../../e2e/fixtures/real/claude-code');
const SUBAGENT_MAIN = join(REAL, 'cc-2.1.17-subagent/29ccd257-68b1-427f-ae5f-6524b7cb6f20.jsonl');
function errorOf(r: { stdout: string }): { code: string; message: string } {
  return (JSON.parse(r.stdout) as { error: { code: string; message: string } }).error;
}

const tmp = tempDir('session-inspector-cc-cli-');
afterAll(() => tmp.cleanup());
const synthetic = writeSynthetic(tmp.dir);

describe('the CLI on Claude Code transcripts', () => {
  it('check: format claude-code, the sessions, the findings; exit 0 when only warnings', async () => {
    const r = await runCli(['check', synthetic]);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as { findings: { code: string }[]; summary: { format: string; sessions: { id: string }[]; reductions_by_kind: Record<string, number> } };
    expect(out.summary.format).toBe('claude-code');
    expect(out.summary.sessions).toHaveLength(2);
    expect(out.summary.reductions_by_kind).toMatchObject({ summarized: 1, tool_output_elided: 1, tool_output_truncated: 2 });
    expect(out.findings.map((f) => f.code)).toEqual(['unknown_record', 'truncated_last_line']);
  });

  it('log: every reduction recorded, hashed at import, or not recorded at all', async () => {
    const r = await runCli(['log', synthetic]);
    const out = JSON.parse(r.stdout) as { reductions: { kind: string; status: string; provenance: string; hash_origin: string | null }[] };
    expect(out.reductions.map((x) => [x.kind, x.status, x.provenance, x.hash_origin])).toEqual([
      ['summarized', 'verified', 'recorded', 'import'],
      ['tool_output_elided', 'verified', 'recorded', 'import'],
      ['tool_output_truncated', 'verified', 'recorded', 'import'],
      ['tool_output_truncated', 'original_unavailable', 'recorded', null],
    ]);
  });

  it('expand and search reach the tool-results file', async () => {
    const e = await runCli(['expand', '--id', 'cc-persisted-toolu_E', '--range', '0:21', synthetic]);
    expect(JSON.parse(e.stdout)).toMatchObject({ kind: 'tool_output_truncated', content: 'line of a long output', range: [0, 21] });
    const s = await runCli(['search', '--query', 'SECRET-ONLY-IN-TOOL-RESULTS', synthetic]);
    expect(JSON.parse(s.stdout)).toMatchObject({ total_matches: 1 });
    const gone = await runCli(['expand', '--id', 'cc-persisted-toolu_F', synthetic]);
    expect(gone.code).toBe(2);
    expect(JSON.parse(gone.stdout)).toMatchObject({ error: { code: 'original_unavailable' } });
  });

  it('--session picks a subagent; an unknown one is a usage error naming the sessions', async () => {
    const r = await runCli(['check', '--session', 'a2271d1', SUBAGENT_MAIN]);
    expect(JSON.parse(r.stdout)).toMatchObject({ summary: { session_id: 'a2271d1', messages: 35 } });
    const bad = await runCli(['log', '--session', 'nope', SUBAGENT_MAIN]);
    expect(bad.code).toBe(2);
    expect(errorOf(bad)).toMatchObject({ code: 'usage' });
    expect(errorOf(bad).message).toContain('a2271d1');
  });

  it('--format forces a format; an unknown one, or a file of another format, says which formats exist', async () => {
    const native = await runCli(['check', '--format', 'supercode', synthetic]);
    expect(JSON.parse(native.stdout)).toMatchObject({ error: { code: 'unrecognized_file' } });
    const forced = await runCli(['check', '--format', 'claude-code', synthetic]);
    expect(forced.code).toBe(0);
    const unknown = await runCli(['check', '--format', 'nope', synthetic]);
    expect(errorOf(unknown)).toMatchObject({ code: 'usage' });
    expect(errorOf(unknown).message).toContain('claude-code');
    const other = tmp.path('notes.txt');
    writeFileSync(other, 'just text\n');
    const none = await runCli(['check', other]);
    expect(errorOf(none)).toMatchObject({ code: 'unrecognized_file' });
    expect(errorOf(none).message).toMatch(/supercode \(.*\), claude-code \(Claude Code transcripts\)/);
  });
});
