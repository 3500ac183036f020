/**
 * The context map in tokens (SPEC §15, docs/tokens.md "In the app"): the `calls` reply's recorded
 * columns and cache breaks against the real Claude Code file's own records (read with plain
 * JSON.parse, not through the importer), and the worker's `tokenMap` and `callTokens` replies.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Method, ResultOf, TokenMapFigures } from '../../shared/index';
import { knownOf, mergeTokenMap, methods, parseReply } from '../../shared/index';
import { editedClaudeCodeUsage, rawClaudeCodeCalls, rawClaudeCodeUsage, scaledContext } from '../loader/testing/rawCalls';
import { tempDir } from '../../tools/testing/files';
import { modelPerCall } from './tokenMap';
import type { SessionService } from './service';
import { openedServices } from './testing/services';

const REAL = join(import.meta.dirname, '../../e2e/fixtures/real');
/** 15 calls, two cache breaks (one caused by a persisted output's reduction, one by the cache expiring). */
const CC = join(REAL, 'claude-code/cc-2.1.20-persisted-redacted.jsonl');
const SWE = join(REAL, 'swe-agent/sweagenttestrepo-1c2844.traj');
const NATIVE = join(import.meta.dirname, '../../samples/session.sidecar.jsonl');

const opened = openedServices();

function value<T>(reply: { ok: true; value: T } | { ok: false; error: { code: string; message: string } }): T {
  if (!reply.ok) throw new Error(`expected ok, got ${reply.error.code}: ${reply.error.message}`);
  return reply.value;
}

/** The whole map, asked slice after slice as the renderer does, every reply valid under the contract. */
async function wholeMap(s: SessionService): Promise<TokenMapFigures> {
  let held: TokenMapFigures | null = null;
  for (let turn = 0; ; turn++) {
    expect(turn).toBeLessThan(10_000);
    // As the app asks: with what it holds, merging what is new.
    const known = knownOf(held);
    const reply = checked('tokenMap', await s.handle('tokenMap', known ? { known } : {}));
    const merged: TokenMapFigures | undefined = mergeTokenMap(held, reply);
    if (!merged) throw new Error(`a reply from call ${reply.from + 1} of pass ${reply.pass} does not follow the ${held?.estimated.length ?? 0} calls held of pass ${held?.pass ?? 'none'}`);
    held = merged;
    if (held.progress === null) return held;
  }
}

/** The reply as the renderer's bridge takes it: validated against the contract. */
function checked<M extends Method>(method: M, reply: unknown): ResultOf<M> {
  return value(parseReply(method, reply));
}

/** Each call's `cache_read_input_tokens`, from the last line of its `message.id` (as the raw usage helpers read the context). */
function rawCacheReads(path: string): number[] {
  const records = readFileSync(path, 'utf8')
    .split('\n')
    .flatMap((t) => {
      try {
        return [JSON.parse(t) as { type?: string; message?: { id?: string; usage?: { cache_read_input_tokens?: number } } }];
      } catch {
        return [];
      }
    });
  return rawClaudeCodeCalls(path).map((c) => {
    let read = 0;
    for (const r of records) if (r.type === 'assistant' && r.message?.id === c.id && r.message.usage) read = r.message.usage.cache_read_input_tokens ?? 0;
    return read;
  });
}

describe('calls: the recorded columns and the cache breaks, as the file records them', () => {
  it('a real Claude Code file: context and cache reads equal the raw records; every fall of ≥ 1,024 tokens and ≥ 10 % is a break with the fall as tokens rewritten', async () => {
    const s = await opened(CC);
    const reply = checked('calls', s.handle('calls', methods.calls.params.parse({})));
    const usage = rawClaudeCodeUsage(CC);
    const calls = rawClaudeCodeCalls(CC);
    expect(reply.recorded?.context).toEqual(calls.map((c) => usage.get(c.line)?.context ?? null));
    const reads = rawCacheReads(CC);
    expect(reply.recorded?.cache_read).toEqual(reads);
    const falls = reads.flatMap((r, k) => {
      const prev = reads[k - 1];
      return k > 0 && prev !== undefined && prev - r >= 1024 && prev - r >= prev * 0.1 ? [{ call: k + 1, tokens_rewritten: prev - r }] : [];
    });
    expect(falls.length).toBeGreaterThan(0);
    expect(reply.cache_breaks?.map((b) => ({ call: b.call, tokens_rewritten: b.tokens_rewritten }))).toEqual(falls);
    // The one a reduction caused names it, and the message it rewrote.
    const caused = reply.cache_breaks?.find((b) => b.cause?.reduction !== undefined);
    expect(caused?.cause?.reduction).toMatch(/^cc-persisted-/);
  });

  it('a native session records no usage: no cache breaks, no compaction tokens', async () => {
    const s = await opened(NATIVE);
    const reply = value(s.handle('calls', methods.calls.params.parse({})));
    expect(reply.cache_breaks).toBeUndefined();
    expect(reply.compaction_tokens).toBeUndefined();
  });
});

describe('tokenMap', () => {
  it('a real Claude Code file: no estimate where the call records its context, approximate, calibrated on the file, the window of its model, hidden tokens unknown where the originals are not in the file', async () => {
    const s = await opened(CC);
    const map = value(s.handle('calls', methods.calls.params.parse({})));
    const reply = await wholeMap(s);
    expect(reply.estimated).toHaveLength(map.calls);
    expect(reply.partial).toBe(false);
    expect(reply.approximate).toBe(true);
    expect(reply.calibration?.factor).toBeGreaterThan(1);
    expect(reply.window.every((w) => w === 200_000)).toBe(true);
    // The map draws the recorded context where there is one: the input is estimated only where there is none.
    reply.estimated.forEach((e, k) => expect([k + 1, e === null]).toEqual([k + 1, (map.recorded?.context[k] ?? null) !== null]));
    expect(reply.estimated.some((e) => e === null)).toBe(true);
    // The calls that record none (sidechains, synthetic turns) are estimated, and inputs only grow here (no compaction).
    const estimated = reply.estimated.filter((e): e is number => e !== null);
    for (let k = 1; k < estimated.length; k++) expect(estimated[k]).toBeGreaterThanOrEqual(estimated[k - 1] ?? 0);
    // The persisted output's original is not in this file: hidden tokens are unknown (null) where bytes are hidden, never 0.
    reply.hidden.forEach((h, k) => expect([k + 1, h]).toEqual([k + 1, (map.hidden[k] ?? 0) > 0 ? null : 0]));
    expect(map.hidden.some((h) => h > 0)).toBe(true);
    // Asked again: the same figures (kept for the open), whole to an asker holding none, nothing new to one holding them all.
    expect(mergeTokenMap(null, checked('tokenMap', await s.handle('tokenMap', {})))).toEqual(reply);
    const again = checked('tokenMap', await s.handle('tokenMap', { known: { pass: reply.pass, calls: reply.estimated.length } }));
    expect([again.from, again.estimated, again.hidden, again.window]).toEqual([reply.estimated.length, [], [], null]);
    expect(mergeTokenMap(reply, again)).toEqual(reply);
  });

  it('a real Claude Code file holding its originals: hidden tokens exactly where hidden bytes are', async () => {
    const s = await opened(join(REAL, 'claude-code/cc-2.1.17-persisted-bash.jsonl'));
    const map = value(s.handle('calls', methods.calls.params.parse({})));
    const reply = await wholeMap(s);
    reply.hidden.forEach((h, k) => expect([k + 1, (h ?? 0) > 0]).toEqual([k + 1, (map.hidden[k] ?? 0) > 0]));
    expect(map.hidden.some((h) => h > 0)).toBe(true);
  });

  it('a SWE-agent trajectory records no usage: estimates of every call, not approximate (a GPT model), no Claude calibration', async () => {
    const s = await opened(SWE);
    const map = value(s.handle('calls', methods.calls.params.parse({})));
    const reply = await wholeMap(s);
    expect(map.recorded).toBeUndefined();
    expect(reply.estimated).toHaveLength(map.calls);
    expect(reply.estimated.every((t) => t !== null && t > 0)).toBe(true);
    expect(reply.calibration).toBeNull();
  });
});

describe('a calibration the file does not support', () => {
  it('a real Claude Code file whose usage is scaled ×60: the map and a call say the default they used and the fit they refused, valid under the contract', async () => {
    const tmp = tempDir('session-inspector-refused-');
    try {
      const path = tmp.path('scaled.jsonl');
      writeFileSync(path, editedClaudeCodeUsage(join(REAL, 'claude-code/cc-2.1.14-two-compactions.jsonl'), scaledContext(60)));
      const s = await opened(path);
      const map = await wholeMap(s);
      expect(map.calibration).toMatchObject({ factor: 1.3, source: 'default' });
      expect(map.calibration?.refused?.factor).toBeGreaterThan(4);
      const call = checked('callTokens', await s.handle('callTokens', { call: 2 }));
      expect(call.calibration).toEqual(map.calibration);
    } finally {
      tmp.cleanup();
    }
  });
});

describe('callTokens', () => {
  it('a real Claude Code call: the recorded usage as the file states it, per-message estimates summing to the total, and what was sent but not recorded', async () => {
    const s = await opened(CC);
    const usage = rawClaudeCodeUsage(CC);
    const calls = rawClaudeCodeCalls(CC);
    for (const call of [1, 8, calls.length]) {
      const reply = checked('callTokens', await s.handle('callTokens', { call }));
      const raw = usage.get(calls[call - 1]?.line ?? -1)?.context;
      expect(reply.recorded?.context).toBe(raw);
      expect(reply.recorded?.source).toBe('recorded');
      expect(reply.messages).toHaveLength(reply.messages_total);
      expect(reply.index).toHaveLength(reply.messages_total);
      expect(reply.messages.reduce((a, b) => a + b, 0)).toBe(reply.total.tokens);
      expect(reply.total).toMatchObject({ source: 'estimated', approximate: true });
      expect(reply.breakdown.recorded).toBe(raw);
      expect(reply.breakdown.not_in_file).toBe((raw ?? 0) - reply.breakdown.in_file);
      expect(reply.calibration?.source).toBe('file');
    }
  });

  it('a call that is none of the session’s is refused, naming the calls there are', async () => {
    const s = await opened(CC);
    const reply = await s.handle('callTokens', { call: 9999 });
    expect(reply.ok ? null : [reply.error.code, reply.error.message]).toEqual(['invalid_request', 'call 9999 is no model call of this session: it has calls 1 to 15']);
  });
});

describe('modelPerCall', () => {
  it('the model before the first switch is its `from`; each switch holds from its call on', () => {
    expect(modelPerCall({ calls: 5, model_switches: [{ call: 4, from: 'b', to: 'c' }, { call: 2, from: 'a', to: 'b' }] }, 'z')).toEqual(['a', 'b', 'b', 'c', 'c']);
    expect(modelPerCall({ calls: 2, model_switches: [] }, 'z')).toEqual(['z', 'z']);
  });
});
