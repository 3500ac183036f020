import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Finding } from '../../shared/index';
import { SESSION_FORMATS } from '../../shared/contract';
import type { SessionFormat } from '../../shared/contract';
import { makeHeader, messageRecord, reductionRecord, tempDir, writeSidecar, writeSnapshot } from '../../tools/testing/files';
import { assistant, makeReduction, tool, user } from '../../shared/testing/builders';
import { USAGE } from './main';
import type { CliRun } from './testing/runCli';
import { runCli } from './testing/runCli';

const ROOT = join(import.meta.dirname, '../..');
const DEMO = join(ROOT, 'samples/demo.sidecar.jsonl');
const demoText = readFileSync(DEMO, 'utf8');
const demoLines = demoText.trimEnd().split('\n');

const EXPAND_31_41 =
  '{"reduction_id":"r1","kind":"tool_output_truncated","index":2,"role":"tool","tool_call_id":"call_9","content":"— expecte","range":[30,41],"total_bytes":67,"source":"minted"}\n';
const SEARCH_FAIL =
  '{"query":"FAIL","mode":"substring","case_sensitive":true,"matches":[{"reduction_id":"r1","kind":"tool_output_truncated","index":2,"offset":15,"length":4,"snippet":"FAIL b.test.ts — expected 3, got 4\\nPASS c.test.ts\\n","snippet_match":[0,4]}],"total_matches":1,"truncated":false,"reductions_searched":1,"hidden_bytes_searched":52}\n';

const tmp = tempDir();
afterAll(() => tmp.cleanup());

const run = runCli;
type Run = CliRun;

/** Exit 2 with `{"error":{code,message}}` on stdout and one sentence on stderr. */
function expectError(r: Run, code: string): string {
  expect(r.code).toBe(2);
  expect(r.stdout.endsWith('\n')).toBe(true);
  const parsed = JSON.parse(r.stdout) as { error: { code: string; message: string } };
  expect(Object.keys(parsed)).toEqual(['error']);
  expect(Object.keys(parsed.error)).toEqual(['code', 'message']);
  expect(parsed.error.code).toBe(code);
  expect(r.stderr).toMatch(/^session-inspector: .+[.!?]\n/);
  return parsed.error.message;
}

function parseCheck(r: Run): { findings: Finding[]; summary: Record<string, unknown> } {
  expect(r.stdout.endsWith('\n')).toBe(true);
  return JSON.parse(r.stdout) as { findings: Finding[]; summary: Record<string, unknown> };
}

describe('expand', () => {
  it('prints exactly the SPEC §9 outcome', async () => {
    expect(await run(['expand', '--id', 'r1', '--range', '31:41', DEMO])).toEqual({ code: 0, stdout: EXPAND_31_41, stderr: '' });
  });

  it('accepts --flag=value and options after the files', async () => {
    expect((await run(['expand', DEMO, '--range=31:41', '--id=r1'])).stdout).toBe(EXPAND_31_41);
    expect((await run(['expand', '--id', 'r1', '--', DEMO, '--range', '31:41'])).code).toBe(2);
  });

  it('prints the whole original without --range', async () => {
    const r = await run(['expand', '--id', 'r1', DEMO]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ content: 'PASS a.test.ts\nFAIL b.test.ts — expected 3, got 4\nPASS c.test.ts\n', range: [0, 67] });
  });

  it('reports resolver errors: unknown_reduction, invalid_byte_range', async () => {
    expect(expectError(await run(['expand', '--id', 'r9', DEMO]), 'unknown_reduction')).toContain('r9');
    expect(expectError(await run(['expand', '--id', 'r1', '--range', '70:80', DEMO]), 'invalid_byte_range')).toContain('67');
    expect(expectError(await run(['expand', '--id', 'r1', '--range', '9:3', DEMO]), 'invalid_byte_range')).toContain('67');
  });

  it('reports hash_mismatch and address_out_of_range', async () => {
    const tampered = writeSidecar(
      tmp.path('tampered.sidecar.jsonl'),
      demoLines.map((l) => l.replace('expected 3, got 4', 'expected 3, got 5')),
    );
    expect(expectError(await run(['expand', '--id', 'r1', tampered]), 'hash_mismatch')).toContain('sha256:');
    const outOfRange = writeSidecar(
      tmp.path('range.sidecar.jsonl'),
      demoLines.map((l) => l.replace('"ptr":{"index":2', '"ptr":{"index":9')),
    );
    expect(expectError(await run(['expand', '--id', 'r1', outOfRange]), 'address_out_of_range')).toContain('index 9');
  });
});

describe('search', () => {
  it('prints exactly the SPEC §9 result for FAIL', async () => {
    expect(await run(['search', '--query', 'FAIL', DEMO])).toEqual({ code: 0, stdout: SEARCH_FAIL, stderr: '' });
  });

  it('reports PASS once, at offset 52: the PASS at 0 was visible', async () => {
    const r = await run(['search', '--query=PASS', DEMO]);
    expect(r.code).toBe(0);
    const result = JSON.parse(r.stdout) as { matches: { offset: number }[]; total_matches: number };
    expect(result.total_matches).toBe(1);
    expect(result.matches.map((m) => m.offset)).toEqual([52]);
  });

  it('passes --regex, --ignore-case and --max-matches through', async () => {
    const r = await run(['search', DEMO, '--regex', '--ignore-case', '--query', 'pass [a-c]\\.', '--max-matches', '0']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ query: 'pass [a-c]\\.', mode: 'regex', case_sensitive: false, matches: [], total_matches: 1, truncated: true });
  });

  it('reports a bad pattern as invalid_query', async () => {
    expect(expectError(await run(['search', '--regex', '--query', 'a(b', DEMO]), 'invalid_query')).toMatch(/byte \d+/);
  });
});

describe('check', () => {
  it('exits 0 on the clean demo', async () => {
    const r = await run(['check', DEMO]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    const report = parseCheck(r);
    expect(Object.keys(report)).toEqual(['findings', 'summary']);
    expect(report.findings).toEqual([]);
    expect(Object.keys(report.summary)).toEqual(['files', 'session_id', 'model', 'gate', 'messages', 'reductions', 'reductions_by_kind', 'errors', 'warnings', 'format', 'sessions', 'tokens', 'cache_breaks']);
    expect(report.summary).toMatchObject({ session_id: 's-demo', messages: 4, reductions: 1, errors: 0, warnings: 0 });
    // §15: a native file records no usage.
    expect(report.summary).toMatchObject({ tokens: { calls_recorded: 0, max_context: null, window: null, compactions: [] }, cache_breaks: [] });
    // §10.2: a native file is `supercode` and holds one session.
    expect(report.summary).toMatchObject({ format: 'supercode', sessions: [{ id: 's-demo', messages: 4 }] });
  });

  it('a snapshot alone is a supercode session too, with its one session listed (SPEC §10.2)', async () => {
    const path = writeSnapshot(tmp.path('alone.session.json'), { format: 'supercode-session', version: 1, session_id: 's-alone', model: 'model-b', messages: [{ role: 'user', content: 'hi' }, { role: 'assistant', content: 'hello' }] });
    const report = parseCheck(await run(['check', path]));
    expect(report.summary).toMatchObject({ format: 'supercode', sessions: [{ id: 's-alone', messages: 2 }] });
  });

  it('exits 1 when a finding is an error, sorted by line', async () => {
    const lines = [...demoLines];
    lines.splice(3, 0, 'not json');
    lines.splice(2, 0, '{"t":"telemetry"}');
    const path = writeSidecar(tmp.path('check-bad.sidecar.jsonl'), lines);
    const r = await run(['check', path]);
    expect(r.code).toBe(1);
    const report = parseCheck(r);
    expect(report.findings.map((f) => [f.code, f.line])).toEqual([
      ['unknown_record', 3],
      ['malformed_line', 5],
    ]);
    expect(report.summary).toMatchObject({ errors: 1, warnings: 1 });
  });

  it('exits 0 when findings are only warnings', async () => {
    const path = writeSidecar(tmp.path('check-warn.sidecar.jsonl'), [...demoLines, '{"t":"mess'], { trailingNewline: false });
    const r = await run(['check', path]);
    expect(r.code).toBe(0);
    expect(parseCheck(r).findings.map((f) => f.code)).toEqual(['truncated_last_line']);
  });

  it('reports integrity findings of the resolver (hash_mismatch) with their line', async () => {
    const tampered = writeSidecar(tmp.path('check-hash.sidecar.jsonl'), demoLines.map((l) => l.replace('got 4', 'got 5')));
    const r = await run(['check', tampered]);
    expect(r.code).toBe(1);
    expect(parseCheck(r).findings).toMatchObject([{ code: 'hash_mismatch', severity: 'error', line: 7, reduction_id: 'r1' }]);
  });
});

describe('log (SPEC §10.2)', () => {
  it('prints each live reduction with its §3.5 fields, hidden_bytes, status, provenance, hash_origin and hidden_tokens_est', async () => {
    const r = await run(['log', DEMO]);
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(r.stdout.endsWith('\n')).toBe(true);
    const parsed = JSON.parse(r.stdout) as { reductions: Record<string, unknown>[] };
    expect(Object.keys(parsed)).toEqual(['reductions']);
    const [r1] = parsed.reductions;
    const recorded = (JSON.parse(demoLines[6] as string) as { r: Record<string, unknown> }).r;
    // The record's own fields in their order, then what checking it found.
    // The estimate of what it hid (electron/tokens/estimates.test.ts checks its figure).
    expect(r1).toEqual({ ...recorded, hidden_bytes: 52, status: 'verified', provenance: 'recorded', hash_origin: 'recorded', hidden_tokens_est: { tokens: expect.any(Number) as number, source: 'estimated' } });
    expect(Object.keys(r1 ?? {}).slice(-5)).toEqual(['hidden_bytes', 'status', 'provenance', 'hash_origin', 'hidden_tokens_est']);
  });

  it('reports a bad hash as its status (exit 0: log reports, check judges), summarized groups and originals not in the file', async () => {
    const view = [user('Fix it'), assistant('', 'c1'), tool('error at line 3', 'c1'), assistant('Done.'), user('thanks'), assistant('ok')];
    const sum1 = makeReduction(view, { id: 's1', kind: 'summarized', index: 0, end: 2, group: 'g1', summary: 'The user asked for a fix.' }, { provenance: 'recorded', origin: { line: 4 }, hash_origin: 'import' });
    const sum2 = makeReduction(view, { id: 's2', kind: 'summarized', index: 3, end: 5, group: 'g1', summary: '' }, { provenance: 'recorded', origin: { line: 4 }, hash_origin: 'import' });
    const gone = makeReduction(view, { id: 'g', kind: 'tool_output_elided', index: 2, unavailable: true }, { ptr: { index: 2, hash: null, bytes: 900 }, provenance: 'derived', origin: { event: 'e-7' } });
    const bad = makeReduction(view, { id: 'b', kind: 'tool_output_elided', index: 5 }, { ptr: { index: 5, hash: `sha256:${'0'.repeat(64)}`, bytes: 2 } });
    const path = writeSidecar(tmp.path('log-foreign.sidecar.jsonl'), [makeHeader(), ...view.map((m, i) => messageRecord(i, m)), ...[sum1, sum2, gone, bad].map(reductionRecord)]);
    const r = await run(['log', path]);
    expect(r.code).toBe(0);
    const { reductions } = JSON.parse(r.stdout) as { reductions: Record<string, unknown>[] };
    expect(reductions.map((e) => [e.id, e.status, e.hidden_bytes, e.provenance, e.hash_origin])).toEqual([
      // A summary hides the whole transcript of its run.
      ['s1', 'verified', sum1.ptr.bytes, 'recorded', 'import'],
      ['s2', 'verified', sum2.ptr.bytes, 'recorded', 'import'],
      ['g', 'original_unavailable', 900, 'derived', null],
      ['b', 'hash_mismatch', null, 'recorded', 'recorded'],
    ]);
    expect(reductions[0]).toMatchObject({ group: 'g1', origin: { line: 4 }, end: 2, stub: 'The user asked for a fix.' });
    expect(reductions[2]).toMatchObject({ ptr: { index: 2, hash: null, bytes: 900 }, origin: { event: 'e-7' } });
    // An original the file does not hold, or whose bytes fail their hash, has no estimate: only verified bytes are counted.
    expect(reductions.map((e) => e.hidden_tokens_est === null)).toEqual([false, false, true, true]);
    // check agrees: the bad hash is an error, the unavailable original is not.
    const check = await run(['check', path]);
    expect(check.code).toBe(1);
    expect(parseCheck(check).findings.map((f) => [f.code, f.reduction_id])).toEqual([['hash_mismatch', 'b']]);
    // expand says what the file records.
    const message = expectError(await run(['expand', '--id', 'g', path]), 'original_unavailable');
    expect(message).toContain('900 bytes');
  });

  it('is a usage error without a file, and takes no options', async () => {
    expectError(await run(['log']), 'usage');
    expectError(await run(['log', '--id', 'r1', DEMO]), 'usage');
  });
});

describe('unsupported versions', () => {
  const v2 = () => writeSidecar(tmp.path('v2.sidecar.jsonl'), [makeHeader({ version: 2 }), ...demoLines.slice(1)]);

  it('stop expand and search with exit 2', async () => {
    expect(expectError(await run(['expand', '--id', 'r1', v2()]), 'unsupported_version')).toContain('version 2');
    expectError(await run(['search', '--query', 'FAIL', v2()]), 'unsupported_version');
  });

  it('are a finding for check, exit 1', async () => {
    const r = await run(['check', v2()]);
    expect(r.code).toBe(1);
    expect(parseCheck(r).findings).toMatchObject([{ code: 'unsupported_version', line: 1 }]);
  });

  it('of a snapshot stop expand too', async () => {
    const snap = writeSnapshot(tmp.path('v2.session.json'), { format: 'supercode-session', version: 3, session_id: 's', model: 'm', messages: [] });
    expectError(await run(['expand', '--id', 'r1', snap]), 'unsupported_version');
  });
});

describe('file errors', () => {
  it('unreadable_file: a missing path, a directory', async () => {
    const missing = tmp.path('missing.sidecar.jsonl');
    const m = await run(['check', missing]);
    expect(expectError(m, 'unreadable_file')).toContain(missing);
    expect(m.stderr).toContain(missing);
    expectError(await run(['expand', '--id', 'r1', tmp.dir]), 'unreadable_file');
  });

  it('unrecognized_file: neither a sidecar nor a snapshot', async () => {
    const text = tmp.path('notes.txt');
    writeFileSync(text, 'just some notes\n');
    expect(expectError(await run(['search', '--query', 'x', text]), 'unrecognized_file')).toContain(text);
  });

  it('usage: two sidecars', async () => {
    expectError(await run(['check', DEMO, DEMO]), 'usage');
  });
});

describe('usage', () => {
  it('--help prints the usage on stdout, exit 0', async () => {
    expect(await run(['--help'])).toEqual({ code: 0, stdout: USAGE, stderr: '' });
    expect((await run(['expand', '-h'])).code).toBe(0);
  });

  it('--help names every format read, each agent by the name its users know', () => {
    const files = USAGE.slice(0, USAGE.indexOf('Commands:')).replace(/\s+/g, ' ');
    // Keyed by the contract's formats: a format added there does not compile here until --help is checked for it.
    const words: Readonly<Record<SessionFormat, readonly string[]>> = {
      supercode: ['supercode sidecar', 'session snapshot'],
      'claude-code': ['Claude Code transcript'],
      codex: ['Codex rollout'],
      'swe-agent': ['SWE-agent .traj', 'mini-swe-agent trajectory'],
      inspect: ['Inspect AI .eval or .json log'],
      openhands: ['OpenHands V0 trajectory', 'V1 conversation folder'],
    };
    expect(Object.keys(words).sort()).toEqual([...SESSION_FORMATS].sort());
    for (const agent of Object.values(words).flat()) expect(files).toContain(agent);
  });

  it('no command: exit 2, the JSON error on stdout, the usage on stderr', async () => {
    const r = await run([]);
    expectError(r, 'usage');
    expect(r.stderr).toContain(USAGE);
  });

  it.each([
    ['an unknown command', ['frobnicate', DEMO]],
    ['an option before the command', ['--id', 'r1', 'expand', DEMO]],
    ['an unknown flag', ['check', '--verbose', DEMO]],
    ['a flag of another command', ['check', '--id', 'r1', DEMO]],
    ['a short flag', ['check', '-v', DEMO]],
    ['a missing value at the end', ['expand', DEMO, '--id']],
    ['a flag taken for a value', ['search', '--query', '--regex', DEMO]],
    ['a value given to a switch', ['search', '--query', 'x', '--regex=yes', DEMO]],
    ['a repeated flag', ['expand', '--id', 'r1', '--id', 'r2', DEMO]],
    ['a missing --id', ['expand', DEMO]],
    ['a missing --query', ['search', DEMO]],
    ['a bad number', ['search', '--query', 'x', '--max-matches', 'ten', DEMO]],
    ['a negative number', ['search', '--query', 'x', '--max-matches=-1', DEMO]],
    ['a range without a colon', ['expand', '--id', 'r1', '--range', '31', DEMO]],
    ['a negative range', ['expand', '--id', 'r1', '--range=-1:5', DEMO]],
    ['a range of words', ['expand', '--id', 'r1', '--range', 'a:b', DEMO]],
    ['a range too large', ['expand', '--id', 'r1', '--range', '0:99999999999999999999', DEMO]],
    ['no file', ['check']],
    ['three files', ['check', DEMO, DEMO, DEMO]],
  ])('rejects %s with usage', async (_what, argv) => {
    const r = await run(argv);
    expectError(r, 'usage');
    expect(r.stderr).toContain('--help');
  });

  it('checks the flags before reading any file', async () => {
    expectError(await run(['expand', '--range', 'x', tmp.path('missing')]), 'usage');
  });

  it.each(['open', 'serve'])('%s takes one or two files, like the other commands', async (command) => {
    expect(expectError(await run([command, DEMO, DEMO, DEMO]), 'usage')).toContain('at most two files');
  });

  it('reports an unexpected failure as internal_error, still as JSON', async () => {
    const r = await run(['check', DEMO], {
      onProgress: () => {
        throw new Error('boom');
      },
    });
    expect(expectError(r, 'internal_error')).toContain('boom');
  });
});

describe('as a process', () => {
  const bin = join(ROOT, 'electron/cli/bin.ts');
  const spawnCli = (args: string[]) => {
    const r = spawnSync(process.execPath, ['--import', 'tsx', bin, ...args], { cwd: ROOT, encoding: 'utf8' });
    return { code: r.status, stdout: r.stdout, stderr: r.stderr };
  };

  it('prints the §9 expansion and exits 0', () => {
    expect(spawnCli(['expand', '--id', 'r1', '--range', '31:41', 'samples/demo.sidecar.jsonl'])).toEqual({ code: 0, stdout: EXPAND_31_41, stderr: '' });
  });

  it('exits 2 with the JSON error on stdout and a sentence on stderr', () => {
    const r = spawnCli(['expand', '--id', 'nope', 'samples/demo.sidecar.jsonl']);
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stdout)).toEqual({ error: { code: 'unknown_reduction', message: 'no reduction with id "nope" in the live log (1 reductions)' } });
    expect(r.stderr).toBe('session-inspector: no reduction with id "nope" in the live log (1 reductions).\n');
  });

  it('exits 1 when check finds an error', () => {
    const path = writeSidecar(tmp.path('proc-bad.sidecar.jsonl'), [...demoLines.slice(0, 3), 'oops', ...demoLines.slice(3)]);
    const r = spawnCli(['check', path]);
    expect(r.code).toBe(1);
    expect(parseCheck({ ...r, code: r.code ?? -1 }).findings).toMatchObject([{ code: 'malformed_line', line: 4 }]);
  });

  // The bundle that `npx session-inspector` runs, when `npm run build` has made it.
  it.skipIf(!existsSync(join(ROOT, 'dist/cli.cjs')))('runs through bin/session-inspector.cjs and the bundle', () => {
    // The code cache goes to a temporary folder, not the user's (electron/cli/chunkLoader.ts).
    const env = { ...process.env, XDG_CACHE_HOME: tmp.path('cache-home') };
    const r = spawnSync(process.execPath, [join(ROOT, 'bin/session-inspector.cjs'), 'search', '--query', 'FAIL', 'samples/demo.sidecar.jsonl'], { cwd: ROOT, encoding: 'utf8', env });
    expect({ code: r.status, stdout: r.stdout, stderr: r.stderr }).toEqual({ code: 0, stdout: SEARCH_FAIL, stderr: '' });
  });
});
