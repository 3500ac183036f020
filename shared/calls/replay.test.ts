/** The replay rule on small hand-made sidecars — where passes run, what they see. */
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { mintReductions } from '../resolver/mint';
import type { LocatedRecord } from './replay';
import { replayPolicy } from './replay';
import { assistant, tool, user } from '../testing/builders';
import { referenceMintReductions } from '../testing/mintReference';
import type { ChatMessage, Reduction, ReductionPolicy, SidecarRecord } from '../format/types';
import { sha256Hex } from '../format/hash';
import { isWellFormed, utf8Decode, utf8Encode, utf8Length } from '../format/utf8';
import { memorySource } from '../format/bytes';
import { arrayList } from '../resolver/session';
import { inSource, whatIf } from './whatIf';

const POLICY: ReductionPolicy = { protect_last_n_tool_results: 1, max_tool_result_bytes: 50, kept_prefix_bytes: 10, dedupe: true, clear_turns_before: null };
const big = (tag: string) => `${tag}:${'x'.repeat(80)}`;

/** Records on lines 2, 3, …: the header is line 1. */
const located = (records: SidecarRecord[]): LocatedRecord[] => records.map((record, k) => ({ record, line: k + 2 }));
const msg = (i: number, m: ChatMessage): SidecarRecord => ({ t: 'message', i, msg: m });
const red = (r: Reduction): SidecarRecord => ({ t: 'reduction', r });

/** Two turns with a big tool result each: after the second turn the first one is truncated. */
function twoTurns(): { view: ChatMessage[]; records: SidecarRecord[]; minted: Reduction[] } {
  const view = [user('a'), assistant('', 'c1'), tool(big('one'), 'c1'), assistant('done'), user('b'), assistant('', 'c2'), tool(big('two'), 'c2'), assistant('done')];
  const minted = mintReductions(view, POLICY);
  expect(minted.map((r) => [r.kind, r.ptr.index])).toEqual([['tool_output_truncated', 2]]);
  return { view, records: [...view.map((m, i) => msg(i, m)), ...minted.map(red)], minted };
}

describe('replayPolicy: where a pass runs', () => {
  it('after a turn-ending assistant message, comparing the reductions recorded right after it', () => {
    const { records } = twoTurns();
    const result = replayPolicy(located(records), POLICY);
    expect(result.divergences).toEqual([]);
    // Two turn ends, plus the end of the file.
    expect(result.passes).toBe(3);
  });

  it('a batch recorded later than the turn end diverges: the policy mints at the turn end, the late record is its own', () => {
    const { view, records } = twoTurns();
    // The agent appended the truncation one message later, after a new user message.
    const late = mintReductions([...view, user('c')], POLICY);
    const moved = [...records.filter((r) => r.t !== 'reduction'), msg(8, user('c')), ...late.map(red)];
    const found = replayPolicy(located(moved), POLICY).divergences;
    // Line 9 is the turn-ending assistant message (index 7); line 11 the late reduction record.
    expect(found.map((d) => [d.line, d.index, d.recorded?.id ?? null, d.minted?.minted_at ?? null])).toEqual([
      [9, 2, null, 8],
      [11, 2, late[0]?.id, null],
    ]);
  });

  it('an inverted reduction is left alone by later passes; a rewind drops what addresses past it', () => {
    const { records, minted } = twoTurns();
    const id = minted[0]?.id as string;
    const inverted = [...records, { t: 'invert', id } as SidecarRecord, msg(8, user('c')), msg(9, assistant('ok'))];
    const result = replayPolicy(located(inverted), POLICY);
    expect(result.divergences).toEqual([]);
    expect(result.policyLog).toEqual([]);
    const rewound = [...records, { t: 'rewind', to: 2 } as SidecarRecord];
    const after = replayPolicy(located(rewound), POLICY);
    expect(after.divergences).toEqual([]);
    expect(after.view).toHaveLength(2);
    expect([after.recordedLog, after.policyLog]).toEqual([[], []]);
  });

  it('a message record that skips ahead stays out of the view the passes see', () => {
    const { records } = twoTurns();
    const result = replayPolicy(located([...records, msg(20, tool(big('far'), 'c9')), msg(8, assistant('ok'))]), POLICY);
    expect(result.view).toHaveLength(9);
    expect(result.divergences).toEqual([]);
  });
});

/*
 * The replay runs the projection pass once per turn over the whole view. The pass decides on byte
 * counts (measured once per message object, shared/calls/replay.ts) and encodes only what it mints; the
 * reference below is the pass as it was, encoding every tool result it looked at, at every pass.
 */
const PIECES = ['a', 'bc', 'é', '中', '😀', '\ud800', ' ', '\n'];
const contentArb = fc.array(fc.constantFrom(...PIECES), { maxLength: 30 }).map((p) => p.join(''));
const policyArb: fc.Arbitrary<ReductionPolicy> = fc.record({
  protect_last_n_tool_results: fc.integer({ min: 0, max: 3 }),
  max_tool_result_bytes: fc.integer({ min: 0, max: 40 }),
  kept_prefix_bytes: fc.integer({ min: 0, max: 60 }),
  dedupe: fc.boolean(),
  clear_turns_before: fc.option(fc.integer({ min: 0, max: 30 }), { nil: null }),
});

type Step = { t: 'turn'; outputs: { content: string; image: boolean }[]; end: boolean } | { t: 'rewind'; back: number } | { t: 'reduce'; policy: ReductionPolicy; keep: boolean[] } | { t: 'invert'; nth: number };
const stepArb: fc.Arbitrary<Step> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ t: fc.constant('turn' as const), outputs: fc.array(fc.record({ content: fc.oneof(contentArb, fc.constantFrom('same', 'same', 'é'.repeat(30))), image: fc.boolean() }), { maxLength: 3 }), end: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('rewind' as const), back: fc.integer({ min: 0, max: 6 }) }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant('reduce' as const), policy: policyArb, keep: fc.array(fc.boolean(), { minLength: 8, maxLength: 8 }) }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('invert' as const), nth: fc.nat() }) },
);

/** A sidecar's records from steps: turns with tool outputs, rewinds, batches of reductions (some dropped), inverts. */
function recordsOf(steps: readonly Step[]): LocatedRecord[] {
  const view: ChatMessage[] = [];
  const log: Reduction[] = [];
  const out: SidecarRecord[] = [];
  let calls = 0;
  let nextId = 1;
  for (const step of steps) {
    if (step.t === 'turn') {
      const add = (m: ChatMessage) => {
        out.push(msg(view.length, m));
        view.push(m);
      };
      add(user(`q${view.length}`));
      for (const o of step.outputs) {
        const id = `c${++calls}`;
        add(assistant('', id));
        add(o.image ? { ...tool(o.content, id), content_parts: [{ type: 'image', data: 'aGk=' }] } : tool(o.content, id));
      }
      if (step.end) add(assistant('done'));
    } else if (step.t === 'rewind') {
      const to = Math.max(0, view.length - step.back);
      out.push({ t: 'rewind', to });
      view.length = to;
      for (let k = log.length - 1; k >= 0; k--) if ((log[k]?.end ?? (log[k]?.ptr.index ?? 0) + 1) > to) log.splice(k, 1);
    } else if (step.t === 'reduce') {
      const minted = referenceMintReductions(view, step.policy, log, { nextId });
      minted.forEach((r, k) => {
        nextId = Math.max(nextId, Number(r.id.slice(1)) + 1);
        if (step.keep[k % 8]) {
          out.push(red(r));
          log.push(r);
        }
      });
    } else if (log.length > 0) {
      const [gone] = log.splice(step.nth % log.length, 1) as [Reduction];
      out.push({ t: 'invert', id: gone.id });
    }
  }
  return located(out);
}

/** replayPolicy as it was: the same module with the reference pass in place of the incremental one. */
async function referenceReplay(): Promise<typeof replayPolicy> {
  vi.resetModules();
  vi.doMock('../resolver/mint', async () => ({ mintReductions: (await import('../testing/mintReference')).referenceMintReductions }));
  try {
    return (await import('./replay')).replayPolicy;
  } finally {
    vi.doUnmock('../resolver/mint');
    vi.resetModules();
  }
}

describe('replayPolicy is incremental and gives what the pass at every turn gave', () => {
  it('the pass decided on byte counts mints exactly what the encoding pass minted, for any view, policy and log (fast-check)', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(contentArb, fc.boolean(), fc.boolean()), { maxLength: 14 }), policyArb, policyArb, fc.array(fc.boolean(), { minLength: 8, maxLength: 8 }), fc.integer({ min: 1, max: 120 }), (outputs, earlier, policy, keep, nextId) => {
        const view: ChatMessage[] = outputs.flatMap(([content, image, again], k) => {
          const body = again && k > 0 ? (outputs[0]?.[0] ?? content) : content;
          return [assistant('', `c${k}`), image ? { ...tool(body, `c${k}`), content_parts: [{ type: 'image', data: 'aGk=' }] } : tool(body, `c${k}`)];
        });
        const log = referenceMintReductions(view.slice(0, view.length >> 1), earlier).filter((_, k) => keep[k % 8]);
        const seen = new WeakMap<ChatMessage, number>();
        const memo = (m: ChatMessage) => seen.get(m) ?? (seen.set(m, utf8Length(m.content)), utf8Length(m.content));
        const expected = referenceMintReductions(view, policy, log, { nextId });
        expect(mintReductions(view, policy, log, { nextId })).toEqual(expected);
        expect(mintReductions(view, policy, log, { nextId, contentBytes: memo })).toEqual(expected);
        // Some contents' hashes known (a sidecar's long contents are hashed while indexed): only their kept prefixes are encoded.
        const known = (m: ChatMessage) => (keep[(view.indexOf(m) + 3) % 8] ? sha256Hex([utf8Encode(m.content)]) : undefined);
        expect(mintReductions(view, policy, log, { nextId, contentBytes: memo, contentSha256: known })).toEqual(expected);
      }),
      { numRuns: 400 },
    );
  });

  it('replaying any session (turns, rewinds, partial batches, inverts) under any policy gives the reference replay\u2019s result, in both id modes (fast-check)', async () => {
    const reference = await referenceReplay();
    fc.assert(
      fc.property(fc.array(stepArb, { maxLength: 24 }), policyArb, fc.boolean(), (steps, policy, ownIds) => {
        const records = recordsOf(steps);
        expect(replayPolicy(records, policy, { ownIds })).toEqual(reference(records, policy, { ownIds }));
      }),
      { numRuns: 300 },
    );
  });

  it('contents kept in a ByteSource (`large`, content empty: as a sidecar\u2019s long contents are replayed) replay, dedupe against strings and re-project as their strings do (fast-check)', () => {
    const reference = (records: LocatedRecord[], policy: ReductionPolicy) => whatIf(records, policy);
    fc.assert(
      fc.property(fc.array(stepArb, { maxLength: 24 }), policyArb, fc.array(fc.boolean(), { minLength: 8, maxLength: 8 }), fc.boolean(), (steps, policy, keep, ownIds) => {
        const records = recordsOf(steps);
        // Some well-formed contents moved into sources (a lone surrogate is no UTF-8: replay keeps those as strings).
        const inSources = records.map((l, k): LocatedRecord => {
          if (l.record.t !== 'message' || !keep[k % 8] || !isWellFormed(l.record.msg.content)) return l;
          const bytes = utf8Encode(l.record.msg.content);
          return { ...l, record: { ...l.record, msg: { ...l.record.msg, content: '', large: memorySource(bytes) } }, contentBytes: bytes.length };
        });
        const whole = (m: ChatMessage | undefined) => m && (m.large ? { ...(({ large: _l, ...rest }) => rest)(m), content: utf8Decode(m.large.read(0, m.large.length)) } : m);
        const replayed = replayPolicy(inSources, policy, { ownIds });
        expect({ ...replayed, view: replayed.view.map(whole) }).toEqual(replayPolicy(records, policy, { ownIds }));
        const w = whatIf(inSources, policy);
        const shown = w.messages.map((e) => {
          const source = inSource(e, arrayList(w.view));
          return source ? { ...e, content: utf8Decode(source.read(0, source.length)) } : e;
        });
        expect({ ...w, messages: shown, view: w.view.map(whole) }).toEqual(reference(records, policy));
      }),
      { numRuns: 300 },
    );
  });

  it('an output whose hash is known is never encoded whole: a truncation encodes its kept prefix, a duplicate nothing', () => {
    const outputs = ['é'.repeat(5000), 'x'.repeat(7000), '\u{1F600}'.repeat(3000)];
    const records: SidecarRecord[] = [];
    for (let turn = 0, i = 0; turn < 12; turn++) {
      const id = `c${turn}`;
      for (const m of [user(`q${turn}`), assistant('', id), tool(outputs[turn % 3] as string, id), assistant('done')]) records.push(msg(i++, m));
    }
    const policy: ReductionPolicy = { protect_last_n_tool_results: 2, max_tool_result_bytes: 100, kept_prefix_bytes: 11, dedupe: true, clear_turns_before: null };
    const expected = replayPolicy(located(records), policy);
    const withHashes = located(records).map((l) => (l.record.t === 'message' ? { ...l, contentBytes: utf8Length(l.record.msg.content), contentSha256: sha256Hex([utf8Encode(l.record.msg.content)]) } : l));
    const encode = vi.spyOn(TextEncoder.prototype, 'encode');
    try {
      expect(replayPolicy(withHashes, policy)).toEqual(expected);
      expect(expected.policyLog.map((r) => r.kind)).toEqual([...new Array<string>(3).fill('tool_output_truncated'), ...new Array<string>(7).fill('duplicate_output')]);
      expect(encode.mock.calls.filter(([text]) => (text?.length ?? 0) >= 3000)).toEqual([]);
    } finally {
      encode.mockRestore();
    }
  });

  it('an output no pass reduces is never encoded, however many passes look at it; one that is reduced is encoded when it is minted', () => {
    const outputs = ['é'.repeat(5000), 'x'.repeat(7000), '中'.repeat(3000)];
    const records: SidecarRecord[] = [];
    let i = 0;
    for (let turn = 0; turn < 40; turn++) {
      const id = `c${turn}`;
      for (const m of [user(`q${turn}`), assistant('', id), tool(`${outputs[turn % 3]}${turn}`, id), assistant('done')]) records.push(msg(i++, m));
    }
    const encode = vi.spyOn(TextEncoder.prototype, 'encode');
    try {
      const keepAll: ReductionPolicy = { protect_last_n_tool_results: 2, max_tool_result_bytes: 1_000_000, kept_prefix_bytes: 10, dedupe: false, clear_turns_before: null };
      const result = replayPolicy(located(records), keepAll);
      expect(result.passes).toBeGreaterThanOrEqual(40);
      expect(result.policyLog).toEqual([]);
      const encodedChars = encode.mock.calls.reduce((n, [text]) => n + (text?.length ?? 0), 0);
      // Only short things (the stubs' own text) may be encoded; no output of 3,000+ characters.
      expect(encode.mock.calls.filter(([text]) => (text?.length ?? 0) >= 3000)).toEqual([]);
      expect(encodedChars).toBeLessThan(10_000);
      encode.mockClear();
      // A policy that truncates every output but the protected two: each is encoded when minted (and
      // hashed), not again at the passes after.
      const truncate: ReductionPolicy = { ...keepAll, max_tool_result_bytes: 100 };
      const reduced = replayPolicy(located(records), truncate);
      expect(reduced.policyLog).toHaveLength(38);
      const big = encode.mock.calls.filter(([text]) => (text?.length ?? 0) >= 3000).length;
      expect(big).toBe(38);
    } finally {
      encode.mockRestore();
    }
  });
});
