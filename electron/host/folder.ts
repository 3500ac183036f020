/**
 * `serve DIR`: the session files of one folder, listed for the page and opened by the id of a
 * listing entry, never by a path from a request.
 *
 * Invariants:
 *  - Only the folder's own entries are looked at (no recursion): a name from `readdir` has no
 *    separator, so every path opened is `join(dir, name)` directly inside the folder.
 *  - A symbolic link (to a file or a folder, inside or outside) is never followed: it is listed as
 *    refused, with the reason, and an id that opens nothing. The check is made again (`lstat`)
 *    when an entry is opened, so a file replaced by a link after the listing is refused too.
 *  - A snapshot opened alone brings its sibling sidecar (SPEC §3.2): a sibling that is a link is
 *    refused the same way, so nothing outside the folder is read through it either.
 *  - At most `maxScanned` directory entries are read per listing; the rest are counted as not
 *    scanned (`truncated`), never read.
 *  - The listing reads files by their heads, off the host's main thread (electron/listing/: a
 *    worker thread per listing, at most 1 MiB of each file, never a whole document), so the host
 *    answers other requests meanwhile. A file is listed when its head is that of a format the
 *    loader reads (electron/listing/sniff.ts, the adapters' own rules); other regular files,
 *    folders, FIFOs and devices are omitted. Files are opened read-only and non-blocking, so a FIFO
 *    never blocks the listing.
 *  - Every open of an entry, its sibling and their companions — and every reopen of a followed
 *    entry — is made with the folder's real path as the only root (`root`, docs/safe-reads.md): a
 *    link swapped in between the `lstat` and the open, or a companion folder or file leading out of
 *    the folder, is refused by the loader on the descriptor it opened.
 *  - An id names an entry by its name for the life of the host (`entry-N`, first seen first), so
 *    a listing refreshed after a file appeared offers it, and the ids shown before keep working.
 */
import { lstatSync, realpathSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import type { ResultOf } from '../../shared/index';
import { MAX_FOLDER_ENTRIES } from '../../shared/index';
import type { FolderScanner } from '../listing/thread';
import { threadScanner } from '../listing/thread';
import { siblingSidecarPath } from '../loader/session';

/** Directory entries read per listing, at most (so a listing never names more than the contract allows). */
export const MAX_FOLDER_SCANNED = MAX_FOLDER_ENTRIES;

export type FolderListing = ResultOf<'folder'>;
export type FolderEntry = FolderListing['entries'][number];

export interface ServedFolder {
  /** The folder's own name (a label; the page never sees its path). */
  readonly name: string;
  /** Its real path: the root every file opened from it must really be inside (docs/safe-reads.md). */
  readonly root: string;
  /** Reads the folder again (off the main thread). */
  list(): Promise<FolderListing>;
  /** The path of a listed, openable entry, checked again now; else why not. */
  pathOf(id: string): { path: string } | { refused: string };
}

export interface ServeFolderOptions {
  maxScanned?: number;
  /** How the folder is read (default: a worker thread per listing, electron/listing/thread.ts). */
  scanner?: FolderScanner;
}

export function serveFolder(dir: string, options: ServeFolderOptions = {}): ServedFolder {
  const root = realpathSync(resolve(dir));
  const maxScanned = options.maxScanned ?? MAX_FOLDER_SCANNED;
  const scan = options.scanner ?? threadScanner();
  const ids = new Map<string, string>();
  const names = new Map<string, string>();
  /** Entries of the last listing that may be opened, by id. */
  let openable = new Set<string>();

  const idOf = (name: string): string => {
    let id = ids.get(name);
    if (id === undefined) {
      id = `entry-${ids.size + 1}`;
      ids.set(name, id);
      names.set(id, name);
    }
    return id;
  };

  return {
    name: basename(root),
    root,
    async list() {
      const { entries: found, scanned, truncated } = await scan(root, maxScanned);
      const entries: FolderEntry[] = [];
      const next = new Set<string>();
      for (const entry of found) {
        const id = idOf(entry.name);
        if ('link' in entry) {
          entries.push({ id, name: entry.name, bytes: 0, refused: 'a symbolic link: not followed' });
          continue;
        }
        next.add(id);
        entries.push({ id, name: entry.name, format: entry.format, bytes: entry.bytes });
      }
      openable = next;
      entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      return { name: basename(root), entries, scanned, truncated };
    },
    pathOf(id) {
      const name = names.get(id);
      if (name === undefined || !openable.has(id)) return { refused: `no session file of the folder has id ${JSON.stringify(id.slice(0, 100))}` };
      const path = join(root, name);
      try {
        const stats = lstatSync(path);
        if (stats.isSymbolicLink()) return { refused: `${name} is now a symbolic link: not followed` };
        if (!stats.isFile()) return { refused: `${name} is no longer a regular file` };
      } catch {
        return { refused: `${name} is no longer in the folder` };
      }
      const sibling = siblingSidecarPath(path);
      if (sibling !== undefined) {
        try {
          if (lstatSync(sibling).isSymbolicLink()) return { refused: `the sidecar beside ${name}, ${basename(sibling)}, is a symbolic link: not followed` };
        } catch {
          // No sibling: the snapshot opens alone.
        }
      }
      return { path };
    },
  };
}
