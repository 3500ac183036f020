// Build stamps: what lets `node scripts/build.mjs --if-stale` skip a bundle that is already built
// from the sources as they are (docs/testing.md, "Build once"). `npm ci` builds every bundle
// (`prepare`); `npm test` and the unit tests' global setup then ask for the same bundles with
// --if-stale and rebuild only what is out of date.
//
// A bundle is up to date when its stamp names
//   - the digest of every input the build reads: each file under electron/, shared/ and renderer/
//     (tests included: a superset is safe), the build script and this file, vite.config.ts, the
//     package manifest and both lock files (what npm installed), the tsconfig files, and the Node
//     version, architecture, repository path and NODE_ENV the build ran with;
//   - the SHA-256 of each file the bundle wrote, every one of which must still be there unchanged.
// Anything else rebuilds. A stamp is removed before its bundle is built and written only after the
// build succeeded, so a failed or interrupted build never leaves a stamp behind. The inputs are
// hashed before building: an edit made during a build makes the next check miss, never pass.
// Stamps live in node_modules/.cache/session-inspector/build-stamps/ (per checkout, never under
// dist/, which is what ships).
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

export const INPUT_DIRS = ['electron', 'shared', 'renderer'];
const INPUT_FILES = [
  'scripts/build.mjs',
  'scripts/buildStamp.mjs',
  'vite.config.ts',
  'package.json',
  'package-lock.json',
  'node_modules/.package-lock.json',
  'tsconfig.json',
  'tsconfig.base.json',
];

/** Every file under `dir`, as paths relative to `root` with `/` separators, sorted. */
export function filesUnder(root, dir) {
  const out = [];
  const walk = (at) => {
    if (!existsSync(at)) return;
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      const path = join(at, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile()) out.push(relative(root, path).split(sep).join('/'));
    }
  };
  walk(join(root, dir));
  return out.sort();
}

function sha256(bytes) {
  return createHash('sha256').update(bytes).digest('hex');
}

/** The digest of everything a build of this checkout reads (see the header). */
export function inputsDigest(root) {
  const hash = createHash('sha256');
  hash.update(JSON.stringify({ node: process.version, arch: process.arch, root, nodeEnv: process.env.NODE_ENV ?? null }));
  const files = [...INPUT_DIRS.flatMap((d) => filesUnder(root, d)), ...INPUT_FILES.filter((f) => existsSync(join(root, f)))];
  for (const file of files) {
    const bytes = readFileSync(join(root, file));
    hash.update(`\0${file}\0${bytes.length}\0`);
    hash.update(bytes);
  }
  return hash.digest('hex');
}

function stampPath(root, name) {
  return join(root, 'node_modules', '.cache', 'session-inspector', 'build-stamps', `${name}.json`);
}

/** True when bundle `name` was built from inputs with this digest and each of its outputs is as it wrote them. */
export function isCurrent(root, name, digest) {
  let stamp;
  try {
    stamp = JSON.parse(readFileSync(stampPath(root, name), 'utf8'));
  } catch {
    return false;
  }
  if (stamp?.inputs !== digest || typeof stamp.outputs !== 'object' || stamp.outputs === null) return false;
  const outputs = Object.entries(stamp.outputs);
  if (outputs.length === 0) return false;
  return outputs.every(([file, hash]) => {
    const path = join(root, file);
    try {
      return statSync(path).isFile() && sha256(readFileSync(path)) === hash;
    } catch {
      return false;
    }
  });
}

/** Removes bundle `name`'s stamp (before it is built). */
export function clearStamp(root, name) {
  rmSync(stampPath(root, name), { force: true });
}

/** Records that bundle `name` was built from `digest` into `outputs` (repository-relative paths). */
export function writeStamp(root, name, digest, outputs) {
  const path = stampPath(root, name);
  mkdirSync(join(path, '..'), { recursive: true });
  const hashes = Object.fromEntries(outputs.map((file) => [file, sha256(readFileSync(join(root, file)))]));
  writeFileSync(path, `${JSON.stringify({ inputs: digest, outputs: hashes }, null, 1)}\n`);
}
