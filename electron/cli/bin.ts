/** Entry point of `session-inspector` (bundled into dist/cli.cjs by scripts/build.mjs). */
import { flushChunkCache } from './chunkLoader';
import { main } from './main';

// Output goes through the descriptors (output.ts fdWriter), so process.stdout and process.stderr
// are not made at start: a reader that stops early (`… | head`) is handled there, and by
// processStream for a stream made after all.

void main(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
  // After the run, so that the cache holds the functions it compiled too (chunkLoader.ts).
  flushChunkCache();
});
