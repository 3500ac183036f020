/**
 * Recent files: at most MAX_RECENT absolute paths, most recent first, no duplicates, persisted as
 * JSON in the app's own settings file (`<userData>/recent.json`). This is the only file the app
 * writes; session files are only ever read. A path that no longer names a regular file is left
 * out when the list is read.
 */
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute } from 'node:path';

export const MAX_RECENT = 10;
export const RECENT_FILE_NAME = 'recent.json';

export interface RecentFiles {
  /** The recent files that still exist, most recent first. */
  list(): string[];
  /** Moves `paths` to the front (the first of them first), then saves. */
  add(paths: readonly string[]): void;
  clear(): void;
}

export interface RecentFilesOptions {
  /** The JSON file, e.g. join(app.getPath('userData'), RECENT_FILE_NAME). */
  file: string;
  max?: number;
  /** Whether a path still names a regular file (a stat by default). */
  exists?: (path: string) => boolean;
  /** The OS's own recent list (app.addRecentDocument / app.clearRecentDocuments). */
  addRecentDocument?: (path: string) => void;
  clearRecentDocuments?: () => void;
  /** Where a failure to save goes (console.warn by default): recents are never worth a crash. */
  warn?: (message: string) => void;
}

function isRegularFile(path: string): boolean {
  try {
    return statSync(path, { throwIfNoEntry: false })?.isFile() ?? false;
  } catch {
    return false;
  }
}

const usable = (value: unknown): value is string => typeof value === 'string' && value.length > 0 && value.length < 32_768 && !value.includes('\0') && isAbsolute(value);

/** The stored list, or [] for a missing, unreadable or malformed file (the file is ours, but it may be damaged). */
function load(file: string, max: number): string[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return [];
  }
  const files = typeof parsed === 'object' && parsed !== null ? (parsed as { files?: unknown }).files : undefined;
  if (!Array.isArray(files)) return [];
  return [...new Set(files.filter(usable))].slice(0, max);
}

export function createRecentFiles(options: RecentFilesOptions): RecentFiles {
  const max = options.max ?? MAX_RECENT;
  const exists = options.exists ?? isRegularFile;
  const warn = options.warn ?? ((message: string) => console.warn(message));
  let entries = load(options.file, max);

  const save = () => {
    try {
      mkdirSync(dirname(options.file), { recursive: true });
      // Write-then-rename: a crash mid-write leaves the previous list, not half a file.
      const temporary = `${options.file}.${process.pid}.tmp`;
      writeFileSync(temporary, `${JSON.stringify({ version: 1, files: entries }, null, 2)}\n`);
      renameSync(temporary, options.file);
    } catch (error) {
      warn(`Session Inspector: could not save recent files (${error instanceof Error ? error.message : String(error)})`);
    }
  };

  return {
    list: () => entries.filter((path) => exists(path)),
    add(paths) {
      const added = paths.filter(usable);
      if (added.length === 0) return;
      entries = [...new Set([...added, ...entries])].slice(0, max);
      save();
      for (const path of added) options.addRecentDocument?.(path);
    },
    clear() {
      entries = [];
      save();
      options.clearRecentDocuments?.();
    },
  };
}
