// Bundles the Node entry points, each with every npm package it imports, into one CommonJS file:
//   dist/cli.cjs     the command line (electron/cli/bin.ts), which bin/session-inspector.cjs loads;
//   dist/worker.cjs  the resolver worker (electron/worker/entry.ts), spawned beside the bundle
//                    that runs createResolverClient();
//   dist/indexPool.cjs an indexing pool worker (electron/loader/native/indexPoolWorker.ts), spawned
//                    beside the bundle that indexes a sidecar (electron/loader/native/indexPool.ts);
//   dist/main.cjs    the Electron main process (electron/main/main.ts), package.json "main";
//   dist/preload.cjs the window's preload (electron/preload/preload.ts): a sandboxed preload can
//                    require() only Electron's own modules, so it must be one self-contained file.
// Then, with Vite and the repository's vite.config.ts:
//   dist/renderer/   the React renderer (renderer/index.html), served by the HTTP host and app://.
// Runs on `npm ci` (prepare). `node scripts/build.mjs worker` builds only the named bundles (the
// unit tests' global setup builds the worker this way, with exactly these options);
// `node scripts/build.mjs renderer` builds only the renderer.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { build } from 'esbuild';
import { build as viteBuild } from 'vite';

const repoRoot = resolve(import.meta.dirname, '..');

const bundles = {
  cli: {
    entry: 'electron/cli/bin.ts',
    outfile: 'dist/cli.cjs',
    about: 'bin.ts is the command line entry: it calls main(process.argv.slice(2)) from electron/cli/main.ts',
  },
  worker: {
    entry: 'electron/worker/entry.ts',
    outfile: 'dist/worker.cjs',
    about: 'entry.ts is the resolver worker: it answers requests from electron/worker/client.ts on parentPort',
  },
  indexPool: {
    entry: 'electron/loader/native/indexPoolWorker.ts',
    outfile: 'dist/indexPool.cjs',
    about: 'indexPoolWorker.ts is an indexing pool worker: the loader starts it beside the bundle that indexes (issue 16)',
  },
  main: {
    entry: 'electron/main/main.ts',
    outfile: 'dist/main.cjs',
    about: 'main.ts is the Electron main process entry, package.json "main"',
  },
  preload: {
    entry: 'electron/preload/preload.ts',
    outfile: 'dist/preload.cjs',
    about: 'preload.ts is the sandboxed preload of the desktop window',
  },
};

const RENDERER = 'renderer';
const names = process.argv.slice(2);
for (const name of names) {
  if (!Object.hasOwn(bundles, name) && name !== RENDERER) {
    console.error(`build: unknown bundle ${JSON.stringify(name)}; the bundles are ${[...Object.keys(bundles), RENDERER].join(', ')}.`);
    process.exit(2);
  }
}

for (const name of names.length > 0 ? names.filter((n) => n !== RENDERER) : Object.keys(bundles)) {
  const { entry, outfile, about } = bundles[name];
  const entryPath = resolve(repoRoot, entry);
  const outPath = resolve(repoRoot, outfile);
  if (!existsSync(entryPath)) {
    console.error(`build: ${entry} does not exist, so ${outfile} cannot be built (${about}).`);
    process.exit(1);
  }
  try {
    await build({
      absWorkingDir: repoRoot,
      entryPoints: [entryPath],
      outfile: outPath,
      bundle: true,
      platform: 'node',
      target: 'node20',
      format: 'cjs',
      sourcemap: true,
      // The `electron` package only locates the Electron binary relative to its own folder; bundled,
      // that lookup would point into dist/. Inside the app (main, preload), `electron` is Electron's
      // built-in module. Everything else is bundled.
      external: ['electron'],
      logLevel: 'warning',
    });
  } catch {
    // esbuild has already printed each error with its file and line.
    console.error(`build: bundling ${entry} failed.`);
    process.exit(1);
  }
  console.log(`build: wrote ${outPath}`);
}

if (names.length === 0 || names.includes(RENDERER)) {
  const configFile = resolve(repoRoot, 'vite.config.ts');
  try {
    await viteBuild({ configFile, logLevel: 'warn' });
  } catch (e) {
    // Vite has printed the failing module and line; say which step failed.
    console.error(`build: the renderer (renderer/index.html, with ${configFile}) failed to build: ${e instanceof Error ? e.message : String(e)}`);
    process.exit(1);
  }
  console.log(`build: wrote ${resolve(repoRoot, 'dist/renderer')}`);
}
