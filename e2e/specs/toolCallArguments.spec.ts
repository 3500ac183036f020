/**
 * Tool calls whose arguments are megabytes (21 rows of them were a 96.8 MB `rows`
 * reply). `rows` carries a prefix of each call's arguments and their whole size, like a row's
 * text; the app shows the prefix and the size, and `Show more` pages through the rest. The
 * sidecar (ten calls of 8 MiB each) is written at test time, once per worker, into a temporary folder.
 */
import { writeFileSync } from 'node:fs';
import { ROW_TEXT_MAX_BYTES } from '../../shared/contract';
import { expect, testWithWrittenSidecar } from '../fixtures';

const CALLS = 10;
const ARGS_BYTES = 8 * 1024 * 1024;
/** Arguments of call `k`: JSON whose first line names the call, then 8 MiB of lines. */
function argumentsOf(k: number): string {
  const head = `{"path":"out/file-${k}.txt","content":"`;
  const line = `line of file ${k}, written by the agent\\n`;
  const body = line.repeat(Math.ceil((ARGS_BYTES - head.length - 2) / line.length));
  return `${head}${body.slice(0, ARGS_BYTES - head.length - 2)}"}`;
}
/** A `rows` reply may carry this much for the page holding the calls: ten rows of a prefix each, and slack. */
const MAX_ROWS_REPLY_BYTES = (CALLS + 2) * ROW_TEXT_MAX_BYTES + 64 * 1024;

function writeSidecar(path: string): void {
  const lines = [
    JSON.stringify({ t: 'header', format: 'supercode-sidecar', version: 1, session_id: 's-args', created_at: '2026-12-01T00:00:00Z', model: 'm', gate: true, policy: null }),
    JSON.stringify({ t: 'message', i: 0, msg: { role: 'user', content: 'Write the ten files.' } }),
  ];
  for (let k = 0; k < CALLS; k++) {
    lines.push(JSON.stringify({ t: 'message', i: 1 + 2 * k, msg: { role: 'assistant', content: '', tool_calls: [{ id: `call_${k}`, name: `write_file_${k}`, arguments: argumentsOf(k) }] } }));
    lines.push(JSON.stringify({ t: 'message', i: 2 + 2 * k, msg: { role: 'tool', tool_call_id: `call_${k}`, content: `wrote out/file-${k}.txt` } }));
  }
  writeFileSync(path, `${lines.join('\n')}\n`);
}

const test = testWithWrittenSidecar('args', writeSidecar);

test.describe('tool calls with 8 MiB of arguments each', () => {
  test('come in bounded rows replies; the app shows a prefix and the size, and Show more pages on', async ({ inspector, inspectorApp }) => {
    test.slow();
    const { page } = inspectorApp;
    const rowsReplies: number[] = [];
    page.on('response', (response) => {
      if (new URL(response.url()).pathname !== '/api/rows') return;
      void response.body().then((body) => rowsReplies.push(body.length), () => undefined);
    });
    await page.reload();
    await inspector.waitLoaded(60_000);

    const call = inspector.view.getByRole('group', { name: 'Tool call write_file_0', exact: true });
    await expect(call).toContainText('{"path":"out/file-0.txt","content":"line of file 0');
    await expect(call).toContainText('showing 64.0 KiB of 8.0 MiB');
    // Over HTTP the replies are responses to measure; in Electron they are IPC messages (the
    // worker's own test bounds them there: electron/worker/rows.test.ts).
    if (inspectorApp.target === 'http') {
      await expect.poll(() => rowsReplies.length).toBeGreaterThan(0);
      for (const bytes of rowsReplies) expect(bytes).toBeLessThan(MAX_ROWS_REPLY_BYTES);
    }

    const more = call.getByRole('button', { name: 'Show more of the arguments of tool call write_file_0', exact: true });
    await more.click();
    await expect(call).toContainText('showing 128.0 KiB of 8.0 MiB');
  });
});
