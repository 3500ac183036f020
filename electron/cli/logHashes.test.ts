/**
 * `log` hashes a compaction's transcript once: its report resolves with the transcript hashes its
 * token estimates kept (docs/tokens.md "How the pass runs"), so the largest original a compacted
 * session holds, the whole view before its compaction, is not hashed again a moment later.
 */
import { afterAll, describe, expect, it, vi } from 'vitest';
import { tempDir } from '../../tools/testing/files';
import { generateClaudeTranscript } from '../loader/claudeCode/testing/generate';
import { loadSession } from '../loader/session';
import { runCli } from './testing/runCli';

/** Bytes fed to every SHA-256 made through node:crypto while a test counts them. */
const hashed = vi.hoisted(() => ({ bytes: 0 }));
vi.mock('node:crypto', async (original) => {
  const crypto = await original<typeof import('node:crypto')>();
  const counted = (hash: import('node:crypto').Hash): import('node:crypto').Hash => {
    const update = hash.update.bind(hash);
    const copy = hash.copy.bind(hash);
    return Object.assign(hash, {
      update: (data: string | NodeJS.ArrayBufferView, encoding?: BufferEncoding) => {
        hashed.bytes += typeof data === 'string' ? Buffer.byteLength(data, encoding) : data.byteLength;
        return encoding === undefined ? update(data) : update(data as string, encoding);
      },
      copy: () => counted(copy()),
    });
  };
  const createHash = (algorithm: string, options?: import('node:crypto').HashOptions) => (algorithm === 'sha256' ? counted(crypto.createHash(algorithm, options)) : crypto.createHash(algorithm, options));
  return { ...crypto, default: { ...crypto, createHash }, createHash };
});

const tmp = tempDir('session-inspector-log-hashes-');
afterAll(() => tmp.cleanup());

describe('log of a compacted session', () => {
  it('hashes the compaction’s transcript once, not once for its estimate and again for its status', async () => {
    const { path } = generateClaudeTranscript(tmp.dir, { bytes: 6_000_000, seed: 4, outputScale: 0.02, compactEvery: 5_000_000 });
    const loaded = await loadSession([path]);
    if (!loaded.ok) throw new Error(loaded.error.message);
    const compaction = loaded.session.log.find((r) => r.kind === 'summarized');
    loaded.session.close();
    const transcript = compaction?.ptr.bytes ?? 0;
    expect(transcript).toBeGreaterThan(500_000);
    hashed.bytes = 0;
    const run = await runCli(['log', path]);
    expect(run.code).toBe(0);
    const reported = (JSON.parse(run.stdout) as { reductions: { id: string; status: string }[] }).reductions;
    expect(reported.find((r) => r.id === compaction?.id)?.status).toBe('verified');
    // Once, and what else the command hashes (the file's samples, the short outputs' originals) is far less.
    expect(hashed.bytes).toBeGreaterThanOrEqual(transcript);
    expect(hashed.bytes).toBeLessThan(1.5 * transcript);
  });
});
