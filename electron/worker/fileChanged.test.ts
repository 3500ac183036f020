/**
 * Through the real resolver worker: a session file rewritten in place after it was
 * opened makes expand answer `file_changed`, and the worker pushes one `fileChanged` event naming
 * the file, which the window shows.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { EventPayload } from '../../shared/index';
import { rewriteInPlace } from '../../tools/testing/changingFile';
import { tempDir } from '../../tools/testing/files';
import type { WorkerResolverClient } from './client';
import { createResolverClient } from './client';

const DEMO = join(import.meta.dirname, '../../samples/demo.sidecar.jsonl');

const tmp = tempDir('session-inspector-worker-changed-');
afterAll(() => tmp.cleanup());
const clients: WorkerResolverClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.dispose()));
});

describe('a session file changed while the worker holds it open', () => {
  it('expand answers file_changed, and one fileChanged event names the file', async () => {
    const path = tmp.path('demo.sidecar.jsonl');
    writeFileSync(path, readFileSync(DEMO));
    const client = createResolverClient();
    clients.push(client);
    const changes: EventPayload<'fileChanged'>[] = [];
    client.onEvent((e) => {
      if (e.name === 'fileChanged') changes.push(e.payload);
    });
    // Not followed (--no-follow): a followed file rewritten in place is reopened instead (worker/follow.test.ts).
    const opened = await client.open([path], 4, { follow: false });
    expect(opened.ok).toBe(true);
    expect((await client.request('expand', { id: 'r1' })).ok).toBe(true);

    // The hidden tool output, "FAIL b.test.ts…", rewritten with the same length, mtime set back.
    rewriteInPlace(path, readFileSync(path).indexOf('FAIL b.test.ts'), 14);
    const reply = await client.request('expand', { id: 'r1' });
    expect(reply).toMatchObject({ ok: false, error: { code: 'file_changed' } });
    expect((await client.request('expand', { id: 'r1', range: [0, 10] })).ok).toBe(false);
    // Events and replies travel the same channel in order: the event came before the reply.
    expect(changes).toEqual([{ generation: 4, path, message: expect.stringContaining('changed on disk since it was opened') as unknown }]);
  });
});
