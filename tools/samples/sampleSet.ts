/**
 * The committed sample set (samples/ in the repository), as file paths relative to that folder and
 * their contents. Pure: generate.ts writes it, and a test checks the committed files never drift
 * from it. samples/demo.sidecar.jsonl (SPEC §9's example) is hand-written and not part of the set.
 */
import type { BrokenSample } from './brokenSamples';
import { brokenManifest, brokenSamples } from './brokenSamples';
import type { GenerateOptions, GeneratedSession } from './sessionGenerator';
import { DEFAULT_SEED, generateSession, sidecarText, snapshotText } from './sessionGenerator';

export interface SampleFile {
  /** Relative to the output folder, `/`-separated. */
  path: string;
  content: string;
}

export interface SessionSample {
  session: GeneratedSession;
  /** `<stem>.sidecar.jsonl` and `<stem>.session.json`. */
  files: SampleFile[];
}

export function sessionSample(stem: string, options: GenerateOptions): SessionSample {
  const session = generateSession(options);
  return {
    session,
    files: [
      { path: `${stem}.sidecar.jsonl`, content: sidecarText(session.records) },
      { path: `${stem}.session.json`, content: snapshotText(session.snapshot) },
    ],
  };
}

/** The broken samples' files and their manifest, under `dir` (`''` for the output folder itself). */
export function brokenFiles(samples: readonly BrokenSample[], dir = ''): SampleFile[] {
  const prefix = dir ? `${dir}/` : '';
  const files: SampleFile[] = [];
  for (const s of samples) for (const [name, content] of Object.entries(s.files)) files.push({ path: prefix + name, content });
  files.push({ path: `${prefix}manifest.json`, content: brokenManifest(samples) });
  return files;
}

export interface SampleSet {
  session: SessionSample;
  legacy: SessionSample;
  broken: BrokenSample[];
  /** Every file, in writing order. */
  files: SampleFile[];
}

/** Everything samples/ holds besides demo.sidecar.jsonl: session.*, legacy.* and broken/. */
export function committedSampleSet(seed: number = DEFAULT_SEED): SampleSet {
  const session = sessionSample('session', { seed });
  const legacy = sessionSample('legacy', { seed, legacy: true });
  const broken = brokenSamples(seed);
  return { session, legacy, broken, files: [...session.files, ...legacy.files, ...brokenFiles(broken, 'broken')] };
}
