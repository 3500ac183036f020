/**
 * SPEC §16: where the file records the request itself (Inspect's `ModelEvent.call.request`),
 * `export --call N` for that provider prints it as is — JSON-equal to the raw record, read here
 * with plain JSON.parse and yauzl, not through the importer — and says so; another provider, or
 * `--expanded`, converts the call's input and says why (docs/export.md, "Recorded requests").
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { recordedRequestOf } from '../loader/inspect/build';
import { rawInspectCalls, rawInspectSamples, withAttachments } from '../loader/testing/rawInspect';
import { runCli } from './testing/runCli';

const INSPECT = join(import.meta.dirname, '../../e2e/fixtures/real/inspect');
const LOGS = readdirSync(INSPECT)
  .filter((n) => n.endsWith('.json') || n.endsWith('.eval'))
  .map((n) => join(INSPECT, n));

type Obj = Record<string, unknown>;
interface Recorded {
  file: string;
  session: string;
  call: number;
  model: string;
  request: Obj;
}

/** Every call of every sample whose model event records its request, the request with its attachments put back. */
async function recordedCalls(): Promise<Recorded[]> {
  const out: Recorded[] = [];
  for (const file of LOGS) {
    for (const { id, sample } of await rawInspectSamples(file)) {
      const attachments = (sample.attachments ?? {}) as Obj;
      rawInspectCalls(sample).forEach((ev, k) => {
        const call = ev.call as { request?: Obj } | undefined;
        if (call?.request) out.push({ file, session: id, call: k + 1, model: String(ev.model), request: withAttachments(call.request, attachments) as Obj });
      });
    }
  }
  return out;
}

const json = (text: string): Obj => JSON.parse(text) as Obj;

describe("export --call N: Inspect's recorded request", () => {
  it('for the provider it was sent to, prints the request the file records, JSON-equal, and says so', async () => {
    const calls = await recordedCalls();
    // Two real logs record their requests (OpenAI's Chat Completions): thirteen calls.
    expect(new Set(calls.map((c) => c.file)).size).toBe(2);
    expect(calls.length).toBe(13);
    for (const c of calls) {
      expect(c.model.startsWith('openai/'), c.model).toBe(true);
      const label = `${c.file} ${c.session} call ${c.call}`;
      const plain = await runCli(['export', '--call', String(c.call), '--as', 'openai-chat', '--session', c.session, c.file]);
      expect(plain.code, plain.stderr).toBe(0);
      expect(json(plain.stdout), label).toEqual(c.request);
      expect(plain.stderr).toContain('exported as is');
      // Without --as: the provider the recorded request was sent to.
      const notes = await runCli(['export', '--call', String(c.call), '--with-notes', '--session', c.session, c.file]);
      const out = json(notes.stdout) as { request: Obj; not_recorded: string[]; notes: string[]; source: Obj };
      expect(out.request, label).toEqual(c.request);
      expect(out.source).toMatchObject({ format: 'inspect', call: c.call, provider: 'openai-chat', body: 'recorded', expanded: false });
      expect(out.not_recorded).toEqual([]);
      expect(out.notes[0]).toMatch(/^the request the file records as sent \(.*events\[\d+\]\.call\.request\), exported as is$/);
    }
  });

  it('for another provider, or --expanded, converts the call’s input and says why the recorded request is not the body', async () => {
    const [c] = await recordedCalls();
    if (!c) throw new Error('no recorded request in the corpus');
    const other = await runCli(['export', '--call', String(c.call), '--as', 'anthropic', '--with-notes', '--session', c.session, c.file]);
    expect(other.code, other.stderr).toBe(0);
    const out = json(other.stdout) as { request: { messages: unknown[]; model: string }; notes: string[]; source: Obj };
    expect(out.source).toMatchObject({ provider: 'anthropic', body: 'converted' });
    expect(out.request).not.toEqual(c.request);
    // The model as the log names it (with Inspect's provider prefix).
    expect(out.request.model).toBe(`openai/${String(c.request.model)}`);
    expect(out.notes.join(' ')).toContain('not exported as is: it was sent to "openai" (openai-chat), not as anthropic');
    expect(other.stderr).toContain('not exported as is');

    const expanded = await runCli(['export', '--call', String(c.call), '--as', 'openai-chat', '--expanded', '--with-notes', '--session', c.session, c.file]);
    const exp = json(expanded.stdout) as { notes: string[]; source: Obj };
    expect(exp.source).toMatchObject({ provider: 'openai-chat', body: 'converted', expanded: true });
    expect(exp.notes.join(' ')).toContain('--expanded asks for the call without its reductions');
  });

  it('a file that records no request converts, with no note', async () => {
    const file = join(INSPECT, 'log_message_deduplication.eval');
    const r = await runCli(['export', '--call', '1', '--with-notes', file]);
    expect(r.code, r.stderr).toBe(0);
    const out = json(r.stdout) as { notes?: string[]; source: Obj };
    expect(out.source).toMatchObject({ body: 'converted' });
    expect(out.notes).toBeUndefined();
  });
});

describe('recordedRequestOf: the provider of a recorded body and its pooled items', () => {
  const pool = [{ role: 'user', content: 'a' }, { role: 'assistant', content: 'b' }, { role: 'user', content: 'c' }];
  it('puts call_refs ranges of events_data.calls back under call_key', () => {
    const ev = { event: 'model', model: 'openai/gpt-5', call: { request: { model: 'gpt-5', messages: [] }, call_refs: [[0, 1], [2, 3]], call_key: 'messages' } };
    expect(recordedRequestOf(ev, pool, 'w')).toEqual({ provider: 'openai-chat', api: 'openai', where: 'w', body: { model: 'gpt-5', messages: [pool[0], pool[2]] } });
    // A range outside the pool: no recorded request (the body would be wrong).
    expect(recordedRequestOf({ ...ev, call: { ...ev.call, call_refs: [[2, 4]] } }, pool, 'w')).toBeUndefined();
  });
  it('names the API by the model prefix and the body shape; other APIs are none of ours', () => {
    const of = (model: string, request: Obj) => recordedRequestOf({ event: 'model', model, call: { request } }, [], 'w')?.provider;
    expect(of('anthropic/claude-sonnet-4-5', { messages: [], system: 's', max_tokens: 1 })).toBe('anthropic');
    expect(of('openai/gpt-5', { input: [], model: 'gpt-5' })).toBe('openai-responses');
    expect(of('together/meta-llama/x', { messages: [] })).toBe('openai-chat');
    expect(of('google/gemini-2.5-pro', { contents: [] })).toBeNull();
    expect(of('mistral/mistral-large', { messages: [] })).toBeNull();
    expect(recordedRequestOf({ event: 'model', model: 'openai/gpt-5' }, [], 'w')).toBeUndefined();
  });
});
