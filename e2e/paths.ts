/**
 * Where things are, for the config, the fixtures and the specs. Everything is resolved from the
 * repository root so a spec runs the same whatever the current directory.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';

export const REPO_ROOT = resolve(import.meta.dirname, '..');

/** The command line launcher (`serve`, `expand`, `search`, `check`). */
export const CLI = join(REPO_ROOT, 'bin', 'session-inspector.cjs');

/** A sample under `samples/`, as an absolute path. */
export function sample(name: string): string {
  return join(REPO_ROOT, 'samples', name);
}

/** The realistic sample every spec opens unless it says otherwise. */
export const SESSION_SIDECAR = sample('session.sidecar.jsonl');
/** The legacy (gate off) pair: expanding upgrades capped outputs to the recorded bytes. */
export const LEGACY_FILES = [sample('legacy.sidecar.jsonl'), sample('legacy.session.json')];

/** Where the committed screenshots of the README live. */
export const SCREENSHOTS_DIR = join(REPO_ROOT, 'docs', 'screenshots');

/**
 * Debian's Chromium (Playwright's own browser download does not work on every machine): its headless
 * shell where installed (package `chromium-headless-shell`, the same build without the browser's
 * window machinery: 10–22 % less wall time for the same specs, docs/testing.md), else the full browser; undefined
 * where neither is (Playwright's own Chromium is used).
 */
export const SYSTEM_CHROMIUM: string | undefined = ['/usr/bin/chromium-headless-shell', '/usr/bin/chromium'].find((path) => existsSync(path));

export type ElectronBinary = { ok: true; path: string } | { ok: false; why: string };

/**
 * The Electron binary the `electron` package installed (`path.txt` names it under `dist/`), or why
 * the Electron project is skipped. Never downloads: a machine without the binary skips instead.
 */
export function electronBinary(): ElectronBinary {
  let dir: string;
  try {
    dir = dirname(createRequire(join(REPO_ROOT, 'package.json')).resolve('electron/package.json'));
  } catch {
    return { ok: false, why: 'No Electron binary on this machine: the electron package is not installed' };
  }
  const pathFile = join(dir, 'path.txt');
  if (!existsSync(pathFile)) return { ok: false, why: `No Electron binary on this machine: ${pathFile} is missing (the binary was never fetched)` };
  const binary = join(dir, 'dist', readFileSync(pathFile, 'utf8').trim());
  if (!existsSync(binary)) return { ok: false, why: `No Electron binary on this machine: ${binary} does not exist` };
  if (process.platform === 'linux' && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY) {
    return { ok: false, why: `Electron cannot start on this machine: ${binary} exists but there is no display (neither DISPLAY nor WAYLAND_DISPLAY is set)` };
  }
  return { ok: true, path: binary };
}
