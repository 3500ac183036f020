/**
 * Where this package is installed: the folder of its package.json, found upward from the running
 * script. The command line finds its bundled samples there (`serve`'s sample, the library's
 * fallback).
 */
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';

const PACKAGE_NAME = 'session-inspector';

/**
 * The folder of this package's package.json, found upward from `start` (the running script: the
 * bundle in dist/, or electron/cli/bin.ts under tsx). Falls back to the current directory.
 */
export function findPackageRoot(start: string | undefined = process.argv[1]): string {
  let dir: string;
  try {
    dir = start ? dirname(realpathSync(start)) : process.cwd();
  } catch {
    dir = process.cwd();
  }
  for (;;) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest)) {
      try {
        if ((JSON.parse(readFileSync(manifest, 'utf8')) as { name?: unknown }).name === PACKAGE_NAME) return dir;
      } catch {
        // Not ours (or unreadable): keep climbing.
      }
    }
    const parent = dirname(dir);
    if (parent === dir) return process.cwd();
    dir = parent;
  }
}

/** The bundled samples folder of the package at `packageRoot`. */
export function samplesFolder(packageRoot: string): string {
  return join(packageRoot, 'samples');
}
