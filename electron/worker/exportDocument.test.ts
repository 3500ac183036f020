/** The worker's `exportDocument`: the command line's document, byte for byte; a range that is none of the session's is refused. */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { methods } from '../../shared/index';
import { runCli } from '../cli/testing/runCli';
import { openedServices } from './testing/services';

const COMPACTION = join(import.meta.dirname, '../../e2e/fixtures/real/claude-code/cc-2.0.76-compact-boundary.jsonl');
const opened = openedServices();

describe('SessionService exportDocument', () => {
  it('answers the document export --as prints, named after the session file', async () => {
    const service = await opened(COMPACTION);
    for (const as of ['markdown', 'html'] as const) {
      const reply = service.handle('exportDocument', methods.exportDocument.params.parse({ as, redact: true, calls: [6, 8] }));
      if (!reply.ok) throw new Error(reply.error.message);
      const cli = await runCli(['export', '--as', as, '--redact', '--calls', '6:8', COMPACTION]);
      expect(reply.value.text).toBe(cli.stdout);
      expect(reply.value).toMatchObject({ name: `cc-2.0.76-compact-boundary${as === 'html' ? '.html' : '.md'}`, calls: 12, bytes: Buffer.byteLength(cli.stdout) });
    }
  });

  it('refuses a range of calls the session does not have', async () => {
    const reply = (await opened(COMPACTION)).handle('exportDocument', methods.exportDocument.params.parse({ as: 'html', calls: [3, 13] }));
    expect(reply).toMatchObject({ ok: false, error: { code: 'invalid_request' } });
  });
});
