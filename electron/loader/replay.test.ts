/**
 * Policy replay runs over the open session's index (docs/policy-replay.md): it is given the records
 * reading the sidecar again gave, reads only the messages' contents back, and sees the records the
 * session itself shows.
 */
import { readSync, statSync, writeFileSync } from 'node:fs';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import type { LocatedRecord, ReductionPolicy, SidecarHeader, SidecarRecord } from '../../shared/index';
import { replayPolicy, utf8Decode, utf8Length, viewEntries, whatIf } from '../../shared/index';
import { isWellFormed } from '../../shared/format/utf8';
import { json } from '../cli/output';
import { viewOutput, whatIfOutput } from '../cli/view';
import { printedJson, runCli } from '../cli/testing/runCli';
import { assistant, tool, user } from '../../shared/testing/builders';
import { withKeptBytesChanged, withReductionAdded, withReductionRemoved } from '../../tools/samples/policyMutants';
import { generateSession, sidecarText } from '../../tools/samples/sessionGenerator';
import { tempDir } from '../../tools/testing/files';
import { replaySession, whatIfSession } from './replay';
import type { LoadedSession, LoadOptions } from './session';
import { HASH_AT_INDEX_BYTES, MAX_RECORD_BYTES, loadSession, nodeSha256 } from './session';
import { readWhole, recordsReadWhole, sidecarRecordsReadAgain, whatIfReadWhole } from './testing/replayOracle';

const tmp = tempDir('session-inspector-loader-replay-');
afterAll(() => tmp.cleanup());

async function open(path: string, options: LoadOptions = {}): Promise<LoadedSession> {
  const loaded = await loadSession([path], options);
  if (!loaded.ok) throw new Error(`${path}: ${loaded.error.code}: ${loaded.error.message}`);
  return loaded.session;
}

/** `records` with one turn more per output: a tool call answered by that output, then the turn's end. */
function withTurns(records: readonly SidecarRecord[], outputs: readonly string[]): SidecarRecord[] {
  let length = 0;
  for (const r of records) {
    if (r.t === 'message' && r.i <= length) length = Math.max(length, r.i + 1);
    if (r.t === 'rewind') length = Math.min(length, r.to);
  }
  const out = [...records];
  outputs.forEach((content, k) => {
    const id = `call-extra-${k}`;
    for (const msg of [user(`again ${k}`), assistant('', id), tool(content, id), assistant(`done ${k}`)]) out.push({ t: 'message', i: length++, msg });
  });
  return out;
}

const policyArb: fc.Arbitrary<ReductionPolicy> = fc.record({
  protect_last_n_tool_results: fc.integer({ min: 0, max: 4 }),
  max_tool_result_bytes: fc.integer({ min: 0, max: 9000 }),
  kept_prefix_bytes: fc.integer({ min: 0, max: 3000 }),
  dedupe: fc.boolean(),
  clear_turns_before: fc.option(fc.integer({ min: 0, max: 40 }), { nil: null }),
});

/** Outputs around the 4 KiB past which indexing leaves a content in the file: any code units (lone surrogates too), escapes, repeats. */
const outputArb = fc.tuple(fc.string({ unit: 'binary', maxLength: 24 }), fc.integer({ min: 0, max: 600 })).map(([piece, times]) => piece.repeat(times));

const MUTANTS = [(s: ReturnType<typeof generateSession>) => s.records, (s: ReturnType<typeof generateSession>) => withReductionRemoved(s).records, (s: ReturnType<typeof generateSession>) => withKeptBytesChanged(s).records, (s: ReturnType<typeof generateSession>) => withReductionAdded(s).records];

/** Located records without what only the index knows (a content's byte count), contents read whole. */
const plain = (records: readonly LocatedRecord[]) => recordsReadWhole(records).map(({ record, line }) => ({ record, line }));

/**
 * How a sidecar's text is written to the file: as sidecarText gives it; with every `/` escaped
 * (`\/`, an escape JSON.stringify never writes: the same strings); or with every `~` a 0xff byte
 * (no UTF-8: JSON.parse of the line reads U+FFFD).
 */
type Spelling = 'canonical' | 'slashes' | 'bad-utf8';
const spell = (text: string, spelling: Spelling): Buffer =>
  spelling === 'slashes' ? Buffer.from(text.replaceAll('/', '\\/')) : spelling === 'bad-utf8' ? Buffer.from(Buffer.from(text).map((b) => (b === 0x7e ? 0xff : b))) : Buffer.from(text);

let run = 0;

function writePolicy(policy: ReductionPolicy): string {
  const path = tmp.path(`policy-${run++}.json`);
  writeFileSync(path, JSON.stringify(policy));
  return path;
}

/** `view`'s JSON without its token estimates: `tokens_est` for the view and per message. */
function withoutEstimates(stdout: string): unknown {
  const { tokens_est: _t, messages, ...rest } = JSON.parse(stdout) as { messages: Record<string, unknown>[] } & Record<string, unknown>;
  return { ...rest, messages: messages.map(({ tokens_est: _m, ...m }) => m) };
}

/**
 * What `view --policy` and `view` print for the session at `path`: through the command line, or
 * (`printed: 'output'`) the same documents built and written in-process without their token
 * estimates, which the comparisons leave out anyway and which cost seconds on a content of a MiB
 * (docs/token-estimates.md, "Pathological text").
 */
async function printedViews(path: string, session: LoadedSession, policy: ReductionPolicy, printed: 'cli' | 'output'): Promise<{ whatIf: string; view: string }> {
  if (printed === 'cli') return { whatIf: (await runCli(['view', '--policy', writePolicy(policy), path])).stdout, view: (await runCli(['view', path])).stdout };
  return { whatIf: printedJson(whatIfOutput(session, policy, { estimates: false })), view: printedJson(viewOutput(session, undefined, undefined, { estimates: false })) };
}

/** Writes `records`, opens them, and compares what replay is given and gives with the oracle's. */
async function sameAsReadAgain(records: readonly SidecarRecord[], policy: ReductionPolicy, spelling: Spelling = 'canonical', printed: 'cli' | 'output' = 'cli'): Promise<{ indexed: LocatedRecord[]; whole: LocatedRecord[] }> {
  const path = tmp.path(`oracle-${run++}.sidecar.jsonl`);
  writeFileSync(path, spell(sidecarText(records), spelling));
  const session = await open(path);
  try {
    const indexed = [...(session.replayRecords?.(MAX_RECORD_BYTES) ?? [])];
    const readAgain = sidecarRecordsReadAgain(path, statSync(path).size);
    expect(plain(indexed)).toEqual(readAgain);
    for (const { record, contentBytes } of indexed) if (record.t === 'message') expect(contentBytes).toBe(utf8Length(readWhole(record.msg).content));
    const own = (records[0] as SidecarHeader).policy as ReductionPolicy;
    const replayed = replaySession(session).result;
    expect(replayed && { ...replayed, view: replayed.view.map((m) => m && readWhole(m)) }).toEqual(replayPolicy(readAgain, own, { sha256: nodeSha256 }));
    const outcome = whatIfSession(session, policy);
    expect(outcome.ok && { ok: true, value: whatIfReadWhole(outcome.value) }).toEqual({ ok: true, value: whatIf(readAgain, policy, { sha256: nodeSha256 }) });
    // `view --policy` prints the same bytes as the what-if of the records read again.
    const views = await printedViews(path, session, policy, printed);
    const expected = whatIf(readAgain, policy, { sha256: nodeSha256 });
    // Its token estimates (SPEC §15, electron/tokens/estimates.test.ts) aside, field by field.
    expect(withoutEstimates(views.whatIf)).toEqual(JSON.parse(json({ format: 'supercode', call: null, calls: session.calls.length, messages: expected.messages, policy, diff: expected.diff })));
    // `view` prints a content kept in the file as its decoded bytes written by JSON.stringify.
    const input = session.callInput(null);
    if (input) {
      const messages = viewEntries(input).map((e) => {
        const large = e.reductions.length === 0 ? input.minted.at(e.index)?.large : undefined;
        return large ? { ...e, content: utf8Decode(large.read(0, large.length)) } : e;
      });
      expect(withoutEstimates(views.view)).toEqual(JSON.parse(json({ format: 'supercode', call: null, calls: session.calls.length, messages })));
    }
    return { indexed, whole: recordsReadWhole(indexed) };
  } finally {
    session.close();
  }
}

describe('policy replay over the open session', () => {
  it('is given the records reading the sidecar again gave, with their contents\u2019 byte counts, and replays, re-projects and prints them alike (fast-check oracle)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 5000 }),
        fc.boolean(),
        fc.integer({ min: 0, max: MUTANTS.length - 1 }),
        fc.array(outputArb, { maxLength: 4 }),
        policyArb,
        fc.constantFrom<Spelling>('canonical', 'slashes', 'bad-utf8'),
        async (seed, legacy, mutant, outputs, policy, spelling) => {
          // Long outputs with a `/` and a `~` for the spellings to change, one twice (a duplicate).
          const records = withTurns((MUTANTS[mutant] as (typeof MUTANTS)[0])(generateSession({ seed, legacy, messages: 60 })), [...outputs, 'a/b~c '.repeat(900), 'x'.repeat(5000), 'a/b~c '.repeat(900)]);
          const { indexed } = await sameAsReadAgain(records, policy, spelling);
          // Contents indexed without decoding are kept in the file unless their bytes are not what the line parses to.
          const kept = indexed.filter((l) => l.record.t === 'message' && l.record.msg.large !== undefined).length;
          if (spelling === 'canonical') expect(kept).toBeGreaterThanOrEqual(3);
          if (spelling === 'bad-utf8') expect(kept).toBeLessThan(indexed.length);
        },
      ),
      { numRuns: 30 },
    );
  });

  it('a content long enough to be hashed while indexed (twice: a duplicate) is replayed with that hash, as reading it again gives (fast-check oracle)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 5000 }), fc.string({ unit: 'binary', minLength: 1, maxLength: 8 }), policyArb, async (seed, piece, policy) => {
        const huge = piece.repeat(Math.ceil((HASH_AT_INDEX_BYTES + 1000) / piece.length));
        const { indexed, whole } = await sameAsReadAgain(withTurns(generateSession({ seed, messages: 60 }).records, [huge, 'between', huge]), { ...policy, max_tool_result_bytes: policy.max_tool_result_bytes * 200 }, 'canonical', 'output');
        const hashed = indexed.filter((l) => l.contentSha256 !== undefined);
        expect(whole.filter((_, k) => indexed[k]?.contentSha256 !== undefined).map((l) => l.record.t === 'message' && l.record.msg.content === huge)).toEqual([true, true]);
        // Kept in the file unless it holds a lone surrogate (JSON.parse keeps one; no UTF-8 does).
        expect(hashed.map((l) => l.record.t === 'message' && l.record.msg.large !== undefined)).toEqual([isWellFormed(huge), isWellFormed(huge)]);
      }),
      { numRuns: 3 },
    );
  }, 120_000);

  it('reads back only the messages, through the session\u2019s own descriptor: the file is not read and parsed again', async () => {
    const path = tmp.path('reads.sidecar.jsonl');
    const records = generateSession({ seed: 7 }).records;
    writeFileSync(path, sidecarText(records));
    let read = 0;
    const counting = (fd: number, buffer: Uint8Array, offset: number, length: number, position: number) => {
      const n = readSync(fd, buffer, offset, length, position);
      read += n;
      return n;
    };
    const session = await open(path, { readSync: counting });
    try {
      const messageBytes = Buffer.byteLength(sidecarText(records.filter((r) => r.t === 'message' || r.t === 'system')));
      // The contents replay keeps in the file (docs/policy-replay.md): each is read by range for what
      // the passes need of it (checked once, hashed once when a reduction of it is minted, a kept prefix).
      let kept = 0;
      for (const l of session.replayRecords?.(MAX_RECORD_BYTES) ?? []) if (l.record.t === 'message') kept += l.record.msg.large?.length ?? 0;
      expect(kept).toBeGreaterThan(0);
      read = 0;
      const outcome = whatIfSession(session, (records[0] as SidecarHeader).policy as ReductionPolicy);
      expect(outcome.ok).toBe(true);
      // Every message is read back once, a content kept in the file at most twice more, and nothing else.
      expect(read).toBeGreaterThan(0);
      expect(read).toBeLessThanOrEqual(messageBytes + 2 * kept);
      expect(messageBytes).toBeLessThan(statSync(path).size);
    } finally {
      session.close();
    }
  });

  it('sees a record the session recovers after a torn one: the session\u2019s own policy re-projects the view `view` shows, with an empty diff', async () => {
    const records = generateSession({ seed: 3 }).records;
    const lines = sidecarText(records).split('\n');
    // A writer that stopped mid-append, and the next append right after its fragment (the first tool result's line).
    const at = records.findIndex((r) => r.t === 'message' && r.msg.role === 'tool');
    lines[at] = `${(lines[at] as string).slice(0, 40)}${lines[at] as string}`;
    const path = tmp.path('torn.sidecar.jsonl');
    writeFileSync(path, lines.join('\n'));
    const session = await open(path);
    try {
      expect(session.loadFindings.some((f) => f.code === 'malformed_line' && f.line === at + 1)).toBe(true);
      const outcome = whatIfSession(session, (records[0] as SidecarHeader).policy as ReductionPolicy);
      if (!outcome.ok) throw new Error(outcome.note);
      expect(whatIfReadWhole(outcome.value).messages).toEqual(viewEntries(session.callInput(null) ?? { minted: session.minted, log: [] }).map((e) => {
        const large = e.reductions.length === 0 ? session.minted.at(e.index)?.large : undefined;
        return large ? { ...e, content: utf8Decode(large.read(0, large.length)) } : e;
      }));
      expect(outcome.value.diff.counts).toEqual({ added: 0, removed: 0, changed: 0, messages: 0 });
    } finally {
      session.close();
    }
  });
});
