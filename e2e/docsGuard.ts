/**
 * Tests leave the work tree clean: no spec may write into `docs/` (the README's committed
 * screenshots are refreshed by `npm run screenshots` only). Playwright's global setup fingerprints
 * every file under `docs/` (path, size, SHA-256) and the teardown it returns compares: a file added,
 * removed or changed fails the run, naming the files. `npm run screenshots` sets
 * REFRESH_SCREENSHOTS_ENV, the one run allowed to write there.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { REPO_ROOT } from './paths';

/** Set by `npm run screenshots` (scripts/screenshots.mjs): the run that refreshes docs/screenshots. */
export const REFRESH_SCREENSHOTS_ENV = 'SESSION_INSPECTOR_REFRESH_SCREENSHOTS';

export const DOCS_DIR = join(REPO_ROOT, 'docs');

/** `relative path → size:sha256` of every file under `dir` (empty when it does not exist). */
export function fingerprint(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  if (!existsSync(dir)) return out;
  const walk = (at: string): void => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      const path = join(at, entry.name);
      if (entry.isDirectory()) walk(path);
      else {
        const bytes = readFileSync(path);
        out.set(relative(dir, path), `${bytes.length}:${createHash('sha256').update(bytes).digest('hex')}`);
      }
    }
  };
  walk(dir);
  return out;
}

/** The files that differ between two fingerprints: added, removed or changed. */
export function changedFiles(before: ReadonlyMap<string, string>, after: ReadonlyMap<string, string>): string[] {
  const names = new Set([...before.keys(), ...after.keys()]);
  return [...names].filter((name) => before.get(name) !== after.get(name)).sort();
}

/** Playwright globalSetup: returns the teardown that fails the run when docs/ changed. */
export default function docsGuard(): () => void {
  if (process.env[REFRESH_SCREENSHOTS_ENV] === '1') return () => undefined;
  const before = fingerprint(DOCS_DIR);
  return () => {
    const changed = changedFiles(before, fingerprint(DOCS_DIR));
    if (changed.length > 0) {
      throw new Error(`a test wrote into docs/ (${changed.join(', ')}): tests must leave the work tree clean; refresh the README's screenshots with npm run screenshots`);
    }
  };
}
