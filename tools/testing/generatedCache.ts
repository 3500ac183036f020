/**
 * Large test inputs made once, not once per test, per worker and per suite (docs/testing.md,
 * "Large inputs once"). The bad-input corpus's generated files and the e2e specs' written sidecars
 * take tens of seconds to make on a two-core machine; the unit and e2e suites used to make the same
 * ones three times a run.
 *
 * A made file lives under the OS temp folder, never in the work tree:
 *   <tmpdir>/session-inspector-generated/<version>/<key>/<name>
 * where <version> is the digest of every source the makers can read (tools/, shared/, electron/ and
 * e2e/; e2e/fixtures/ and node_modules/ left out), so an edit of any maker makes a new
 * folder and nothing stale is ever reused, and <key> tells apart makers that give files the same
 * name. A file is written under a name of its own and linked into place: a reader sees the whole
 * file or none, and of two processes making it at once the first puts it in place and the second
 * uses that one (its own is removed). Made
 * files are read-only, and tests only read them.
 */
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, linkSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';

const REPO_ROOT = join(import.meta.dirname, '..', '..');

/** The folders whose files the makers may read (directly or through what they import). */
const MAKER_SOURCES = ['tools', 'shared', 'electron', 'e2e'];
/** Committed inputs the makers never read to make a file (and large), and installed packages. */
const NOT_MAKER_SOURCES = ['e2e/fixtures'];
const NOT_MAKER_FOLDERS = ['node_modules'];

export const GENERATED_ROOT = join(tmpdir(), 'session-inspector-generated');

let version: string | undefined;

/** The digest of every maker source: files' paths and bytes, in path order. */
export function makersVersion(root = REPO_ROOT): string {
  const hash = createHash('sha256');
  const files: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      const rel = relative(root, path).split(sep).join('/');
      if (NOT_MAKER_SOURCES.includes(rel) || NOT_MAKER_FOLDERS.includes(entry.name)) continue;
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile()) files.push(rel);
    }
  };
  for (const dir of MAKER_SOURCES) if (existsSync(join(root, dir))) walk(join(root, dir));
  for (const file of files.sort()) {
    const bytes = readFileSync(join(root, file));
    hash.update(`\0${file}\0${bytes.length}\0`);
    hash.update(bytes);
  }
  return hash.digest('hex').slice(0, 16);
}

/**
 * The path of `name` as `make` makes it, made now unless an earlier run of the same makers (same
 * version, same key) made it already. `key` names the maker (the corpus, a spec's writer).
 */
export function generatedFile(key: string, name: string, make: (path: string) => void, root = GENERATED_ROOT): string {
  version ??= makersVersion();
  const safeKey = key.replace(/[^A-Za-z0-9._-]/g, '_');
  const dir = join(root, version, safeKey);
  const path = join(dir, name);
  if (existsSync(path)) return path;
  mkdirSync(dir, { recursive: true });
  const partial = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}.partial`;
  try {
    make(partial);
    chmodSync(partial, 0o444);
    putInPlace(partial, path);
  } finally {
    rmSync(partial, { force: true });
  }
  return path;
}

/**
 * Puts a made file at `path` unless another process put its own there first: a hard link is made
 * whole or not at all and never replaces a file, where a rename would replace one a test may have
 * open (the app's file guard then says, rightly, that its file was replaced: two Playwright workers
 * starting one spec's two tests made its sidecar at once, docs/testing.md "Eighth pass"). Where
 * hard links cannot be made, a rename.
 */
function putInPlace(partial: string, path: string): void {
  try {
    linkSync(partial, path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return;
    if (code === 'EPERM' || code === 'ENOTSUP' || code === 'EXDEV' || code === 'EMLINK') renameSync(partial, path);
    else throw e;
  }
}

/** `generatedFile` for a maker that returns the bytes. */
export function generatedBytes(key: string, name: string, bytes: () => Uint8Array | string, root = GENERATED_ROOT): string {
  return generatedFile(key, name, (path) => writeFileSync(path, bytes()), root);
}
