/**
 * The corpus of bad inputs (e2e/fixtures/bad/) through the command line: `check`, `expand` of
 * every live reduction and `search` exit 0/1/2 as SPEC §8 says, stdout is always one valid JSON
 * document with a trailing newline, and stderr is empty or one sentence. Plus the inputs made at
 * test time that the command line can meet: a directory, a missing path, a denied read, a 300 MB line.
 */
import { chmodSync, closeSync, mkdirSync, openSync, readFileSync, truncateSync, writeFileSync, writeSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExpandOutcome, Reduction, SidecarSearchResult } from '../../shared/index';
import type { ReadSync } from '../loader/common/lines';
import { loadSession, MAX_RECORD_BYTES } from '../loader/session';
import type { BadInputExpectation } from '../../tools/testing/badCorpus';
import { BAD_CORPUS_DIR, badInputPath, OSC52, findingCodesAsStated, statedFindingCodes } from '../../tools/testing/badCorpus';
import { makeHeader, messageRecord, tempDir } from '../../tools/testing/files';
import { unverifiedOutcome } from '../../tools/testing/verifyOutcome';
import type { CliRun } from './testing/runCli';
import { runCli } from './testing/runCli';

const manifest = (JSON.parse(readFileSync(join(BAD_CORPUS_DIR, 'manifest.json'), 'utf8')) as { files: BadInputExpectation[] }).files;
const corpusPath = (name: string) => join(BAD_CORPUS_DIR, name);

const digest = (path: string): string => createHash('sha256').update(readFileSync(path)).digest('hex');

const tmp = tempDir('session-inspector-bad-cli-');
afterAll(() => tmp.cleanup());

const run = runCli;
type Run = CliRun;

/** SPEC §8's shape of every outcome: one compact JSON document and a newline; stderr empty, or one sentence with exit 2. */
function parsed<T>(r: Run): T {
  expect(r.stdout.endsWith('\n')).toBe(true);
  expect(r.stdout.indexOf('\n')).toBe(r.stdout.length - 1);
  const value = JSON.parse(r.stdout) as T;
  if (r.code === 2) {
    expect(r.stderr).toMatch(/^session-inspector: [^\n]+[.!?]\n$/);
    expect(Object.keys(value as object)).toEqual(['error']);
  } else {
    expect(r.stderr).toBe('');
  }
  return value;
}

function errorCode(r: Run): string {
  expect(r.code).toBe(2);
  return parsed<{ error: { code: string; message: string } }>(r).error.code;
}

describe('the committed corpus through the command line', () => {
  for (const expected of manifest) {
    // A generated input is large (5–80 MB, read again by every command): it gets a longer bound.
    it(`${expected.name}: check exits ${expected.check_exit}, expand and search answer as the manifest says`, async () => {
      const file = badInputPath(expected.name);
      // Each command reads the file again: 1–2 s for each of the generated ones. Those ask the command
      // line what depends on the input (check, expand of its ids, search); a slice, a range past the
      // end and an unknown id they ask of the session loaded here, which is what the command calls
      // (sessionCommands.ts), and `--strict` only the small inputs, through the command line.
      const small = !expected.generated;
      const before = digest(file);
      const check = await run(['check', file]);
      expect(check.code).toBe(expected.check_exit);
      if (expected.error) {
        expect(errorCode(check)).toBe(expected.error);
      } else {
        const report = parsed<{ findings: { code: string; line?: number }[]; summary: { messages: number } }>(check);
        if (expected.messages !== undefined) expect(report.summary.messages).toBe(expected.messages);
        expect(findingCodesAsStated(report.findings.map((f) => f.code), expected)).toEqual(statedFindingCodes(expected));
        if (expected.finding_lines) expect(report.findings.map((f) => f.line ?? null)).toEqual(expected.finding_lines);
        // --strict fails on warnings too (asked of the small inputs: below).
        if (small) expect((await run(['check', '--strict', file])).code).toBe(expected.findings.length > 0 ? 1 : 0);
      }

      // The log the CLI resolves against, for the hash oracle.
      const loaded = await loadSession([file]);
      const log: readonly Reduction[] = loaded.ok ? loaded.session.log : [];
      try {
        const ids = expected.error ? ['r1'] : Object.keys(expected.expand);
        for (const id of ids) {
          const r = await run(['expand', '--id', id, file]);
          const want = expected.error ?? expected.expand[id];
          if (want === 'ok') {
            expect(r.code, `expand ${id}`).toBe(0);
            const outcome = parsed<ExpandOutcome>(r);
            expect(loaded.ok && unverifiedOutcome(log, loaded.session.minted, outcome)).toBeUndefined();
            const past: [number, number] = [outcome.total_bytes + 1, outcome.total_bytes + 2];
            if (small) {
              const slice = await run(['expand', '--id', id, '--range', `1:${outcome.total_bytes + 5}`, file]);
              expect(parsed<ExpandOutcome>(slice).total_bytes).toBe(outcome.total_bytes);
              expect(errorCode(await run(['expand', '--id', id, '--range', `${past[0]}:${past[1]}`, file]))).toBe('invalid_byte_range');
            } else {
              const slice = loaded.ok ? loaded.session.expand(id, [1, outcome.total_bytes + 5]) : undefined;
              expect(slice?.ok && slice.value.total_bytes).toBe(outcome.total_bytes);
              const beyond = loaded.ok ? loaded.session.expand(id, past) : undefined;
              expect(beyond?.ok === false && beyond.error.code).toBe('invalid_byte_range');
            }
          } else {
            expect(errorCode(r), `expand ${id}`).toBe(want);
          }
        }
        const unknownCode = expected.error ?? (loaded.ok && loaded.session.stopped ? 'unsupported_version' : 'unknown_reduction');
        if (small) {
          expect(errorCode(await run(['expand', '--id', 'no-such-id', file]))).toBe(unknownCode);
        } else if (loaded.ok && !loaded.session.stopped) {
          const unknown = loaded.session.expand('no-such-id');
          expect(unknown.ok === false && unknown.error.code).toBe(unknownCode);
        }

        const search = await run(['search', '--query', expected.search.query, file]);
        if (expected.search.error !== undefined) {
          expect(errorCode(search)).toBe(expected.search.error);
        } else {
          expect(search.code).toBe(0);
          expect(parsed<SidecarSearchResult>(search).total_matches).toBe(expected.search.matches);
          const regex = await run(['search', '--regex', '--query', '(a|aa)+$', file]);
          expect(regex.code).toBe(0);
          parsed<SidecarSearchResult>(regex);
        }
      } finally {
        if (loaded.ok) loaded.session.close();
      }
      // Nothing is written: every command left the file's bytes as they were.
      expect(digest(file), `${expected.name} was changed`).toBe(before);
    }, expected.generated ? 180_000 : undefined);
  }
});

describe('inputs made at test time', () => {
  it('hostile text in a file name or an id reaches stderr only as visible escapes (no OSC 52, no bidi override)', async () => {
    const hostile = `${OSC52}\u202Egnp\ud800.sidecar.jsonl`;
    const missing = tmp.path(`missing-${hostile.replace('\ud800', '')}`);
    const copy = tmp.path(`copy-${hostile.replace('\ud800', '')}`);
    writeFileSync(copy, readFileSync(corpusPath('hostile-names.sidecar.jsonl')));
    for (const argv of [
      ['check', missing],
      ['expand', '--id', `r${OSC52}\u202Eunknown`, copy],
      ['search', '--regex', '--query', `(${OSC52}`, copy],
    ]) {
      const r = await run(argv);
      expect(r.code, argv.join(' ')).toBe(2);
      // Every character a terminal acts on is written as \uXXXX; stdout stays JSON (which escapes controls itself).
      // eslint-disable-next-line no-control-regex
      expect(r.stderr).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
      expect(r.stderr).toContain('\\u001b]52;c;cm0gLXJmIH4=\\u0007');
      expect(r.stderr).toMatch(/^session-inspector: [^\n]+[.!?]\n$/);
      expect(r.stdout).not.toContain('\u001b');
    }
  });

  it('a directory, a missing path: exit 2, unreadable_file, for every command', async () => {
    const dir = tmp.path('a-directory.sidecar.jsonl');
    mkdirSync(dir);
    const missing = tmp.path('missing.sidecar.jsonl');
    for (const file of [dir, missing]) {
      for (const argv of [
        ['check', file],
        ['expand', '--id', 'r1', file],
        ['search', '--query', 'x', file],
      ]) {
        const r = await run(argv);
        expect(errorCode(r), argv.join(' ')).toBe('unreadable_file');
        expect(r.stderr).toContain(file);
      }
    }
  });

  const root = process.getuid?.() === 0;
  if (root) console.log('[cli badInputs] skipping the chmod 000 test: running as root, which reads any file; the injected EACCES reader covers the error path');
  it.skipIf(root)('a file without read permission: exit 2, unreadable_file (EACCES)', async () => {
    const path = tmp.path('secret.sidecar.jsonl');
    writeFileSync(path, readFileSync(corpusPath('torn-last-line.sidecar.jsonl')));
    chmodSync(path, 0o000);
    const r = await run(['check', path]);
    expect(errorCode(r)).toBe('unreadable_file');
    expect(r.stderr).toContain('EACCES');
  });

  it('a read denied with EACCES: exit 2, unreadable_file, the reason in one sentence', async () => {
    const denied: ReadSync = () => {
      throw Object.assign(new Error('EACCES: permission denied, read'), { code: 'EACCES', syscall: 'read', errno: -13 });
    };
    const r = await run(['check', corpusPath('torn-last-line.sidecar.jsonl')], { readSync: denied });
    expect(errorCode(r)).toBe('unreadable_file');
    expect(r.stderr).toContain('permission denied (EACCES)');
  });

  describe('a line of 300 MB', () => {
    const big = tmp.path('huge-line.sidecar.jsonl');
    beforeAll(() => {
      const fd = openSync(big, 'w');
      try {
        writeSync(fd, `${JSON.stringify(makeHeader())}\n${JSON.stringify(messageRecord(0, { role: 'user', content: 'cat the log' }))}\n`);
        // 300 MB in the record's metadata: a record that can only be read whole (a tool output that
        // large is read by range; see electron/loader/badInputs.test.ts).
        writeSync(fd, '{"t":"message","i":1,"msg":{"role":"tool","tool_call_id":"call_1","content":"see metadata","metadata":{"blob":"');
        const chunk = Buffer.alloc(1024 * 1024, 'x');
        for (let k = 0; k < 300; k++) writeSync(fd, chunk);
        writeSync(fd, `"}}}\n${JSON.stringify(messageRecord(2, { role: 'assistant', content: 'That log is long.' }))}\n`);
      } finally {
        closeSync(fd);
      }
    });
    afterAll(() => truncateSync(big, 0));

    it('check reports it as malformed_line (exit 1), with the default limit and a small one', async () => {
      for (const options of [{}, { maxRecordBytes: 1024 * 1024 }]) {
        const r = await run(['check', big], options);
        expect(r.code).toBe(1);
        const report = parsed<{ findings: { code: string; line: number; index: number; message: string }[] }>(r);
        expect(report.findings).toMatchObject([{ code: 'malformed_line', line: 3, index: 1 }]);
        expect(report.findings[0]?.message).toContain(`the limit is ${options.maxRecordBytes ?? MAX_RECORD_BYTES} bytes`);
      }
    });

    it('search answers over what could be read (exit 0)', async () => {
      const r = await run(['search', '--query', 'x', big], { maxRecordBytes: 1024 * 1024 });
      expect(r.code).toBe(0);
      expect(parsed<SidecarSearchResult>(r).total_matches).toBe(0);
    });
  });
});
