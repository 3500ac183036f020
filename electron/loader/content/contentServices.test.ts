/**
 * A load's contents use the services it is given (docs/content-services.md), and only those: the
 * parallel scan, the counters, and where the background verifier leaves its work all come from the
 * load options, so a test gives its own and two loads never share them.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { ChatMessage, LoadedSession, Reduction } from '../../../shared/index';
import { makeReduction, tool, user } from '../../../shared/testing/builders';
import { makeHeader, messageRecord, reductionRecord, tempDir, writeSidecar } from '../../../tools/testing/files';
import { startBackgroundVerify } from './backgroundVerify';
import type { ContentServices } from './contentServices';
import { createContentServices } from './contentServices';
import type { FileHits, ParallelScan, RawScanner, ScanNeedle } from './rawScan';
import { loadSession } from '../session';

const tmp = tempDir('session-inspector-services-');
afterAll(() => tmp.cleanup());

const CONTENTS = 4;

/** Tool outputs long enough to be kept in the file (read by range), with escapes, each truncated to 10 bytes. */
function sidecar(name: string): string {
  const output = (k: number) => Array.from({ length: 200 }, () => `\u001b[31merror\u001b[0m "needle-${k}"\tat src/file${k}.ts`).join('\n');
  const view: ChatMessage[] = [user('go')];
  for (let k = 0; k < CONTENTS; k++) view.push(tool(output(k), `c${k}`));
  const log: Reduction[] = [];
  for (let k = 0; k < CONTENTS; k++) log.push(makeReduction(view, { id: `r${k}`, kind: 'tool_output_truncated', index: k + 1, kept_bytes: 10 }));
  return writeSidecar(tmp.path(name), [makeHeader(), ...view.map((m, i) => messageRecord(i, m)), ...log.map(reductionRecord)]);
}

async function load(path: string, services: ContentServices): Promise<LoadedSession> {
  const loaded = await loadSession([path], { services });
  if (!loaded.ok) throw new Error(`${loaded.error.code}: ${loaded.error.message}`);
  return loaded.session;
}

function totalMatches(session: LoadedSession, query: string): number {
  const found = session.search(query, { mode: 'substring', case_sensitive: true, max_matches: 10_000 });
  if (!found.ok) throw new Error(found.error.code);
  return found.value.total_matches;
}

describe('content services passed in the load options', () => {
  it('a search asks the parallel scan the load was given, over the load\'s own file, with the scanner of the needle it searches', async () => {
    const asked: { fd: number; needle: ScanNeedle; scanner: RawScanner }[] = [];
    const scan: ParallelScan = {
      fileHits(fd: number, needle: ScanNeedle, scanner: RawScanner): FileHits | null {
        asked.push({ fd, needle, scanner });
        // Null: the content reads its own bytes, as without a pool.
        return null;
      },
      // Never sure: every content is read.
      noneIn: () => false,
    };
    const path = sidecar('scan.sidecar.jsonl');
    const session = await load(path, createContentServices({ parallelScan: scan }));
    const alone = await load(path, createContentServices());
    try {
      expect(totalMatches(session, 'needle-2')).toBe(200);
      expect(totalMatches(alone, 'needle-2')).toBe(200);
      // Asked for every hidden content, with the needle's raw form and a scanner as long as it.
      expect(asked.length).toBeGreaterThanOrEqual(CONTENTS);
      for (const a of asked) {
        expect(Buffer.from('exact' in a.needle ? a.needle.exact : []).toString()).toBe('needle-2');
        expect(a.scanner.maxLength).toBe('needle-2'.length);
      }
      // One file: every call names the same descriptor.
      expect(new Set(asked.map((a) => a.fd)).size).toBe(1);
    } finally {
      session.close();
      alone.close();
    }
  });

  it('the hashes and kept boundaries a content computes itself are heard by its own load\'s services only', async () => {
    const path = sidecar('events.sidecar.jsonl');
    const counts = { a: 0, b: 0, boundariesA: 0 };
    const a = await load(path, createContentServices({ events: { hashComputed: () => counts.a++, keptBoundaryDecoded: () => counts.boundariesA++ } }));
    const b = await load(path, createContentServices({ events: { hashComputed: () => counts.b++ } }));
    try {
      expect(totalMatches(b, 'needle-')).toBe(CONTENTS * 200);
      expect(counts).toEqual({ a: 0, b: CONTENTS, boundariesA: 0 });
      expect(totalMatches(a, 'needle-')).toBe(CONTENTS * 200);
      expect(counts.a).toBe(CONTENTS);
      expect(counts.boundariesA).toBeGreaterThan(0);
      // Remembered with each load's index: a second search computes no hash.
      expect(totalMatches(a, 'needle-')).toBe(CONTENTS * 200);
      expect(counts.a).toBe(CONTENTS);
    } finally {
      a.close();
      b.close();
    }
  });

  it('the background verifier\'s hashes reach the contents through the services it is handed: those the session was loaded with, not another load\'s', async () => {
    const path = sidecar('verified.sidecar.jsonl');
    let computed = 0;
    const services = createContentServices({ events: { hashComputed: () => computed++ } });
    const session = await load(path, services);
    const other = createContentServices();
    try {
      // Handed another load's services: its work never reaches this session, which hashes every content itself.
      const elsewhere = startBackgroundVerify(session, other.prepared, { minBytes: 0 });
      expect(elsewhere).toBeDefined();
      expect(await elsewhere?.done).toEqual({ hashed: CONTENTS, located: CONTENTS });
      expect(totalMatches(session, 'needle-')).toBe(CONTENTS * 200);
      expect(computed).toBe(CONTENTS);
    } finally {
      session.close();
    }
    computed = 0;
    const again = await load(path, services);
    try {
      const verifying = startBackgroundVerify(again, services.prepared, { minBytes: 0 });
      expect(await verifying?.done).toEqual({ hashed: CONTENTS, located: CONTENTS });
      expect(totalMatches(again, 'needle-')).toBe(CONTENTS * 200);
      expect(computed).toBe(0);
    } finally {
      again.close();
    }
  });
});

describe("a search's scanner learns byte frequencies from the whole file", () => {
  /** The first output lacks both letters of the needle's head; the later ones hold many `Z` and few `Q`. */
  function skewed(name: string, outputs: number): string {
    const view: ChatMessage[] = [user('go'), tool('abc def '.repeat(2000), 'c0')];
    for (let k = 1; k < outputs; k++) view.push(tool(`${'ZZZZ yyyy '.repeat(1500)} Q ${k}`, `c${k}`));
    const log = view.slice(1).map((_, k) => makeReduction(view, { id: `r${k}`, kind: 'tool_output_elided', index: k + 1 }));
    return writeSidecar(tmp.path(name), [makeHeader(), ...view.map((m, i) => messageRecord(i, m)), ...log.map(reductionRecord)]);
  }

  /** Where the needle `ZQ-needle` is scanned for from, searched in a file of `outputs` such outputs (none holds it). */
  async function pieceChosen(name: string, outputs: number): Promise<number | undefined> {
    const services = createContentServices();
    const session = await load(skewed(name, outputs), services);
    try {
      expect(totalMatches(session, 'ZQ-needle')).toBe(0);
      return services.scanners.lastForm?.form?.scanner.pieceAt;
    } finally {
      session.close();
    }
  }

  it('picks the piece of a needle that starts at the letter rarest in the file, not in the first content alone', async () => {
    // `Z` and `Q` share a rank; the first content holds neither, the file many `Z` and few `Q`.
    expect(await pieceChosen('skewed.sidecar.jsonl', 12)).toBe(1);
  });

  it('in a file of at most 64 KiB, learns them from the first content read, as before', async () => {
    // The first content holds neither letter: the tie stays with the first.
    expect(await pieceChosen('small.sidecar.jsonl', 2)).toBe(0);
  });
});
