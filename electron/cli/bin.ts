/** Entry point of `session-inspector` (bundled into dist/cli.cjs by scripts/build.mjs). */
import { flushChunkCache } from './chunkLoader';
import { main } from './main';

// A reader that stops early (`… | head`) closes the pipe: that is not an error of ours.
const ignoreEpipe = (e: NodeJS.ErrnoException): void => {
  if (e.code !== 'EPIPE') throw e;
};
process.stdout.on('error', ignoreEpipe);
process.stderr.on('error', ignoreEpipe);

void main(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
  // After the run, so that the cache holds the functions it compiled too (chunkLoader.ts).
  flushChunkCache();
});
