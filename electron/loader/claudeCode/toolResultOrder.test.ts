/**
 * Parallel tool calls: Claude Code writes each result as it completes, and the model is given them
 * in that order (docs/formats/claude-code.md, "Parallel tool calls"). The expected order is read
 * from the raw lines of real transcripts, not from the importer.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { LoadedSession } from '../../../shared/resolver/session';
import { loadSession } from '../session';

const REAL = join(import.meta.dirname, '../../../e2e/fixtures/real/claude-code');
const FILES = [
  'cc-2.1.7-parallel-results.jsonl',
  'cc-2.1.119-parallel-results-cut.jsonl',
  'cc-2.1.17-persisted-bash.jsonl',
  'cc-2.1.17-subagent/29ccd257-68b1-427f-ae5f-6524b7cb6f20/subagents/agent-a2271d1.jsonl',
];

interface RawResponse {
  /** The tool_use ids of one API response (one `message.id`), in the order the model wrote them. */
  calls: string[];
  /** The same ids in the order their tool_result blocks stand in the file. */
  results: string[];
}

/** Every response with two or more tool calls, read from the file's own lines. */
function rawResponses(path: string): RawResponse[] {
  const byMessage = new Map<string, RawResponse>();
  const responseOf = new Map<string, RawResponse>();
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    const r = JSON.parse(line) as { type?: string; message?: { id?: string; content?: unknown } };
    const content = Array.isArray(r.message?.content) ? (r.message.content as { type?: string; id?: string; tool_use_id?: string }[]) : [];
    for (const b of content) {
      if (r.type === 'assistant' && b.type === 'tool_use' && b.id !== undefined && r.message?.id !== undefined) {
        const response = byMessage.get(r.message.id) ?? { calls: [], results: [] };
        byMessage.set(r.message.id, response);
        response.calls.push(b.id);
        responseOf.set(b.id, response);
      }
      if (r.type === 'user' && b.type === 'tool_result' && b.tool_use_id !== undefined) {
        const response = responseOf.get(b.tool_use_id);
        if (response && !response.results.includes(b.tool_use_id)) response.results.push(b.tool_use_id);
      }
    }
  }
  return [...byMessage.values()].filter((r) => r.calls.length > 1);
}

/** The view's tool messages right after the assistant message holding `calls`. */
function resultsInView(s: LoadedSession, calls: readonly string[]): string[] | undefined {
  for (let i = 0; i < s.minted.length; i++) {
    const m = s.minted.at(i)!;
    if (m.role !== 'assistant' || m.tool_calls?.[0]?.id !== calls[0]) continue;
    const ids: string[] = [];
    for (let j = i + 1; j < s.minted.length && s.minted.at(j)!.role === 'tool'; j++) ids.push(s.minted.at(j)!.tool_call_id ?? '');
    return ids;
  }
  return undefined;
}

describe('parallel tool results of real transcripts', () => {
  it.each(FILES)('%s: each response’s results follow it in the order the file holds them, not the order of the calls', async (name) => {
    const path = join(REAL, name);
    const responses = rawResponses(path);
    // The file is in the corpus for this: some response's results came back in another order.
    expect(responses.some((r) => r.results.join() !== r.calls.join())).toBe(true);
    const loaded = await loadSession([path]);
    if (!loaded.ok) throw new Error(loaded.error.message);
    const s = loaded.session;
    let checked = 0;
    for (const r of responses) {
      const inView = resultsInView(s, r.calls);
      if (inView === undefined) continue;
      expect(inView, `the results of ${r.calls.join(', ')}`).toEqual(r.results);
      checked++;
    }
    expect(checked).toBe(responses.length);
    s.close();
  });
});
