/**
 * The command line over a sidecar rewritten in place after it was indexed: same length,
 * modification time set back. `expand`, `search` and `check` exit 2 with `file_changed`; none
 * prints the rewritten bytes, and check does not report findings over them. `expand` of a large
 * original writes it a window at a time, each only while the file is as it was opened.
 */
import { readSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { fileOffsetOf, rewriteInPlace, writeLargeOutputSidecar } from '../../tools/testing/changingFile';
import type { LoadOptions } from '../loader/session';
import { tempDir } from '../../tools/testing/files';
import { main } from './main';
import { json } from './output';
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

describe('expand of an original of several MB', () => {
  const big = writeLargeOutputSidecar(tmp.path('several-mb.sidecar.jsonl'), `${'é😀 '.repeat(1_500_000)}end`);

  /** `expand --id r1`, each write to stdout kept apart; `onWrite` runs after each. */
  const expandPieces = async (onWrite: (k: number) => void = () => undefined) => {
    const pieces: string[] = [];
    const code = await main(['expand', '--id', 'r1', big.path], {
      stdout: (s) => {
        pieces.push(s);
        onWrite(pieces.length);
      },
      stderr: () => undefined,
    });
    return { code, pieces };
  };

  it('is written a window at a time, and is the whole original', async () => {
    const { code, pieces } = await expandPieces();
    expect(code).toBe(0);
    const content = big.view[1]?.content ?? '';
    const printed = JSON.parse(pieces.join('')) as { content: string; total_bytes: number };
    expect(printed.content).toBe(content);
    expect(printed.total_bytes).toBe(Buffer.byteLength(content));
    expect(pieces.join('')).toBe((await runCli(['expand', '--id', 'r1', big.path])).stdout);
    expect(pieces.length).toBeGreaterThanOrEqual(4);
    expect(Math.max(...pieces.map((p) => p.length))).toBeLessThan(3 << 20);
  });

  it('a change after the first window: exit 2 with file_changed, and nothing written after it', async () => {
    const copy = writeLargeOutputSidecar(tmp.path('several-mb-changed.sidecar.jsonl'), big.view[1]?.content);
    const pieces: string[] = [];
    const code = await main(['expand', '--id', 'r1', copy.path], {
      stdout: (s) => {
        pieces.push(s);
        if (pieces.length === 1) rewriteInPlace(copy.path, fileOffsetOf(copy.path, big.view[1]?.content ?? '', 4 << 20), 4096);
      },
      stderr: () => undefined,
    });
    expect(code).toBe(2);
    expect(pieces).toHaveLength(2);
    const { error } = JSON.parse(pieces[1] ?? '') as { error: { code: string; message: string } };
    expect(pieces[1]).toBe(json({ error: { code: 'file_changed', message: error.message } }));
    expect(error.message).toContain(copy.path);
  });

  it('reads that start failing while it is written (a file cut short): exit 2 with address_out_of_range, never an error of ours', async () => {
    let reads = 0;
    let failFrom = Number.POSITIVE_INFINITY;
    const shrinking = (fd: number, buffer: NodeJS.ArrayBufferView, offset: number, length: number, position: number | null) => (++reads >= failFrom ? 0 : readSync(fd, buffer, offset, length, position));
    const options = { cacheBytes: 0, readSync: shrinking };
    const whole = await runCli(['expand', '--id', 'r1', big.path], options);
    expect(whole.code).toBe(0);
    const total = reads;
    // From the middle of the run on: the original is verified by then, and read again as it is written.
    for (const k of [Math.floor(total * 0.6), Math.floor(total * 0.8), total - 1]) {
      reads = 0;
      failFrom = k;
      const r = await runCli(['expand', '--id', 'r1', big.path], options);
      expect(r.code, `reads failing from read ${k} of ${total}`).toBe(2);
      const { error } = JSON.parse(r.stdout.slice(r.stdout.lastIndexOf('{"error"'))) as { error: { code: string; message: string } };
      expect(error.code).toBe('address_out_of_range');
      expect(error.message).toContain('reduction r1');
    }
  });
});
