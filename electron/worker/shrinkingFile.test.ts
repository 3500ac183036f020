/**
 * The resolver worker's core over a session file that changes after it was opened (truncated, or
 * overwritten in place, its modification time set back): every method that reads the file answers
 * `file_changed` — no bytes read around the change are served, not even as unverified — the
 * change is reported once (the `fileChanged` event), and nothing throws or becomes `internal_error`.
 */
import { readFileSync, statSync, truncateSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { EventPayload, ExpandOutcome, ParsedParams } from '../../shared/index';
import { methods } from '../../shared/index';
import { tempDir } from '../../tools/testing/files';
import { loadSession } from '../loader/session';
import { SessionService } from './service';

const SESSION = join(import.meta.dirname, '../../samples/session.sidecar.jsonl');

const tmp = tempDir('session-inspector-shrink-');
afterAll(() => tmp.cleanup());

function params<M extends keyof typeof methods>(method: M, raw: unknown): ParsedParams<M> {
  return methods[method].params.parse(raw) as ParsedParams<M>;
}

/** Asks every method about everything; returns the error codes seen and the whole expansions. */
function askEverything(service: SessionService, rowCount: number, ids: string[]): { codes: Set<string>; expanded: ExpandOutcome[]; missingRows: number } {
  const codes = new Set<string>();
  const expanded: ExpandOutcome[] = [];
  const note = (reply: { ok: boolean; error?: { code: string } }) => {
    if (!reply.ok && reply.error) codes.add(reply.error.code);
  };
  const rows = service.handle('rows', params('rows', { start: 0, end: rowCount }));
  note(rows);
  const missingRows = rows.ok ? rows.value.rows.filter((r) => r.missing).length : 0;
  for (let row = 0; row < rowCount; row++) note(service.handle('rowText', params('rowText', { row, range: [0, 100] })));
  for (const id of ids) {
    const e = service.handle('expand', params('expand', { id, range: [0, 1 << 30] }));
    note(e);
    if (e.ok) expanded.push(e.value);
  }
  note(service.handle('verify', params('verify', { ids })));
  note(service.searchAtOnce(params('search', { searchId: 's1', query: 'error' })));
  note(service.searchAtOnce(params('search', { searchId: 's2', query: 'e.r', mode: 'regex' })));
  note(service.handle('log', params('log', {})));
  note(service.handle('check', params('check', {})));
  return { codes, expanded, missingRows };
}

/** A service over a copy of the sample session, and the events it reports. */
async function openCopy(name: string): Promise<{ path: string; service: SessionService; rows: number; ids: string[]; changes: EventPayload<'fileChanged'>[] }> {
  const path = tmp.path(name);
  writeFileSync(path, readFileSync(SESSION));
  const changes: EventPayload<'fileChanged'>[] = [];
  const service = new SessionService({ cacheBytes: 0 }, (change) => changes.push(change));
  // Not followed (--no-follow): today's behaviour, any change stops serving the file (followed: worker/follow.test.ts).
  const info = await service.open({ paths: [path], generation: 7, follow: false });
  if (!info.ok) throw new Error(info.error.message);
  const loaded = await loadSession([SESSION]);
  if (!loaded.ok) throw new Error(loaded.error.message);
  const ids = loaded.session.log.map((r) => r.id);
  loaded.session.close();
  return { path, service, rows: info.value.rows, ids, changes };
}

/** Every method that reads the file answers file_changed; the log (in memory) still answers. */
function expectAllFileChanged(service: SessionService, rows: number, ids: string[]): void {
  const after = askEverything(service, rows, ids);
  expect(after.expanded).toEqual([]);
  expect(after.codes).toEqual(new Set(['file_changed']));
  expect(service.handle('log', params('log', {})).ok).toBe(true);
}

describe('a session file that changes after it was opened', () => {
  it('truncated: every request that reads it answers file_changed, reported once', async () => {
    const { path, service, rows, ids, changes } = await openCopy('shrinks.sidecar.jsonl');
    const before = askEverything(service, rows, ids);
    expect(before.codes).toEqual(new Set());
    expect(before.missingRows).toBe(0);
    expect(changes).toEqual([]);

    truncateSync(path, Math.floor(statSync(path).size / 2));
    expectAllFileChanged(service, rows, ids);
    expect(changes).toEqual([{ generation: 7, path, message: expect.stringMatching(/its size went from/) as unknown }]);

    writeFileSync(path, '');
    expectAllFileChanged(service, rows, ids);
    expect(changes).toHaveLength(1);
    service.close();
  });

  it('overwritten in place with other bytes, its modification time set back: file_changed, never the new bytes', async () => {
    const { path, service, rows, ids, changes } = await openCopy('overwritten.sidecar.jsonl');
    const original = readFileSync(path);
    // Digits become other digits inside every string: same lengths, same JSON shapes, other bytes.
    const text = original.toString('latin1').replace(/("content":")((?:[^"\\]|\\.)*)"/g, (_m, key: string, value: string) => `${key}${value.replace(/(?<!\\u[0-9a-fA-F]{0,3})[0-8]/g, (d) => String(Number(d) + 1))}"`);
    expect(text.length).toBe(original.length);
    const { atime, mtime } = statSync(path);
    writeFileSync(path, Buffer.from(text, 'latin1'));
    utimesSync(path, atime, mtime);
    expectAllFileChanged(service, rows, ids);
    expect(changes).toHaveLength(1);
    expect(changes[0]?.message).toContain(path);
    service.close();
  });
});
