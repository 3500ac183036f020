/**
 * `check --strict` over every real public file of the corpus (`e2e/fixtures/real/`, each folder's
 * README names its source): all are well-formed files as their agents wrote them, so each exits 0
 * — no error and no warning (an unknown record, a role read as another) on any of them. The corpus
 * is walked, not listed: a file added to it is checked too. A Claude Code subagent's file is a
 * session of its own; an OpenHands V1 folder is checked through its `base_state.json`; a rollout
 * committed gzipped is checked unpacked, in a temporary folder. Every session of a file is checked.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../tools/testing/files';
import { runCli } from './testing/runCli';

const REAL = join(import.meta.dirname, '../../e2e/fixtures/real');
const tmp = tempDir('session-inspector-corpus-');
afterAll(() => tmp.cleanup());

/** Every session file under `dir`: the files of a V1 `events/` folder are its base_state's, a README is none. */
function sessionFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap((e) => {
      const path = join(dir, e.name);
      if (e.isDirectory()) return e.name === 'events' ? [] : sessionFiles(path);
      return e.isFile() && e.name !== 'README.md' ? [path] : [];
    });
}

const FILES = sessionFiles(REAL);

describe('check --strict over the real corpus', () => {
  it('walks a file of every format the importers read', () => {
    const formats = new Set(FILES.map((f) => relative(REAL, f).split('/')[0]));
    expect([...formats].sort()).toEqual(['claude-code', 'codex', 'inspect', 'mini-swe-agent', 'openhands', 'swe-agent']);
    expect(FILES.some((f) => f.endsWith('/base_state.json'))).toBe(true);
  });

  it.each(FILES.map((f) => [relative(REAL, f), f] as const))('%s: exits 0, with no finding', async (_name, path) => {
    let file = path;
    if (path.endsWith('.gz')) {
      file = tmp.path(basename(path, '.gz'));
      writeFileSync(file, gunzipSync(readFileSync(path)));
    }
    const r = await runCli(['check', '--strict', file]);
    expect(r.stderr).toBe('');
    expect(r.code, r.stdout).toBe(0);
    // A file of several sessions (an Inspect log's samples, a Claude Code subagent): each one too.
    const { summary } = JSON.parse(r.stdout) as { summary: { session_id: string; sessions?: { id: string }[] } };
    for (const { id } of summary.sessions ?? []) {
      if (id === summary.session_id) continue;
      const other = await runCli(['check', '--strict', '--session', id, file]);
      expect(other.code, `session ${id}: ${other.stdout}`).toBe(0);
    }
  });
});
