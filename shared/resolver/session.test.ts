import { describe, expect, it } from 'vitest';
import { tool, user, makeReduction } from '../testing/builders';
import type { FileWatch, IndexedRecords, IndexedSnapshot } from './session';
import { FileChangedError, LIGHT_CHECK_STEPS, arrayList, makeSession, resolveSession } from './session';
import type { ChatMessage, Sha256, SidecarHeader } from '../format/types';
import { sha256Hex } from '../format/hash';
import { utf8Encode } from '../format/utf8';
import type { RunningSha256 } from './transcriptHashes';

const view: ChatMessage[] = [user('run the tests'), tool('PASS 1\nPASS 2\n'.repeat(20), 'c1'), tool('FAIL 3\n'.repeat(10), 'c2')];
const r1 = makeReduction(view, { id: 'r1', kind: 'tool_output_elided', index: 1 });
const r2 = makeReduction(view, { id: 'r2', kind: 'tool_output_elided', index: 2 });
const header: SidecarHeader = { t: 'header', format: 'supercode-sidecar', version: 1, session_id: 's-records', created_at: '2026-01-01T00:00:00Z', model: 'm-header', gate: true, policy: null };

function records(overrides: Partial<IndexedRecords> = {}): IndexedRecords {
  return {
    header,
    view: arrayList(view),
    recorded: arrayList(view),
    log: [r1, r2],
    logLines: [5, 6],
    modelChanges: [],
    findings: [],
    system: () => undefined,
    ...overrides,
  };
}

function snapshot(overrides: Partial<IndexedSnapshot> = {}): IndexedSnapshot {
  return { session_id: 's-snapshot', model: 'm-snapshot', messages: arrayList(view), findings: [], ...overrides };
}

describe('resolveSession (SPEC §3.2)', () => {
  it('records alone: their view is minted, their live log with its lines is the log, the header names session and model', () => {
    const s = resolveSession({ files: [], records: records() });
    expect(s.minted.length).toBe(3);
    expect(s.recorded?.length).toBe(3);
    expect(s.log).toEqual([r1, r2]);
    expect(s.logLines).toEqual([5, 6]);
    expect([s.sessionId, s.model, s.stopped]).toEqual(['s-records', 'm-header', false]);
  });

  it('the model is the snapshot’s, else the last switch’s, else the header’s', () => {
    const change = { line: 9, at: 2, from: 'm-header', to: 'm-switched', reasoning_artifacts_filtered: 0, recount: 0 };
    expect(resolveSession({ files: [], records: records({ modelChanges: [change] }) }).model).toBe('m-switched');
    expect(resolveSession({ files: [], records: records({ modelChanges: [change] }), snapshot: snapshot() }).model).toBe('m-snapshot');
    expect(resolveSession({ files: [], records: records({ header: null }) }).model).toBeNull();
  });

  it('a snapshot’s messages are minted; its reductions are the log, without lines; a sidecar log that differs is log_differs', () => {
    const s = resolveSession({ files: [], records: records(), snapshot: snapshot({ messages: arrayList(view.slice(0, 2)), reductions: [r1] }) });
    expect(s.minted.length).toBe(2);
    expect(s.recorded?.length).toBe(3);
    expect(s.log).toEqual([r1]);
    expect(s.logLines).toBeUndefined();
    expect(s.sessionId).toBe('s-records');
    expect(s.loadFindings.map((f) => f.code)).toEqual(['log_differs']);
    expect(resolveSession({ files: [], records: records(), snapshot: snapshot({ reductions: [r2, r1] }) }).loadFindings).toEqual([]);
  });

  it('a snapshot without reductions keeps the records’ log and its lines', () => {
    const s = resolveSession({ files: [], records: records(), snapshot: snapshot() });
    expect(s.log).toEqual([r1, r2]);
    expect(s.logLines).toEqual([5, 6]);
  });

  it('stopped findings make an empty, stopped session whose check reports only them', () => {
    const stop = { code: 'unsupported_version' as const, severity: 'error' as const, message: 'newer', line: 1 };
    const s = resolveSession({ files: [], records: records(), stopped: [stop] });
    expect([s.minted.length, s.log.length, s.stopped]).toEqual([0, 0, true]);
    expect(makeSession(s).check().findings).toEqual([stop]);
  });
});

describe('makeSession', () => {
  it('serves nothing once a watched file changed, and always names the first change', () => {
    let why: string | undefined;
    const watch: FileWatch = { path: '/x/a.sidecar.jsonl', change: () => why };
    const s = makeSession(resolveSession({ files: [], records: records() }), { watches: [watch] });
    expect(s.expand('r1').ok).toBe(true);
    why = 'it was truncated';
    const out = s.expand('r1');
    expect(out.ok ? undefined : out.error.code).toBe('file_changed');
    expect(() => s.check()).toThrow(FileChangedError);
    why = 'something else';
    expect(s.fileChange()?.message).toMatch(/it was truncated/);
  });

  it('a search in steps checks the sampled bytes before its first step and after its last, and only the stats between', () => {
    const run = (changeAt?: { step: number; light: boolean }) => {
      const asked: boolean[] = [];
      let steps = 0;
      let why: string | undefined;
      const watch: FileWatch = {
        path: '/x/a.sidecar.jsonl',
        change: (light = false) => {
          asked.push(light);
          // A change that stats see shows to every check; one only in the sampled bytes only to whole checks.
          return why !== undefined && (!light || changeAt?.light === true) ? why : undefined;
        },
      };
      const s = makeSession(resolveSession({ files: [], records: records() }), { watches: [watch] });
      const search = s.searchSteps('P[A]SS', { mode: 'regex', step_work: 1, literal_prefilter: false });
      for (;;) {
        const next = search.next();
        if (next.done) return { result: next.value, asked, steps };
        steps++;
        if (changeAt && steps === changeAt.step) why = 'it was rewritten';
      }
    };
    const plain = run();
    expect(plain.result.ok).toBe(true);
    expect(plain.steps).toBeGreaterThanOrEqual(2);
    expect(plain.result.ok ? plain.result.value.total_matches : 0).toBe(2 * 20); // PASS twice in each of the 20 repeats of r1
    // Whole checks at the two ends only, whatever the number of steps.
    expect(plain.asked.filter((light) => !light)).toHaveLength(2);
    expect(plain.asked[0]).toBe(false);
    expect(plain.asked[plain.asked.length - 1]).toBe(false);
    // A light check every LIGHT_CHECK_STEPS steps.
    expect(plain.steps).toBeGreaterThan(LIGHT_CHECK_STEPS);
    expect(plain.asked.filter((light) => light)).toHaveLength(Math.floor(plain.steps / LIGHT_CHECK_STEPS));
    // A change the stats show stops the search at the next light check; one only the sampled bytes show fails its last check.
    const stat = run({ step: 1, light: true });
    expect(stat.result.ok ? undefined : stat.result.error.code).toBe('file_changed');
    expect(stat.steps).toBe(LIGHT_CHECK_STEPS - 1);
    const sampled = run({ step: 1, light: false });
    expect(sampled.result.ok ? undefined : sampled.result.error.code).toBe('file_changed');
    expect(sampled.steps).toBe(plain.steps);
  });

  it('closes once', () => {
    let closes = 0;
    const s = makeSession(resolveSession({ files: [], records: records() }), { close: () => closes++ });
    s.close();
    s.close();
    expect(closes).toBe(1);
  });
});

describe('a session’s nested compactions (SessionEnv.runningSha256)', () => {
  // Eight compactions over one view, each summarizing everything before its end: the transcript of each is the last one's and more.
  const long: ChatMessage[] = Array.from({ length: 80 }, (_, i) => (i % 2 === 0 ? user(`prompt ${i} `.repeat(20)) : tool(`output ${i}\n`.repeat(30), `c${i}`)));
  const nested = Array.from({ length: 8 }, (_, k) => makeReduction(long, { id: `s${k}`, kind: 'summarized', index: 0, end: 10 * (k + 1), group: `g${k}` }));
  const model = resolveSession({ files: [], records: records({ view: arrayList(long), recorded: arrayList(long), log: nested, logLines: nested.map((_, k) => 200 + k) }) });
  /** The §3.5 transcript's length: per message `⟨role[ id]⟩\n` + content + `\n`. */
  const transcriptBytes = (end: number): number => long.slice(0, end).reduce((n, m) => n + utf8Encode(`⟨${m.role}${m.tool_call_id ? ` ${m.tool_call_id}` : ''}⟩\n${m.content}\n`).length, 0);

  it('hashes each byte of the transcripts once across the expands, and expands as a session without it does', () => {
    const fed = { running: 0, whole: 0 };
    /** A running hash over the portable SHA-256 that counts what it is fed. */
    const counting = (kept: Uint8Array[] = []): RunningSha256 => ({
      update: (bytes) => {
        fed.running += bytes.length;
        kept.push(Uint8Array.from(bytes));
      },
      copy: () => counting([...kept]),
      digestHex: () => sha256Hex(kept),
    });
    const sha256: Sha256 = (chunks) => {
      const all = [...chunks];
      for (const c of all) fed.whole += c.length;
      return sha256Hex(all);
    };
    const kept = makeSession(model, { sha256, runningSha256: () => counting() });
    const plain = makeSession(model, { sha256: (chunks) => sha256Hex([...chunks]) });
    for (const r of nested) {
      const a = kept.expand(r.id);
      expect(a.ok).toBe(true);
      expect(a).toEqual(plain.expand(r.id));
    }
    // The longest transcript once through the running hashes; no transcript hashed whole.
    expect(fed.running).toBe(transcriptBytes(80));
    expect(fed.whole).toBe(0);
  });
});
