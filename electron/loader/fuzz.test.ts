/**
 * Fuzzing the loader with random mutations of the committed samples (fast-check): byte flips,
 * truncations, line deletions, duplications and swaps, and random JSON field replacement. Each
 * mutant is written to a temp file and read as the app reads it — `loadSession`, `check()`, every
 * live reduction expanded, a search — and none of it may throw. Every expansion that succeeds must
 * be bytes its pointer vouches for: content that re-hashes to `ptr.hash`, or a recorded superset
 * of a minted copy that does. Fuzz longer with `FUZZ_RUNS=5000 npx vitest run electron/loader/fuzz.test.ts`
 * (`FUZZ_SEED=n` replays a run).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { BAD_CORPUS_DIR } from '../../tools/testing/badCorpus';
import { tempDir } from '../../tools/testing/files';
import { unverifiedOutcome } from '../../tools/testing/verifyOutcome';
import { mainScenario } from './claudeCode/testing/build';
import type { LoadedSession, LoadOptions } from './session';
import { loadSession } from './session';

const SAMPLES = join(import.meta.dirname, '../../samples');

/** One session to mutate: one or two files (a sidecar and its snapshot); the mutations hit one of them. */
const seeds: { files: { name: string; bytes: Buffer }[] }[] = [
  ['demo.sidecar.jsonl'],
  ['session.sidecar.jsonl'],
  ['legacy.sidecar.jsonl', 'legacy.session.json'],
  ['session.sidecar.jsonl', 'session.session.json'],
  ['broken/hash_mismatch.sidecar.jsonl'],
  ['broken/malformed_line.sidecar.jsonl'],
  ['broken/overlapping_reductions.sidecar.jsonl'],
  ['broken/recorded_diverges.sidecar.jsonl', 'broken/recorded_diverges.session.json'],
].map((names) => ({ files: names.map((n) => ({ name: basename(n), bytes: readFileSync(join(SAMPLES, n)) })) }));
for (const name of ['duplicate-cycle.sidecar.jsonl', 'dangling-reductions.sidecar.jsonl', 'out-of-order.sidecar.jsonl', 'lone-surrogates.sidecar.jsonl', 'invalid-utf8.sidecar.jsonl', 'nul-bytes.sidecar.jsonl']) {
  seeds.push({ files: [{ name, bytes: readFileSync(join(BAD_CORPUS_DIR, name)) }] });
}
// Real Claude Code transcripts (e2e/fixtures/real/claude-code): the importer's lines are mutated too.
for (const name of ['cc-2.1.42-rewind.jsonl', 'cc-2.1.91-persisted-output.jsonl']) {
  seeds.push({ files: [{ name, bytes: readFileSync(join(import.meta.dirname, '../../e2e/fixtures/real/claude-code', name)) }] });
}
// The Codex importer's real rollouts (small ones) and a synthetic compaction; a SWE-agent trajectory, real and synthetic; a mini-swe-agent one; an OpenHands V0 trajectory, real and condensed; Inspect AI logs (a mutated .eval exercises the zip reader).
for (const path of [
  '../../e2e/fixtures/real/codex/rollout-0.139-review-subagent-ENTIRE.jsonl',
  '../../e2e/fixtures/synthetic/codex/remote-compaction.jsonl',
  '../../e2e/fixtures/synthetic/codex/all-items.jsonl',
  '../../e2e/fixtures/real/swe-agent/sweagenttestrepo-1c2844.traj',
  '../../e2e/fixtures/synthetic/swe-agent/query-cut.traj',
  '../../e2e/fixtures/synthetic/mini-swe-agent/toolcalls.traj.json',
  '../../e2e/fixtures/real/openhands/basic_interactions.json',
  '../../e2e/fixtures/synthetic/openhands/v0-condensed.json',
  '../../e2e/fixtures/synthetic/inspect/compact.json',
  '../../e2e/fixtures/synthetic/inspect/compact.eval',
  '../../e2e/fixtures/real/inspect/log_message_deduplication.eval',
]) {
  seeds.push({ files: [{ name: basename(path), bytes: readFileSync(join(import.meta.dirname, path)) }] });
}

/** Values a field may be replaced with: wrong types, edges of numbers, strings that are not what they claim. */
const nastyValue = fc.oneof(
  fc.constantFrom<unknown>(null, true, false, 0, -1, 1, 0.5, 2 ** 31, 2 ** 53, 1e300, -0, '', 'r1', 'sha256:', '\ud800', '\u27E6reduced\u27E7', [], {}, [0], { index: 0 }),
  fc.integer({ min: -2, max: 200 }),
  fc.string({ maxLength: 12 }),
);

type Mutation =
  | { kind: 'flip'; at: number; xor: number }
  | { kind: 'truncate'; at: number }
  | { kind: 'delete' | 'duplicate'; line: number }
  | { kind: 'swap'; line: number; other: number }
  | { kind: 'field'; line: number; path: number[]; value: unknown };

/** Where in the file (a fraction of its length), uniformly: fast-check's default bias would pile up at the first byte. */
const position = fc.noBias(fc.integer({ min: 0, max: 999_999 })).map((n) => n / 1_000_000);
const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant('flip' as const), at: position, xor: fc.integer({ min: 1, max: 255 }) }),
  fc.record({ kind: fc.constant('truncate' as const), at: position }),
  fc.record({ kind: fc.constantFrom('delete' as const, 'duplicate' as const), line: position }),
  fc.record({ kind: fc.constant('swap' as const), line: position, other: position }),
  fc.record({ kind: fc.constant('field' as const), line: position, path: fc.array(fc.nat(), { minLength: 1, maxLength: 4 }), value: nastyValue }),
);

const pick = (n: number, at: number) => Math.min(n - 1, Math.floor(at * n));

/** Replaces the value at a path chosen by `path` (indices into each level's keys) in a JSON value. */
function replaceField(value: unknown, path: readonly number[], replacement: unknown): unknown {
  if (path.length === 0 || typeof value !== 'object' || value === null) return replacement;
  const keys = Object.keys(value);
  if (keys.length === 0) return replacement;
  const key = keys[(path[0] ?? 0) % keys.length] as string;
  const copy: Record<string, unknown> = Array.isArray(value) ? (value.slice() as unknown as Record<string, unknown>) : { ...(value as Record<string, unknown>) };
  copy[key] = replaceField(copy[key], path.slice(1), replacement);
  return copy;
}

/** Applies one mutation; `document` says the file is one JSON document (a snapshot), not JSON Lines. */
function mutate(bytes: Buffer, m: Mutation, document: boolean): Buffer {
  if (bytes.length === 0) return bytes;
  switch (m.kind) {
    case 'flip': {
      const out = Buffer.from(bytes);
      const i = pick(out.length, m.at);
      out[i] = (out[i] ?? 0) ^ m.xor;
      return out;
    }
    case 'truncate':
      return bytes.subarray(0, pick(bytes.length, m.at));
    default: {
      const lines = bytes.toString('latin1').split('\n');
      const i = pick(lines.length, m.line);
      if (m.kind === 'delete') lines.splice(i, 1);
      else if (m.kind === 'duplicate') lines.splice(i, 0, lines[i] ?? '');
      else if (m.kind === 'swap') {
        const j = pick(lines.length, m.other);
        [lines[i], lines[j]] = [lines[j] ?? '', lines[i] ?? ''];
      } else if (m.kind === 'field') {
        // A snapshot is one document: replace a field of the whole of it.
        const target = document ? -1 : i;
        const text = document ? bytes.toString('utf8') : Buffer.from(lines[target] ?? '', 'latin1').toString('utf8');
        let parsed: unknown;
        try {
          parsed = JSON.parse(text);
        } catch {
          return bytes;
        }
        const replaced = JSON.stringify(replaceField(parsed, m.path, m.value)) ?? 'null';
        if (target === -1) return Buffer.from(replaced, 'utf8');
        lines[target] = Buffer.from(replaced, 'utf8').toString('latin1');
      }
      return Buffer.from(lines.join('\n'), 'latin1');
    }
  }
}

/**
 * Loads a mutant: an error must carry a known code (counted as `failed`); an opened session's check
 * must run and count its findings (counted as `opened`). Undefined when it did not open.
 */
async function openChecked(paths: string[], options: LoadOptions, outcomes: { opened: number; failed: number }): Promise<LoadedSession | undefined> {
  const loaded = await loadSession(paths, options);
  if (!loaded.ok) {
    outcomes.failed++;
    expect(['unrecognized_file', 'unreadable_file', 'usage']).toContain(loaded.error.code);
    return undefined;
  }
  outcomes.opened++;
  const report = loaded.session.check();
  expect(report.summary.errors + report.summary.warnings).toBe(report.findings.length);
  return loaded.session;
}

const tmp = tempDir('session-inspector-fuzz-');
afterAll(() => tmp.cleanup());

describe('fuzzing the loader with mutated samples', () => {
  it('never throws, and every expansion that succeeds verifies', async () => {
    let run = 0;
    const outcomes = { opened: 0, failed: 0, expanded: 0, refused: 0 };
    await fc.assert(
      fc.asyncProperty(
        fc.nat({ max: seeds.length - 1 }),
        fc.nat(),
        fc.array(mutation, { minLength: 1, maxLength: 4 }),
        fc.string({ minLength: 1, maxLength: 3 }),
        async (seedIndex, fileChoice, mutations, query) => {
          const seed = seeds[seedIndex] as (typeof seeds)[number];
          const target = fileChoice % seed.files.length;
          const dir = tmp.path(`run-${run++}`);
          mkdirSync(dir);
          const paths = seed.files.map((f, k) => {
            const path = join(dir, f.name);
            const document = f.name.endsWith('.session.json');
            writeFileSync(path, k === target ? mutations.reduce((b, m) => mutate(b, m, document), f.bytes) : f.bytes);
            return path;
          });
          const s = await openChecked(paths, {}, outcomes);
          if (!s) return;
          try {
            for (const r of s.log) {
              const whole = s.expand(r.id);
              if (!whole.ok) {
                outcomes.refused++;
                continue;
              }
              outcomes.expanded++;
              expect(unverifiedOutcome(s.log, s.minted, whole.value)).toBeUndefined();
              const total = whole.value.total_bytes;
              const part = s.expand(r.id, [Math.floor(total / 3), Math.floor(total / 2) + 1]);
              expect(part.ok).toBe(true);
            }
            s.search(query);
            s.search(query, { mode: 'regex', case_sensitive: false });
            for (let i = 0; i < s.minted.length; i++) s.minted.at(i);
          } finally {
            s.close();
          }
        },
      ),
      {
        numRuns: Number(process.env.FUZZ_RUNS ?? 400),
        ...(process.env.FUZZ_SEED ? { seed: Number(process.env.FUZZ_SEED) } : {}),
        // Found by the fuzzer: a flipped byte made a 4 KiB+ output invalid UTF-8; read by range, its
        // bytes did not match the text expand returned. Such a line is now read as text.
        examples: [[2, 0, [{ kind: 'flip', at: 0.505157, xor: 128 }, { kind: 'delete', line: 0 }], ' ']],
      },
    );
    // The mutants exercise both sides: files that open and expansions that verify, and ones that do not.
    expect(outcomes.opened).toBeGreaterThan(100);
    expect(outcomes.expanded).toBeGreaterThan(100);
    expect(outcomes.refused).toBeGreaterThan(0);
  });
});

// ---------------------------------------------------------------------------------------------
// Format-aware mutations of Claude Code transcripts and Codex rollouts (SPEC §10.1).

type AgentFormat = 'claude-code' | 'codex';
const REAL_CC = join(import.meta.dirname, '../../e2e/fixtures/real/claude-code');
const agentSeeds: { format: AgentFormat; name: string; bytes: Buffer }[] = [
  { format: 'claude-code', name: 'rewind.jsonl', bytes: readFileSync(join(REAL_CC, 'cc-2.1.42-rewind.jsonl')) },
  { format: 'claude-code', name: 'synthetic.jsonl', bytes: Buffer.from(mainScenario().text, 'utf8') },
  { format: 'claude-code', name: 'compact-nowhere.jsonl', bytes: readFileSync(join(BAD_CORPUS_DIR, 'cc-compact-nowhere.jsonl')) },
  { format: 'codex', name: 'review.jsonl', bytes: readFileSync(join(import.meta.dirname, '../../e2e/fixtures/real/codex/rollout-0.139-review-subagent-ENTIRE.jsonl')) },
  { format: 'codex', name: 'all-items.jsonl', bytes: readFileSync(join(import.meta.dirname, '../../e2e/fixtures/synthetic/codex/all-items.jsonl')) },
  { format: 'codex', name: 'two-compactions.jsonl', bytes: readFileSync(join(import.meta.dirname, '../../e2e/fixtures/synthetic/codex/two-compactions.jsonl')) },
];
/** The `--format` adapter name of each. */
const ADAPTER: Record<AgentFormat, string> = { 'claude-code': 'claude-code', codex: 'codex' };

/** Fields each format's importer reads (paths into a record), whose type a mutation flips. */
const AGENT_FIELDS: Record<AgentFormat, string[][]> = {
  'claude-code': [['type'], ['uuid'], ['parentUuid'], ['logicalParentUuid'], ['isSidechain'], ['sessionId'], ['agentId'], ['message'], ['message', 'id'], ['message', 'content'], ['message', 'content', '0'], ['message', 'content', '0', 'id'], ['message', 'content', '0', 'tool_use_id'], ['message', 'content', '0', 'content'], ['microcompactMetadata', 'compactedToolIds'], ['isCompactSummary'], ['toolUseResult']],
  codex: [['type'], ['payload'], ['payload', 'type'], ['payload', 'role'], ['payload', 'content'], ['payload', 'call_id'], ['payload', 'output'], ['payload', 'arguments'], ['payload', 'replacement_history'], ['payload', 'replacement_history', '0'], ['payload', 'message'], ['payload', 'model'], ['payload', 'id'], ['payload', 'summary']],
};
/** Fields that hold an id another record refers to: a mutation points them at another record's, or at nothing. */
const ID_FIELDS: Record<AgentFormat, string[][]> = {
  'claude-code': [['uuid'], ['parentUuid'], ['logicalParentUuid'], ['message', 'id'], ['message', 'content', '0', 'id'], ['message', 'content', '0', 'tool_use_id']],
  codex: [['payload', 'call_id'], ['payload', 'id']],
};

/** A value of another type than `v`. */
function otherType(v: unknown, choice: number): unknown {
  const options: unknown[] = [42, 'text', null, [], {}, true, [1, 'x'], { type: 'text' }].filter((o) => typeof o !== typeof v || Array.isArray(o) !== Array.isArray(v) || (o === null) !== (v === null));
  return options[choice % options.length];
}

function getAt(v: unknown, path: readonly string[]): unknown {
  let cur = v;
  for (const k of path) cur = typeof cur === 'object' && cur !== null ? (cur as Record<string, unknown>)[k] : undefined;
  return cur;
}

function setAt(v: unknown, path: readonly string[], value: unknown): boolean {
  let cur = v;
  for (const k of path.slice(0, -1)) cur = typeof cur === 'object' && cur !== null ? (cur as Record<string, unknown>)[k] : undefined;
  if (typeof cur !== 'object' || cur === null) return false;
  (cur as Record<string, unknown>)[path[path.length - 1]!] = value;
  return true;
}

type AgentMutation =
  | { kind: 'delete' | 'duplicate'; line: number }
  | { kind: 'swap'; line: number; other: number }
  | { kind: 'cut'; at: number }
  | { kind: 'flip'; at: number; xor: number }
  | { kind: 'retype'; line: number; field: number; choice: number }
  | { kind: 'reid'; line: number; field: number; from: number; fresh: boolean }
  | { kind: 'splice'; line: number; from: number; seed: number };

const agentMutation: fc.Arbitrary<AgentMutation> = fc.oneof(
  fc.record({ kind: fc.constantFrom('delete' as const, 'duplicate' as const), line: position }),
  fc.record({ kind: fc.constant('swap' as const), line: position, other: position }),
  fc.record({ kind: fc.constant('cut' as const), at: position }),
  fc.record({ kind: fc.constant('flip' as const), at: position, xor: fc.integer({ min: 1, max: 255 }) }),
  fc.record({ kind: fc.constant('retype' as const), line: position, field: fc.nat(), choice: fc.nat() }),
  fc.record({ kind: fc.constant('reid' as const), line: position, field: fc.nat(), from: position, fresh: fc.boolean() }),
  fc.record({ kind: fc.constant('splice' as const), line: position, from: position, seed: fc.nat() }),
);

/** Applies one format-aware mutation to the lines of a transcript of `format`. */
function mutateAgent(bytes: Buffer, m: AgentMutation, format: AgentFormat): Buffer {
  if (bytes.length === 0) return bytes;
  if (m.kind === 'cut') return bytes.subarray(0, pick(bytes.length, m.at));
  if (m.kind === 'flip') return mutate(bytes, m, false);
  const lines = bytes.toString('latin1').split('\n');
  const i = pick(lines.length, m.line);
  const parse = (k: number): Record<string, unknown> | undefined => {
    try {
      const v: unknown = JSON.parse(Buffer.from(lines[k] ?? '', 'latin1').toString('utf8'));
      return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
    } catch {
      return undefined;
    }
  };
  const put = (k: number, v: unknown): void => {
    lines[k] = Buffer.from(JSON.stringify(v), 'utf8').toString('latin1');
  };
  switch (m.kind) {
    case 'delete':
      lines.splice(i, 1);
      break;
    case 'duplicate':
      lines.splice(i, 0, lines[i] ?? '');
      break;
    case 'swap': {
      const j = pick(lines.length, m.other);
      [lines[i], lines[j]] = [lines[j] ?? '', lines[i] ?? ''];
      break;
    }
    case 'retype': {
      const rec = parse(i);
      const path = AGENT_FIELDS[format][m.field % AGENT_FIELDS[format].length]!;
      if (rec && setAt(rec, path, otherType(getAt(rec, path), m.choice))) put(i, rec);
      break;
    }
    case 'reid': {
      const rec = parse(i);
      const path = ID_FIELDS[format][m.field % ID_FIELDS[format].length]!;
      const donor = parse(pick(lines.length, m.from));
      const id = m.fresh ? 'ffffffff-ffff-4fff-8fff-ffffffffffff' : getAt(donor, path);
      if (rec && typeof id === 'string' && setAt(rec, path, id)) put(i, rec);
      break;
    }
    case 'splice': {
      // A record of the other format in the middle of this one.
      const others = agentSeeds.filter((s) => s.format !== format);
      const donor = others[m.seed % others.length]!.bytes.toString('latin1').split('\n');
      lines.splice(i, 0, donor[pick(donor.length, m.from)] ?? '');
      break;
    }
  }
  return Buffer.from(lines.join('\n'), 'latin1');
}

/** Findings about one line of the file: each must name it. */
const LINE_CODES = new Set(['malformed_line', 'truncated_last_line', 'unknown_record']);

describe('fuzzing the Claude Code and Codex importers with format-aware mutations', () => {
  it('never throw or write; a damaged line is a finding naming a line of the file; --format is never overridden', async () => {
    let run = 0;
    const outcomes = { opened: 0, failed: 0, lineFindings: 0 };
    await fc.assert(
      fc.asyncProperty(fc.nat({ max: agentSeeds.length - 1 }), fc.array(agentMutation, { minLength: 1, maxLength: 4 }), fc.boolean(), async (seedIndex, mutations, forced) => {
        const seed = agentSeeds[seedIndex]!;
        const dir = tmp.path(`agent-${run++}`);
        mkdirSync(dir);
        const path = join(dir, seed.name);
        const bytes = mutations.reduce((b, m) => mutateAgent(b, m, seed.format), seed.bytes);
        writeFileSync(path, bytes);
        const lineCount = bytes.length === 0 ? 0 : bytes.toString('latin1').split('\n').length - (bytes[bytes.length - 1] === 0x0a ? 1 : 0);
        try {
          const s = await openChecked([path], forced ? { format: ADAPTER[seed.format] } : {}, outcomes);
          if (!s) return;
          try {
            const report = s.check();
            // Given a format, the file is read as that format, whatever detection would say.
            if (forced) expect(report.summary.format).toBe(seed.format);
            for (const f of report.findings) {
              if (!LINE_CODES.has(f.code)) continue;
              outcomes.lineFindings++;
              expect(f.line, f.message).toBeDefined();
              expect(f.line, f.message).toBeGreaterThanOrEqual(1);
              expect(f.line, f.message).toBeLessThanOrEqual(lineCount);
              expect(f.message).toContain(String(f.line));
            }
            for (const r of s.log) {
              const whole = s.expand(r.id);
              if (whole.ok) expect(unverifiedOutcome(s.log, s.minted, whole.value)).toBeUndefined();
            }
            s.search('e');
          } finally {
            s.close();
          }
        } finally {
          // Nothing is written.
          expect(readFileSync(path).equals(bytes)).toBe(true);
        }
      }),
      { numRuns: Number(process.env.FUZZ_RUNS ?? 200), ...(process.env.FUZZ_SEED ? { seed: Number(process.env.FUZZ_SEED) } : {}) },
    );
    expect(outcomes.opened).toBeGreaterThan(100);
    expect(outcomes.lineFindings).toBeGreaterThan(20);
  });
});
