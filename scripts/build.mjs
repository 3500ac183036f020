// Bundles the Node entry points, each with every npm package it imports, into one CommonJS file:
//   dist/cli.cjs     the command line (electron/cli/bin.ts), which bin/session-inspector.cjs loads:
//                    argument parsing and --help only; each command's code is its own chunk
//                    (dist/cli-session.cjs, dist/cli-serve.cjs, dist/cli-bundle.cjs), required
//                    when that command runs, so a cold `check` parses none of the HTTP host;
//                    and zod, re2js, yauzl and fzstd each bundled alone (dist/cli-lib-<name>.cjs),
//                    required the first time a chunk uses one (see lazyModules below);
//   dist/worker.cjs  the resolver worker (electron/worker/entry.ts), spawned beside the bundle
//                    that runs createResolverClient();
//   dist/indexPool.cjs an indexing pool worker (electron/loader/native/indexPoolWorker.ts), spawned
//                    beside the bundle that indexes a sidecar (electron/loader/native/indexPool.ts);
//   dist/scanThread.cjs a search pool thread (electron/worker/scanThread.ts), spawned beside the
//                    resolver worker by its search pool (electron/worker/searchPool.ts);
//   dist/verifyThread.cjs the background verifier's thread (electron/loader/content/verifyThread.ts),
//                    spawned beside the resolver worker (electron/loader/content/backgroundVerify.ts);
//   dist/scanAheadThread.cjs a transcript pass's scan-ahead thread (electron/loader/content/scanAheadThread.ts),
//                    spawned beside the bundle that indexes a large transcript (electron/loader/content/scanAhead.ts);
//   dist/countThread.cjs a counting thread (electron/tokens/countThread.ts), spawned beside the
//                    command line by `view` of a large session (electron/tokens/textCounter.ts);
//   dist/listing.cjs a folder listing's thread (electron/listing/worker.ts), spawned beside the
//                    bundle that serves a folder (electron/listing/thread.ts);
//   dist/library.cjs a session library's indexing thread (electron/library/worker.ts), spawned
//                    beside the bundle that lists the library (electron/library/pool.ts);
//   dist/main.cjs    the Electron main process (electron/main/main.ts), package.json "main";
//   dist/preload.cjs the window's preload (electron/preload/preload.ts): a sandboxed preload can
//                    require() only Electron's own modules, so it must be one self-contained file.
// Then, with Vite and the repository's vite.config.ts:
//   dist/renderer/   the React renderer (renderer/index.html), served by the HTTP host and app://.
// Runs on `npm ci` (prepare). `node scripts/build.mjs worker` builds only the named bundles (the
// unit tests' global setup builds the worker this way, with exactly these options);
// `node scripts/build.mjs renderer` builds only the renderer. With --if-stale, a bundle whose build
// stamp says it is built from the sources as they are is left as it is (scripts/buildStamp.mjs):
// `npm test` and the unit tests' global setup build this way, after `npm ci` built everything.
import { existsSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { basename, dirname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { clearStamp, filesUnder, inputsDigest, isCurrent, writeStamp } from './buildStamp.mjs';

const repoRoot = resolve(import.meta.dirname, '..');

/**
 * The command line's chunks: main.ts's `import('./X')` of each module here becomes
 * `require('./<outfile>')` beside dist/cli.cjs (see cliChunks below). Each chunk is a whole bundle:
 * modules two chunks share are copied into both (only one command runs per process; CliError is
 * recognised across copies, electron/cli/errors.ts).
 */
const CLI_CHUNKS = {
  './sessionCommands': { entry: 'electron/cli/sessionCommands.ts', outfile: 'dist/cli-session.cjs', about: 'expand, search, check, log, view, diff and trace', inject: true },
  './serveCommands': { entry: 'electron/cli/serveCommands.ts', outfile: 'dist/cli-serve.cjs', about: 'serve and open', inject: true },
  './bundle': { entry: 'electron/cli/bundle.ts', outfile: 'dist/cli-bundle.cjs', about: 'bundle', inject: true },
  './export': { entry: 'electron/cli/export.ts', outfile: 'dist/cli-export.cjs', about: 'export (provider requests and documents)', inject: true },
  './sessions': { entry: 'electron/cli/sessions.ts', outfile: 'dist/cli-sessions.cjs', about: 'sessions', inject: true },
};

/**
 * main.ts's dynamic import of a chunk becomes a call of electron/cli/chunkLoader.ts's loadChunk on
 * the built chunk file beside dist/cli.cjs: Node's CommonJS loader with V8's code cache (an external
 * `import()` would go through the ES module loader, which scans the whole chunk for its exports).
 */
const cliChunks = {
  name: 'cli-chunks',
  setup(b) {
    b.onResolve({ filter: /^\.\/\w+$/ }, (args) => {
      const chunk = CLI_CHUNKS[args.path];
      if (args.kind !== 'dynamic-import' || chunk === undefined || !args.importer.endsWith(`electron${sep}cli${sep}main.ts`)) return undefined;
      return { path: basename(chunk.outfile), namespace: 'cli-chunk' };
    });
    b.onLoad({ filter: /.*/, namespace: 'cli-chunk' }, (args) => ({
      contents: `module.exports = require(${JSON.stringify(resolve(repoRoot, 'electron/cli/chunkLoader.ts'))}).loadChunk(require('node:path').join(__dirname, ${JSON.stringify(args.path)}));`,
      resolveDir: repoRoot,
      loader: 'js',
    }));
  },
};

/**
 * zod's namespace re-exports every locale's messages (about 360 KB of the bundle, parsed on every
 * start); the command line reports issues in English only (zod's default, en.js, which zod imports
 * by itself), so `z.locales` is left with `en` alone.
 */
const zodEnglishOnly = {
  name: 'zod-english-only',
  setup(b) {
    b.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) => {
      if (!/[\\/]zod[\\/]v4[\\/](classic|core)[\\/]/.test(args.importer)) return undefined;
      return { path: resolve(dirname(args.importer), '../locales/en.js'), namespace: 'zod-locales' };
    });
    b.onLoad({ filter: /.*/, namespace: 'zod-locales' }, (args) => ({ contents: `export { default as en } from ${JSON.stringify(args.path)};`, resolveDir: dirname(args.path), loader: 'js' }));
  },
};

/**
 * shared/ is pure (SPEC §6): importing a module has no effect but its definitions, so a module
 * none of whose exports a chunk uses is left out (the barrel shared/index.ts would otherwise bring
 * the contract's zod schemas, built at start, into every command).
 */
const sharedIsPure = {
  name: 'shared-is-pure',
  setup(b) {
    b.onResolve({ filter: /^\.\.?\// }, async (args) => {
      if (args.pluginData === 'shared-is-pure') return undefined;
      const found = await b.resolve(args.path, { kind: args.kind, importer: args.importer, resolveDir: args.resolveDir, pluginData: 'shared-is-pure' });
      if (found.errors.length > 0 || !found.path.startsWith(join(repoRoot, 'shared') + sep)) return found;
      return { ...found, sideEffects: false };
    });
  },
};

/**
 * The zod schemas of the contract and of the file format are built when their module runs; a
 * chunk uses a few of them (`check` none of the contract's ~60). Each top-level `const` whose value
 * is computed is marked pure (`/* @__PURE__ *\/ (() => value)()`, the same value at the same point),
 * so esbuild leaves out every one the chunk does not use. Sound because building a schema has no
 * effect outside its value (shared/ is pure; neither file registers schemas anywhere).
 */
const PURE_SCHEMA_FILES = ['shared/contract.ts', 'shared/format/schema.ts'].map((f) => resolve(repoRoot, f));

const pureSchemas = {
  name: 'pure-schemas',
  setup(b) {
    b.onLoad({ filter: /[\\/]shared[\\/](format[\\/]schema|contract)\.ts$/ }, async (args) => {
      if (!PURE_SCHEMA_FILES.includes(args.path)) return undefined;
      const { default: ts } = await import('typescript');
      const text = await readFile(args.path, 'utf8');
      const source = ts.createSourceFile(args.path, text, ts.ScriptTarget.Latest, true);
      const edits = [];
      for (const statement of source.statements) {
        if (!ts.isVariableStatement(statement)) continue;
        for (const declaration of statement.declarationList.declarations) {
          const value = declaration.initializer;
          if (value === undefined || ts.isLiteralExpression(value) || ts.isIdentifier(value) || ts.isArrowFunction(value) || ts.isFunctionExpression(value)) continue;
          edits.push([value.getStart(source), value.getEnd()]);
        }
      }
      let contents = text;
      for (const [start, end] of edits.reverse()) contents = `${contents.slice(0, start)}/* @__PURE__ */ (() => (${contents.slice(start, end)}))()${contents.slice(end)}`;
      return { contents, loader: 'ts', resolveDir: dirname(args.path) };
    });
  },
};

/**
 * Modules a command may never use, loaded on first use rather than when a chunk starts:
 * zod (needed only to word an invalid record, and by serve's contract), re2js (search), yauzl and
 * fzstd (an Inspect zip), gpt-tokenizer's o200k_base encoding (token estimates: view and log only), diff (jsdiff: only `diff` diffs text), and Node's zlib, stream, worker_threads (a large file's indexing pool),
 * http, net and child_process (serve, open), and crypto. Each import of one of them becomes a small CommonJS
 * module whose exports are getters, one per name the importer imports, that require the real
 * module the first time any is read; esbuild's interop reads an imported name where it is used,
 * never at the import, so code that only imports them pays nothing. A package is bundled alone as
 * dist/cli-lib-<name>.cjs and required through the chunk loader (its code cache), so a chunk holds
 * none of its text. Sound because loading these modules has no effect but their exports (pure
 * packages and Node's own modules): only when it happens changes.
 */
/** The o200k_base encoding (2.4 MB of ranks): lazy in the command line and in the resolver worker. */
const TOKENIZER = 'gpt-tokenizer/encoding/o200k_base';
const LAZY_PACKAGES = ['zod', 're2js', 'yauzl', 'fzstd', TOKENIZER, 'diff'];
const LAZY_BUILTINS = ['node:zlib', 'node:stream', 'node:worker_threads', 'node:http', 'node:https', 'node:net', 'node:child_process', 'node:crypto'];
/**
 * Names given by a module of ours instead: loading node:crypto costs some 5 ms, so SHA-256 starts in
 * JavaScript (electron/cli/sha256.ts, proven to give node:crypto's digests).
 */
const LAZY_OVERRIDES = { 'node:crypto': { createHash: 'electron/cli/sha256.ts' } };
/** A package's chunk file beside dist/cli.cjs (a subpath's slashes become dashes: one folder). */
const libChunk = (name) => `cli-lib-${name.replace(/\//g, '-')}.cjs`;

/** The names an importer's import statements take from `specifier`; null: all of them (a namespace or default import). */
async function importedNames(importer, specifier) {
  const text = await readFile(importer, 'utf8');
  const quoted = specifier.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  const names = new Set();
  for (const m of text.matchAll(new RegExp(`^import\\s+(type\\s+)?([^;]*?)\\s+from\\s+['"]${quoted}['"]`, 'gm'))) {
    if (m[1]) continue;
    const clause = m[2].trim();
    const braces = /\{([^}]*)\}/.exec(clause);
    if (clause.replace(/\{[^}]*\}/, '').replace(/,/g, '').trim() !== '') return null;
    for (const part of (braces?.[1] ?? '').split(',')) {
      const item = part.trim();
      if (item === '' || item.startsWith('type ')) continue;
      names.add(item.split(/\s+as\s+/)[0].trim());
    }
  }
  // No import statement found (a re-export, say): every name, to be safe.
  return names.size > 0 ? [...names].sort() : null;
}

/**
 * The plugin that makes `modules` lazy (above). `viaChunkLoader`: a package's chunk is required
 * through the command line's chunk loader (its code cache); otherwise with a plain `require` beside
 * the bundle (the resolver worker: it writes no code cache).
 */
const lazyModulesOf = (modules, viaChunkLoader) => ({
  name: 'lazy-modules',
  setup(b) {
    const filter = new RegExp(`^(${modules.map((m) => m.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')).join('|')})$`);
    b.onResolve({ filter }, async (args) => {
      if (args.kind !== 'import-statement') return undefined;
      const names = await importedNames(args.importer, args.path);
      // One module per set of names (named .cjs: it is CommonJS whatever the real module is).
      return { path: `${args.path}#${names === null ? '*' : names.join(',')}.lazy.cjs`, namespace: 'lazy-module' };
    });
    b.onLoad({ filter: /.*/, namespace: 'lazy-module' }, async (args) => {
      const [specifier, list] = args.path.slice(0, -'.lazy.cjs'.length).split('#');
      const builtin = specifier.startsWith('node:');
      let names = list === '*' ? null : list.split(',').filter(Boolean);
      if (names === null) {
        // A namespace or default import: every name the module (or its module.exports) has.
        const real = await import(specifier);
        const exported = real.default !== null && ['object', 'function'].includes(typeof real.default) ? Object.keys(real.default) : [];
        names = [...new Set([...Object.keys(real), ...exported])].filter((n) => n !== 'default' && n !== '__esModule');
      }
      const load = builtin
        ? `require(${JSON.stringify(specifier)})`
        : viaChunkLoader
          ? `require(${JSON.stringify(resolve(repoRoot, 'electron/cli/chunkLoader.ts'))}).loadChunk(require('node:path').join(__dirname, ${JSON.stringify(libChunk(specifier))}))`
          : `require(require('node:path').join(__dirname, ${JSON.stringify(libChunk(specifier))}))`;
      const overrides = LAZY_OVERRIDES[specifier] ?? {};
      // A module of ours is required once too: read through esbuild's interop on every use, a name
      // was a new object of getters each time (`createHash`, once per hash: 0.12 s of 100,000).
      const ours = [...new Set(names.filter((n) => Object.hasOwn(overrides, n)).map((n) => overrides[n]))];
      const oursVar = (n) => `ours${ours.indexOf(overrides[n])}`;
      const getter = (n) => (Object.hasOwn(overrides, n) ? `(${oursVar(n)} ??= require(${JSON.stringify(resolve(repoRoot, overrides[n]))}))[${JSON.stringify(n)}]` : `load()[${JSON.stringify(n)}]`);
      const getters = names.map((n) => `  ${JSON.stringify(n)}: { enumerable: true, get: () => ${getter(n)} },`).join('\n');
      const oursDeclared = ours.map((_, k) => `let ours${k};\n`).join('');
      return {
        contents: `// ${specifier}, required when one of its exports is first read (scripts/build.mjs, lazy-modules).\nlet real;\nconst load = () => (real ??= ${load});\n${oursDeclared}Object.defineProperties(module.exports, {\n${getters}\n});\n`,
        resolveDir: repoRoot,
        loader: 'js',
      };
    });
  },
});

const lazyModules = lazyModulesOf([...LAZY_PACKAGES, ...LAZY_BUILTINS], true);

/** The package chunks of `names` (each package's ES module build, alone, as CommonJS): a bundle that requires them builds them too, so it can be built alone. */
const libChunksOf = (names) => names.map((name) => ({ entry: fileURLToPath(import.meta.resolve(name)), outfile: `dist/${libChunk(name)}`, about: `${name}, loaded when first used`, plugins: [zodEnglishOnly] }));
/**
 * The packages the resolver worker requires only when a request needs them (the tokenizer for an
 * estimate, re2js for a regex, yauzl and fzstd for an Inspect archive, jsdiff for a diff of calls),
 * and those the library's threads do (the same but the tokenizer, and zod, which only words an
 * invalid record there: the worker validates every request with it).
 */
const WORKER_LAZY = [TOKENIZER, 're2js', 'yauzl', 'fzstd', 'diff'];
const LIBRARY_LAZY = ['zod', 're2js', 'yauzl', 'fzstd', 'diff'];

const CLI_PLUGINS = [cliChunks, zodEnglishOnly, sharedIsPure, pureSchemas, lazyModules];

/** The lazily loaded packages' own chunks: each package's ES module build, alone, as CommonJS. */
const LIB_CHUNKS = libChunksOf(LAZY_PACKAGES);

/**
 * The global `performance` of the command chunks, replaced by electron/cli/performanceNow.ts (its
 * `now()` alone, all the loader reads): Node's own costs a cold start its perf_hooks modules.
 * buildCli checks that nothing in a chunk reads anything else of it.
 */
const CLI_INJECT = [resolve(repoRoot, 'electron/cli/performanceNow.ts')];

const bundles = {
  cli: {
    entry: 'electron/cli/bin.ts',
    outfile: 'dist/cli.cjs',
    about: 'bin.ts is the command line entry: it calls main(process.argv.slice(2)) from electron/cli/main.ts',
    plugins: CLI_PLUGINS,
    chunks: [...Object.values(CLI_CHUNKS), ...LIB_CHUNKS],
  },
  worker: {
    entry: 'electron/worker/entry.ts',
    outfile: 'dist/worker.cjs',
    about: 'entry.ts is the resolver worker: it answers requests from electron/worker/client.ts on parentPort',
    // The tokenizer's encoding is required from its own chunk at the first count (hiddenTokens), never
    // at start, and the other packages a request may not need at its first use (WORKER_LAZY).
    plugins: [lazyModulesOf(WORKER_LAZY, false)],
    chunks: libChunksOf(WORKER_LAZY),
  },
  indexPool: {
    entry: 'electron/loader/native/indexPoolWorker.ts',
    outfile: 'dist/indexPool.cjs',
    about: 'indexPoolWorker.ts is an indexing pool worker: the loader starts it beside the bundle that indexes',
  },
  scanThread: {
    entry: 'electron/worker/scanThread.ts',
    outfile: 'dist/scanThread.cjs',
    about: 'scanThread.ts is a search pool thread: the resolver worker\'s search pool starts it beside the bundle (electron/worker/searchPool.ts)',
  },
  verifyThread: {
    entry: 'electron/loader/content/verifyThread.ts',
    outfile: 'dist/verifyThread.cjs',
    about: 'verifyThread.ts is the background verifier\'s thread: the resolver worker starts it beside the bundle (electron/loader/content/backgroundVerify.ts)',
  },
  scanAheadThread: {
    entry: 'electron/loader/content/scanAheadThread.ts',
    outfile: 'dist/scanAheadThread.cjs',
    about: 'scanAheadThread.ts is a transcript pass\'s scan-ahead thread: the loader starts it beside the bundle that indexes (electron/loader/content/scanAhead.ts)',
    // It scans lines, with none of the contract's schemas: a small bundle starts fast.
    plugins: [sharedIsPure, pureSchemas],
  },
  countThread: {
    entry: 'electron/tokens/countThread.ts',
    outfile: 'dist/countThread.cjs',
    about: 'countThread.ts is a counting thread: the command line starts it beside the bundle to count a large view\'s tokens on two cores (electron/tokens/textCounter.ts)',
  },
  listing: {
    entry: 'electron/listing/worker.ts',
    outfile: 'dist/listing.cjs',
    about: 'worker.ts is the folder listing thread: serve DIR starts it beside the bundle (electron/listing/thread.ts)',
    // It uses a few of shared/'s definitions and none of the contract's schemas: a small bundle starts fast.
    plugins: [sharedIsPure, pureSchemas],
  },
  library: {
    entry: 'electron/library/worker.ts',
    outfile: 'dist/library.cjs',
    about: 'worker.ts is a session library indexing thread: the library starts it beside the bundle (electron/library/pool.ts)',
    // Every thread pays its bundle's start: the schemas it never uses are left out, and the packages
    // only some files need (LIBRARY_LAZY) are required from their own chunks when first used.
    plugins: [sharedIsPure, pureSchemas, lazyModulesOf(LIBRARY_LAZY, false)],
    chunks: libChunksOf(LIBRARY_LAZY),
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
const IF_STALE = '--if-stale';
const ifStale = process.argv.includes(IF_STALE);
const names = process.argv.slice(2).filter((a) => a !== IF_STALE);
for (const name of names) {
  if (!Object.hasOwn(bundles, name) && name !== RENDERER) {
    console.error(`build: unknown bundle ${JSON.stringify(name)}; the bundles are ${[...Object.keys(bundles), RENDERER].join(', ')} (and the flag ${IF_STALE}).`);
    process.exit(2);
  }
}

// Hashed before anything is built: an edit made during the build makes the next check miss.
const digest = inputsDigest(repoRoot);

/** The chunks this build has written (a package's chunk is shared: LIB_CHUNKS, libChunksOf). */
const written = new Set();
for (const name of names.length > 0 ? names.filter((n) => n !== RENDERER) : Object.keys(bundles)) {
  const { plugins = [], chunks = [] } = bundles[name];
  const outputs = [bundles[name], ...chunks].flatMap((c) => [c.outfile, `${c.outfile}.map`]);
  if (ifStale && isCurrent(repoRoot, name, digest)) {
    console.log(`build: ${resolve(repoRoot, bundles[name].outfile)} is up to date`);
    continue;
  }
  clearStamp(repoRoot, name);
  for (const chunk of [bundles[name], ...chunks]) {
    // A package's chunk that several bundles require is written once per build.
    if (chunks.includes(chunk) && written.has(chunk.outfile)) continue;
    written.add(chunk.outfile);
    await bundle(chunk.entry, chunk.outfile, chunk.about, chunk.plugins ?? plugins, chunk.inject ? CLI_INJECT : []);
    if (chunk.inject) await checkPerformanceUse(chunk.outfile);
    if (chunks.includes(chunk)) await signChunk(chunk.outfile);
  }
  writeStamp(repoRoot, name, digest, outputs);
}

/** Fails the build when a chunk given performanceNow.ts reads more of `performance` than now(). */
async function checkPerformanceUse(outfile) {
  const text = await readFile(resolve(repoRoot, outfile), 'utf8');
  const other = [...text.matchAll(/\bperformance\d*\.(\w+)/g)].map((m) => m[1]).filter((name) => name !== 'now');
  if (other.length > 0) {
    console.error(`build: ${outfile} reads performance.${other[0]}; electron/cli/performanceNow.ts gives only now().`);
    process.exit(1);
  }
}

/**
 * Ends a chunk with the SHA-256 of its bytes (`// chunk-sha256: <hex>`), which the chunk loader
 * names its code cache entry by (electron/cli/chunkLoader.ts), so a start does not hash the chunk.
 */
async function signChunk(outfile) {
  const path = resolve(repoRoot, outfile);
  const text = await readFile(path, 'utf8');
  await writeFile(path, `${text}// chunk-sha256: ${createHash('sha256').update(text).digest('hex')}\n`);
}

async function bundle(entry, outfile, about, plugins, inject = []) {
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
      plugins,
      inject,
      logLevel: 'warning',
    });
  } catch {
    // esbuild has already printed each error with its file and line.
    console.error(`build: bundling ${entry} failed.`);
    process.exit(1);
  }
  console.log(`build: wrote ${outPath}`);
}

if ((names.length === 0 || names.includes(RENDERER)) && ifStale && isCurrent(repoRoot, RENDERER, digest)) {
  console.log(`build: ${resolve(repoRoot, 'dist/renderer')} is up to date`);
} else if (names.length === 0 || names.includes(RENDERER)) {
  const configFile = resolve(repoRoot, 'vite.config.ts');
  clearStamp(repoRoot, RENDERER);
  try {
    // Loaded only when the renderer is built: a build of the Node bundles alone does not pay for it.
    const { build: viteBuild } = await import('vite');
    await viteBuild({ configFile, logLevel: 'warn' });
  } catch (e) {
    // Vite has printed the failing module and line; say which step failed.
    console.error(`build: the renderer (renderer/index.html, with ${configFile}) failed to build: ${e instanceof Error ? e.message : String(e)}`);
    process.exit(1);
  }
  writeStamp(repoRoot, RENDERER, digest, filesUnder(repoRoot, 'dist/renderer'));
  console.log(`build: wrote ${resolve(repoRoot, 'dist/renderer')}`);
}
