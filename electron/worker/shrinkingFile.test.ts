/**
 * The resolver worker's core over a session file that changes after it was opened (truncated, or
 * overwritten in place): every method still answers a value — rows show unreadable messages as
 * missing, expand and verify answer an error code — and no expansion returns bytes that do not
 * verify. Nothing throws and nothing becomes `internal_error`.
 */
import { readFileSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ExpandOutcome, ParsedParams } from '../../shared/index';
import { methods } from '../../shared/index';
import { tempDir } from '../testing/files';
import { unverifiedOutcome } from '../testing/verifyOutcome';
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
  note(service.handle('search', params('search', { searchId: 's1', query: 'error' })));
  note(service.handle('search', params('search', { searchId: 's2', query: 'e.r', mode: 'regex' })));
  note(service.handle('log', params('log', {})));
  note(service.handle('check', params('check', {})));
  return { codes, expanded, missingRows };
}

describe('a session file that changes after it was opened', () => {
  it('truncated: rows go missing, expand answers address_out_of_range, nothing is internal_error', async () => {
    const path = tmp.path('shrinks.sidecar.jsonl');
    writeFileSync(path, readFileSync(SESSION));
    const service = new SessionService({ cacheBytes: 0 });
    const info = await service.open({ paths: [path], generation: 1 });
    if (!info.ok) throw new Error(info.error.message);
    const loaded = await loadSession([SESSION]);
    if (!loaded.ok) throw new Error(loaded.error.message);
    const { log, minted } = loaded.session;
    const ids = log.map((r) => r.id);

    const before = askEverything(service, info.value.rows, ids);
    expect(before.codes).toEqual(new Set());
    expect(before.missingRows).toBe(0);

    truncateSync(path, Math.floor(statSync(path).size / 2));
    const after = askEverything(service, info.value.rows, ids);
    expect(after.missingRows).toBeGreaterThan(0);
    expect(after.codes.has('address_out_of_range')).toBe(true);
    expect(after.codes.has('internal_error')).toBe(false);
    // What still expands is the first window of bytes that verify: the whole content when it fits.
    for (const outcome of [...before.expanded, ...after.expanded]) {
      if (outcome.range[1] === outcome.total_bytes) expect(unverifiedOutcome(log, minted, outcome)).toBeUndefined();
    }
    const verify = service.handle('verify', params('verify', { ids }));
    expect(verify.ok && verify.value.statuses.some((s) => s.status === 'address_out_of_range')).toBe(true);

    writeFileSync(path, '');
    const emptied = askEverything(service, info.value.rows, ids);
    expect(emptied.expanded).toEqual([]);
    expect(emptied.codes.has('internal_error')).toBe(false);
    service.close();
    loaded.session.close();
  });

  it('overwritten in place with other bytes: expand and verify answer hash_mismatch', async () => {
    const path = tmp.path('overwritten.sidecar.jsonl');
    const original = readFileSync(SESSION);
    writeFileSync(path, original);
    const service = new SessionService({ cacheBytes: 0 });
    const info = await service.open({ paths: [path], generation: 1 });
    if (!info.ok) throw new Error(info.error.message);
    const loaded = await loadSession([SESSION]);
    if (!loaded.ok) throw new Error(loaded.error.message);
    const ids = loaded.session.log.map((r) => r.id);
    // Digits become other digits inside every string: same lengths, same JSON shapes, other bytes.
    const text = original.toString('latin1').replace(/("content":")((?:[^"\\]|\\.)*)"/g, (_m, key: string, value: string) => `${key}${value.replace(/(?<!\\u[0-9a-fA-F]{0,3})[0-8]/g, (d) => String(Number(d) + 1))}"`);
    expect(text.length).toBe(original.length);
    writeFileSync(path, Buffer.from(text, 'latin1'));
    const after = askEverything(service, info.value.rows, ids);
    expect(after.codes.has('hash_mismatch')).toBe(true);
    expect(after.codes.has('internal_error')).toBe(false);
    for (const outcome of after.expanded) {
      if (outcome.range[1] === outcome.total_bytes) expect(unverifiedOutcome(loaded.session.log, loaded.session.minted, outcome)).toBeUndefined();
    }
    service.close();
    loaded.session.close();
  });
});
