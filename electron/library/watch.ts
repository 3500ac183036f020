/**
 * Watching the library's roots (docs/library.md "In the app"): which paths under a root changed,
 * so the host re-indexes only those entries. Read-only: a watch reads no file, it only hears the
 * OS name paths (the host then reads each as the walk would, electron/library/walk.ts).
 *
 * - macOS and Windows: one recursive `fs.watch` per root (FSEvents, ReadDirectoryChangesW).
 * - Elsewhere (Linux): Node's recursive watch puts a watcher on every file; this puts one on every
 *   folder instead (inotify reports its files' changes), at most MAX_WATCHED_FOLDERS over all
 *   roots, MAX_DEPTH deep, links never entered; a folder that appears is watched as it is heard of.
 * - Anything the OS refuses (too many watches, an error, a folder over the cap) stops the watch
 *   and calls `onLost`: the host then falls back to walking again now and then.
 * - Changes are gathered for `settleMs` and handed over once per root as a set of absolute paths.
 */
import type { FSWatcher } from 'node:fs';
import { lstatSync, opendirSync, watch } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { MAX_DEPTH } from './walk';

/** Folders watched at most (Linux), over every root. */
export const MAX_WATCHED_FOLDERS = 4096;
/** How long changes are gathered before they are handed over. */
export const WATCH_SETTLE_MS = 100;

export interface RootWatch {
  close(): void;
}

export interface WatchOptions {
  roots: readonly string[];
  /** The paths that changed under `root` (absolute; a folder's own path when it appeared or went). */
  onChange(root: string, paths: string[]): void;
  /** The watch stopped (the OS refused, or too many folders): nothing more will be reported. */
  onLost(reason: string): void;
  platform?: NodeJS.Platform;
  settleMs?: number;
  maxFolders?: number;
}

export function watchRoots(options: WatchOptions): RootWatch {
  const platform = options.platform ?? process.platform;
  const settleMs = options.settleMs ?? WATCH_SETTLE_MS;
  const maxFolders = options.maxFolders ?? MAX_WATCHED_FOLDERS;
  const watchers = new Map<string, FSWatcher>();
  const pending = new Map<string, Set<string>>();
  let timer: NodeJS.Timeout | undefined;
  let closed = false;

  const close = (): void => {
    closed = true;
    if (timer !== undefined) clearTimeout(timer);
    for (const w of watchers.values()) w.close();
    watchers.clear();
  };
  const lose = (reason: string): void => {
    if (closed) return;
    close();
    options.onLost(reason);
  };
  const flush = (): void => {
    timer = undefined;
    const batches = [...pending];
    pending.clear();
    for (const [root, paths] of batches) options.onChange(root, [...paths]);
  };
  const heard = (root: string, path: string): void => {
    if (closed) return;
    let set = pending.get(root);
    if (!set) pending.set(root, (set = new Set()));
    set.add(path);
    timer ??= setTimeout(flush, settleMs);
  };

  /** Watches `dir` alone (not recursive), and every folder below it not yet watched. */
  const watchFolders = (root: string, dir: string): void => {
    const stack = [dir];
    while (stack.length > 0 && !closed) {
      const folder = stack.pop() as string;
      if (watchers.has(folder)) continue;
      const depth = folder === root ? 0 : relative(root, folder).split(sep).length;
      if (depth > MAX_DEPTH) continue;
      if (watchers.size >= maxFolders) return lose(`more than ${maxFolders} folders to watch`);
      try {
        if (lstatSync(folder).isSymbolicLink()) continue;
        const w = watch(folder, { persistent: false }, (_event, name) => {
          if (name === null) return heard(root, folder);
          const path = join(folder, name.toString());
          heard(root, path);
          // A folder that appeared is watched too (and what it already holds is reported by the host's walk of it).
          try {
            const stats = lstatSync(path);
            if (stats.isDirectory() && !stats.isSymbolicLink()) watchFolders(root, path);
          } catch {
            // Gone already: the host hears of it as a path that is no more.
          }
        });
        w.on('error', (e) => {
          // A watched folder removed ends its watcher; anything else ends the watch.
          w.close();
          watchers.delete(folder);
          if ((e as NodeJS.ErrnoException).code !== 'ENOENT' && (e as NodeJS.ErrnoException).code !== 'EPERM') lose(e.message);
        });
        watchers.set(folder, w);
        const handle = opendirSync(folder);
        try {
          for (let d = handle.readSync(); d !== null; d = handle.readSync()) if (d.isDirectory()) stack.push(join(folder, d.name));
        } finally {
          handle.closeSync();
        }
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        // A folder that went meanwhile is nothing to watch; the OS refusing more watches ends the watch.
        if (code !== 'ENOENT' && code !== 'ENOTDIR') return lose(e instanceof Error ? e.message : String(e));
      }
    }
  };

  for (const root of options.roots) {
    if (closed) break;
    if (platform === 'darwin' || platform === 'win32') {
      try {
        const w = watch(root, { recursive: true, persistent: false }, (_event, name) => heard(root, name === null ? root : join(root, name.toString())));
        w.on('error', (e) => lose(e.message));
        watchers.set(root, w);
      } catch (e) {
        lose(e instanceof Error ? e.message : String(e));
      }
    } else watchFolders(root, root);
  }
  return { close };
}
