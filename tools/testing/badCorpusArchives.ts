/**
 * Bad inputs of the Inspect AI `.eval` format (SPEC §10.1; a zip archive): archive bombs. Part of
 * the corpus of `badCorpus.ts`. Each refused entry is a `malformed_line` finding that names it and
 * says why (the code every damaged archive entry gets), and the rest of the log opens.
 *
 * The healthy sample is the synthetic `trim_epoch_1` (e2e/fixtures/synthetic/inspect/): a
 * `turns_cleared` reduction (`inspect-e3-r2-4`) hides the listing of `src/module_*.py`.
 */
import { overlappingZip, syntheticSamples, zipOf, zstdWindowFrame } from '../../electron/loader/inspect/testing/synthetic';
import type { FormatBadInput } from './badCorpusFormats';

const json = (v: unknown): Buffer => Buffer.from(JSON.stringify(v), 'utf8');
const HEADER = json({ version: 2, status: 'success', eval: { task: 'bad-archive', model: 'openai/gpt-synthetic' } });
const EXPAND = { 'inspect-e3-r2-4': 'ok' } as const;
const SEARCH = { query: 'src/module_3.py', matches: 1 };

/** 0xA7: a window of 2^30 + 7/8 of it, 1.875 GiB (RFC 8878 §3.1.1.1.2). */
const WINDOW_1_875_GIB = 0xa7;

/** A `.eval` of a few hundred bytes whose one sample is a zstd frame declaring a 1.875 GiB window over 30 bytes. */
function windowBomb(): FormatBadInput {
  const tiny = json({ id: 1, epoch: 1, messages: [] });
  return {
    name: 'inspect-zstd-window-bomb.eval',
    what: "a .eval whose sample entry (zstd) is a frame declaring a 1.875 GiB window over a few bytes of content: a decoder that sizes its window from the header allocates it",
    bytes: zipOf([
      { name: 'header.json', data: HEADER },
      { name: 'samples/1_epoch_1.json', data: tiny, method: 93, body: zstdWindowFrame(tiny, WINDOW_1_875_GIB) },
    ]),
    error: null,
    findings: ['malformed_line'],
    finding_lines: [null],
    check_exit: 1,
    expand: {},
    search: { query: 'epoch', matches: 0 },
  };
}

/** A `.eval` whose directory lists a healthy sample's bytes under two more names. */
function overlappingEntries(): FormatBadInput {
  const { trim1 } = syntheticSamples();
  return {
    name: 'inspect-overlapping-entries.eval',
    what: 'a .eval whose central directory lists one sample`s local header and data three times, under three names (samples/trim_epoch_1.json first)',
    bytes: overlappingZip([{ name: 'header.json', data: HEADER }, { name: 'samples/trim_epoch_1.json', data: json(trim1) }], 3, (k) => (k === 1 ? 'samples/trim_epoch_1.json' : `samples/copy${k}_epoch_1.json`)),
    error: null,
    findings: ['malformed_line', 'malformed_line'],
    finding_lines: [null, null],
    check_exit: 1,
    expand: EXPAND,
    search: SEARCH,
  };
}

/** The committed `.eval` bombs, in the README's order. */
export function archiveBadCorpus(): FormatBadInput[] {
  return [windowBomb(), overlappingEntries()];
}

/** Entries of the generated overlapping archive: 65,535 in all, the most a zip without zip64 lists. */
export const OVERLAPPING_ENTRIES = 65_535;
/** Overlapping entries named one by one in findings (zip.ts), before one finding counts the rest. */
const NAMED_OVERLAPS = 20;

/**
 * A `.eval` of 65,535 entries, 65,533 of them listing the same 1 MiB of summaries (a few KiB of
 * deflate): 64 GiB if each were inflated. Too large a load to commit (5 MB); made at test time.
 */
export function overlapping65535(): Buffer {
  const { trim1 } = syntheticSamples();
  const summary = json([{ id: 'trim', epoch: 1, input: 'a'.repeat(1024 * 1024) }]);
  return overlappingZip(
    [
      { name: 'header.json', data: HEADER },
      { name: 'samples/trim_epoch_1.json', data: json(trim1) },
      { name: '_journal/summaries/1.json', data: summary },
    ],
    OVERLAPPING_ENTRIES - 2,
    (k) => `_journal/summaries/${k}.json`,
  );
}

/** What the generated overlapping archive must give: one finding per named overlap and one for the rest. */
export const OVERLAPPING_65535_EXPECTED = {
  name: 'inspect-overlapping-65535-entries.eval',
  what: `a .eval of ${OVERLAPPING_ENTRIES.toLocaleString('en')} entries, ${(OVERLAPPING_ENTRIES - 2).toLocaleString('en')} of them journal summaries listing the same local header and 1 MiB of data (64 GiB if each were inflated)`,
  error: null,
  findings: Array.from({ length: NAMED_OVERLAPS + 1 }, () => 'malformed_line' as const),
  check_exit: 1 as const,
  expand: EXPAND,
  search: SEARCH,
};
