import { readSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import type { ChatMessage } from '../../../shared/index';
import { makeHeader, messageRecord, tempDir, writeSidecar } from '../../../tools/testing/files';
import type { ReadSync } from '../common/lines';
import { isLoadError, openReadOnly } from '../common/openFile';
import { SidecarSource } from './sidecarSource';

const tmp = tempDir('session-inspector-kept-rest-');
afterAll(() => tmp.cleanup());

/** Long enough to be indexed without decoding its content (RAW_SCAN_MIN_BYTES). */
const body = (k: number) => Array.from({ length: 400 }, (_, i) => `line ${i} of output ${k}: "quoted"\t`).join('\n');

const messages: ChatMessage[] = [
  { role: 'user', content: 'go' },
  { role: 'tool', tool_call_id: 'call_1', name: 'read_file', content: body(1), metadata: { exit: 0 } },
  // A rest longer than is kept with the handle: read back from the file, as before.
  { role: 'assistant', content: body(2), tool_calls: [{ id: 'call_2', name: 'write', arguments: JSON.stringify({ text: 'x'.repeat(6000) }) }] },
];

describe("a large content's record rest kept from indexing (the first search reads every message once)", () => {
  it('reads a message with a short rest without reading its record again, and equal to the record; a long rest is read back', async () => {
    const path = writeSidecar(tmp.path('rest.sidecar.jsonl'), [makeHeader(), ...messages.map((m, i) => messageRecord(i, m))]);
    let reads = 0;
    const counted: ReadSync = (...args) => {
      reads++;
      return readSync(...args);
    };
    const file = openReadOnly(path);
    if (isLoadError(file)) throw new Error(file.message);
    const source = new SidecarSource(file, counted, 1 << 20);
    try {
      await source.indexTo(file.size, { chunkSize: 1 << 16, maxRecordBytes: 1 << 28, read: counted, progress: { add: () => undefined }, final: true });
      const view = source.indexed().records?.view;
      if (!view) throw new Error('no records');
      reads = 0;
      const tool = view.at(1);
      expect(reads).toBe(0);
      expect(tool?.large).toBeDefined();
      const assistant = view.at(2);
      expect(reads).toBeGreaterThan(0);
      expect(assistant?.large).toBeDefined();
      // Field for field what was written (the content as read from the file).
      for (const [i, m] of [tool, assistant].entries()) {
        const { large, ...fields } = m as ChatMessage;
        expect({ ...fields, content: Buffer.from(large?.read(0, large.length) ?? []).toString('utf8') }).toEqual(messages[i + 1]);
      }
    } finally {
      source.close();
    }
  });
});
