/**
 * Writes the corpus of bad inputs and its manifest into `e2e/fixtures/bad/`:
 * `npx tsx tools/testing/writeBadCorpus.ts`. The README beside them is written by hand.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BAD_CORPUS_DIR, badCorpus, badCorpusManifest } from './badCorpus';

const inputs = badCorpus();
mkdirSync(BAD_CORPUS_DIR, { recursive: true });
for (const input of inputs) writeFileSync(join(BAD_CORPUS_DIR, input.name), input.bytes);
writeFileSync(join(BAD_CORPUS_DIR, 'manifest.json'), badCorpusManifest(inputs));
process.stdout.write(`wrote ${inputs.length} files and manifest.json to ${BAD_CORPUS_DIR}\n`);
