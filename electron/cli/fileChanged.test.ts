/**
 * The command line over a sidecar rewritten in place after it was indexed: same length,
 * modification time set back. `expand`, `search` and `check` exit 2 with `file_changed`; none
 * prints the rewritten bytes, and check does not report findings over them.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { fileOffsetOf, rewriteInPlace, writeLargeOutputSidecar } from '../../tools/testing/changingFile';
import type { LoadOptions } from '../loader/session';
import { tempDir } from '../../tools/testing/files';
import { runCli } from './testing/runCli';

const tmp = tempDir('session-inspector-file-changed-cli-');
afterAll(() => tmp.cleanup());

describe('a sidecar rewritten in place once it is indexed', () => {
  const { path, view } = writeLargeOutputSidecar(tmp.path('large.sidecar.jsonl'));
  const content = view[1]?.content ?? '';
  const at = 5 * 1024 * 1024;

  /** Rewrites 4 KiB at `at` of the output when indexing has read the whole file. */
  const rewriteWhenIndexed = (): LoadOptions => ({
    onProgress: ({ bytesRead, totalBytes }) => {
      if (bytesRead === totalBytes) rewriteInPlace(path, fileOffsetOf(path, content, at), 4096);
    },
  });

  for (const argv of [
    ['expand', '--id', 'r1', '--range', `${at}:${at + 4096}`],
    ['search', '--query', 'resolver'],
    ['check'],
  ]) {
    it(`${argv[0]}: exit 2, file_changed naming the file`, async () => {
      const r = await runCli([...argv, path], rewriteWhenIndexed());
      expect(r.code).toBe(2);
      const { error } = JSON.parse(r.stdout) as { error: { code: string; message: string } };
      expect(error.code).toBe('file_changed');
      expect(error.message).toContain(path);
      expect(r.stderr).toMatch(/changed on disk since it was opened/);
    });
  }
});
