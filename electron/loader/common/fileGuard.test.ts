/**
 * The file guard's samples (fileGuard.ts): hashed only for a file the session reads back after its
 * pass, and then against the identity taken at the open, so a write between the open and the
 * samples is still a change.
 */
import { closeSync, openSync, readFileSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { sessionFilesUnder, tempDir } from '../../../tools/testing/files';
import { FileChangedError, loadSession } from '../session';
import { FileGuard } from './fileGuard';

const ROOT = join(import.meta.dirname, '../../..');
const tmp = tempDir('session-inspector-file-guard-');
afterAll(() => tmp.cleanup());
afterEach(() => {
  vi.restoreAllMocks();
});

/** Counts the guards' sample hashes (a private method: what a guard reads and hashes of the file). */
function countSampling(): { calls: () => number } {
  const spy = vi.spyOn(FileGuard.prototype as unknown as { hashSamples: () => string | undefined }, 'hashSamples');
  return { calls: () => spy.mock.calls.length };
}

/** Runs `body` with a guard taken without its samples on a file of `text` at `name`, the file open meanwhile. */
function withUnsampledGuard(name: string, text: string, body: (guard: FileGuard, path: string) => void): void {
  const path = tmp.path(name);
  writeFileSync(path, text);
  const fd = openSync(path, 'r');
  try {
    body(new FileGuard(path, fd, undefined, false), path);
  } finally {
    closeSync(fd);
  }
}

describe('a guard taken without its samples', () => {
  it('reports a write made between the open and the samples', () => {
    withUnsampledGuard('written.jsonl', '{"a":1}\n{"b":2}\n', (guard, path) => {
      expect(guard.change(true)).toBeUndefined();
      // The same bytes written again in place: the size stays, the times move.
      const w = openSync(path, 'r+');
      writeSync(w, '{"a":1}', 0);
      closeSync(w);
      guard.takeSamples();
      expect(guard.change()).toBeDefined();
    });
  });

  it('answers a light check, and refuses a full one until its samples are taken', () => {
    withUnsampledGuard('quiet.jsonl', '{"a":1}\n', (guard) => {
      expect(guard.change(true)).toBeUndefined();
      expect(() => guard.change()).toThrow(/samples that were never taken/);
      guard.takeSamples();
      expect(guard.change()).toBeUndefined();
    });
  });
});

/** The files of a session read back after their pass: a sidecar, and a transcript or rollout whose long strings stay in the file. */
const READ_BACK = new Set(['supercode-sidecar', 'claude-code', 'codex-rollout']);

describe('the loader', () => {
  const files = [...sessionFilesUnder(join(ROOT, 'e2e/fixtures/real')), join(ROOT, 'samples/demo.sidecar.jsonl'), join(ROOT, 'samples/session.sidecar.jsonl')];

  it.each(files.map((f) => [f.slice(ROOT.length + 1), f]))('%s: samples hashed only for a file read after its pass', async (_name, file) => {
    for (const inMemory of [false, true]) {
      const sampling = countSampling();
      // In memory (a listing's count: DetectContext.inMemoryUpToBytes), a line format keeps every string and reads nothing back.
      const loaded = await loadSession([file], inMemory ? { inMemoryUpToBytes: 64 * 1024 * 1024 } : {});
      expect(loaded.ok).toBe(true);
      if (!loaded.ok) return;
      try {
        // A snapshot beside a sidecar is parsed whole; a transcript's companions (subagents) are files of their own.
        const readBack = loaded.session.files.filter((f) => (inMemory ? f.format === 'supercode-sidecar' : READ_BACK.has(f.format))).length;
        expect(sampling.calls(), `${inMemory ? 'in memory' : 'read back'}: the files read after the pass, and no other`).toBe(readBack);
        // The check compares the samples of each file read back: it neither finds one changed nor lacks them.
        expect(() => loaded.session.check()).not.toThrow();
      } finally {
        loaded.session.close();
        vi.restoreAllMocks();
      }
    }
  }, 60_000);
});

describe('a Claude Code transcript whose long text stays in the file', () => {
  const sessionId = '5b1c0f52-8d1e-4d7e-9a43-0c6f3f1d2e11';
  const prompt = `Explain this log: ${'A'.repeat(3000)}`;
  const lines = [
    { type: 'user', uuid: 'u1', parentUuid: null, sessionId, timestamp: '2025-06-01T00:00:00.000Z', cwd: '/work', message: { role: 'user', content: prompt } },
    { type: 'assistant', uuid: 'a1', parentUuid: 'u1', sessionId, timestamp: '2025-06-01T00:00:01.000Z', message: { id: 'msg_1', role: 'assistant', model: 'claude-sonnet-4-5', content: [{ type: 'text', text: 'Done.' }], usage: { input_tokens: 900, output_tokens: 2 } } },
  ];

  it('rewritten in place after the open: the session says file_changed (SPEC §13), and check refuses it', async () => {
    const path = tmp.path('kept-text.jsonl');
    writeFileSync(path, `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);
    const loaded = await loadSession([path]);
    expect(loaded.ok).toBe(true);
    if (!loaded.ok) return;
    try {
      expect(loaded.session.minted.at(0)?.large, 'the prompt is read back from the file').toBeDefined();
      expect(loaded.session.fileChange()).toBeUndefined();
      const at = Buffer.byteLength(readFileSync(path, 'utf8').split('AAAA')[0] as string);
      const w = openSync(path, 'r+');
      writeSync(w, 'BBBB', at);
      closeSync(w);
      expect(loaded.session.fileChange()?.path).toBe(path);
      expect(() => loaded.session.check()).toThrow(FileChangedError);
    } finally {
      loaded.session.close();
    }
  });
});
