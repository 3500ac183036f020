/**
 * `hiddenTokens` on a row that carries thousands of reductions (a file that addresses one message
 * again and again): the row is projected once per view, not once per ask, so the chips' repeated
 * asks stay within their budget instead of re-projecting the whole row each time (the page's rows
 * waited behind those asks).
 */
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { describe, expect, it, vi } from 'vitest';
import { stubText } from '../../shared/format/constants';
import * as shared from '../../shared/index';
import { parseReply } from '../../shared/index';
import { serviceFixture, value } from './testing/serviceTests';

vi.mock('../../shared/index', async (original) => {
  const actual = await original<typeof import('../../shared/index')>();
  return { ...actual, projectView: vi.fn(actual.projectView) };
});

const { tmp, opened } = serviceFixture('session-inspector-hidden-tokens-rows-');
const REDUCTIONS = 5_000;
const OUTPUT = '$ npm test\nPASS a.test.ts\nFAIL b.test.ts: expected 3, got 4\n';
const id = (k: number): string => `r${k + 1}`;

function writeManyOnOneRow(path: string): void {
  const ptr = { index: 2, hash: `sha256:${createHash('sha256').update(OUTPUT).digest('hex')}`, bytes: Buffer.byteLength(OUTPUT) };
  const lines = [
    { t: 'header', format: 'supercode-sidecar', version: 1, session_id: 's-many', created_at: '2026-12-01T00:00:00Z', model: 'm', gate: true, policy: null },
    { t: 'message', i: 0, msg: { role: 'user', content: 'Run the tests.' } },
    { t: 'message', i: 1, msg: { role: 'assistant', content: '', tool_calls: [{ id: 'call_1', name: 'shell', arguments: '{"cmd":"npm test"}' }] } },
    { t: 'message', i: 2, msg: { role: 'tool', tool_call_id: 'call_1', content: OUTPUT } },
    { t: 'message', i: 3, msg: { role: 'assistant', content: 'One test fails.' } },
    ...Array.from({ length: REDUCTIONS }, (_, k) => ({ t: 'reduction', r: { id: id(k), kind: 'tool_output_elided', ptr, stub: stubText(id(k), 'tool_output_elided', ptr.bytes), minted_at: 4 } })),
  ];
  writeFileSync(path, `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);
}

describe('hiddenTokens on a row of thousands of reductions', () => {
  it('projects the row once per view, however many asks the chips make, and counts every asked reduction', async () => {
    const file = tmp.path('many.sidecar.jsonl');
    writeManyOnOneRow(file);
    const s = await opened([file]);
    const projections = vi.mocked(shared.projectView);
    projections.mockClear();
    // The chips of the row and of its list, asked in groups of nine as they mount, each group until none is pending.
    const counted = new Map<string, number | null>();
    for (let group = 0; group < 6; group++) {
      let asking = Array.from({ length: 9 }, (_, k) => id(group * 500 + k));
      for (let turn = 0; asking.length > 0; turn++) {
        expect(turn).toBeLessThan(1_000);
        const reply = value(parseReply('hiddenTokens', s.handle('hiddenTokens', { ids: asking })));
        for (const f of reply.reductions) counted.set(f.id, f.original?.tokens ?? null);
        asking = reply.pending;
      }
    }
    expect(counted.size).toBe(54);
    // Every reduction addresses the same original: one figure for all.
    expect(new Set(counted.values()).size).toBe(1);
    expect([...counted.values()][0]).toBeGreaterThan(0);
    expect(projections).toHaveBeenCalledTimes(1);
  });
});
