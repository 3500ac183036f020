/**
 * Which files the desktop app opens at start: the file arguments of its command line, or of a
 * second instance's, or else the bundled sample. Pure functions over argv and the file system.
 */
import { existsSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { isProtocolUrl } from '../../shared/links/protocolLink';

export interface ArgvShape {
  /**
   * `process.defaultApp`: true when started as `electron <app> …` (argv[1] is the app path),
   * false for a packaged app (`<exe> …`).
   */
  defaultApp: boolean;
  /** The folder relative paths are resolved against. */
  cwd: string;
}

/**
 * The file arguments of an Electron argv, as absolute paths: Electron's own entries (the
 * executable, and the app path when run as `electron <app>`) are skipped, and so is every flag
 * (Chromium's `--inspect=…`, `--no-sandbox`, macOS's `-psn_…`), wherever it stands.
 */
export function parseFileArguments(argv: readonly string[], shape: ArgvShape): string[] {
  const files: string[] = [];
  for (const argument of argv.slice(shape.defaultApp ? 2 : 1)) {
    // A protocol link (Windows and Linux hand it over as an argument) is not a file: see protocolOpen.ts.
    if (argument === '' || argument.startsWith('-') || isProtocolUrl(argument)) continue;
    files.push(resolve(shape.cwd, argument));
  }
  return files;
}

/** The session of a file to open and a format forced on it (`open --session ID --format F`). */
export interface OpenSource {
  session?: string;
  format?: string;
}

const SOURCE_SWITCHES = { session: '--session=', format: '--format=' } as const;

/** `source` as switches of the desktop app's command line (the CLI's `open` passes them on). */
export function sourceArguments(source: OpenSource): string[] {
  return (Object.keys(SOURCE_SWITCHES) as (keyof OpenSource)[]).flatMap((k) => (source[k] !== undefined ? [`${SOURCE_SWITCHES[k]}${source[k]}`] : []));
}

/** The `--session=ID` and `--format=F` switches of an argv (the last of each wins); other flags are Chromium's or the OS's. */
export function parseSourceArguments(argv: readonly string[]): OpenSource {
  const source: OpenSource = {};
  for (const argument of argv) {
    for (const k of Object.keys(SOURCE_SWITCHES) as (keyof OpenSource)[]) {
      if (argument.startsWith(SOURCE_SWITCHES[k])) source[k] = argument.slice(SOURCE_SWITCHES[k].length);
    }
  }
  return source;
}

const LINK_SWITCH = '--link=';

/** `open --link '#…'` as a switch of the desktop app's command line (nothing for no link). */
export function linkArgument(fragment: string | undefined): string[] {
  return fragment !== undefined ? [`${LINK_SWITCH}${fragment}`] : [];
}

/** The `--link=#…` switch of an argv (the last wins), as given: the renderer parses it. */
export function parseLinkArgument(argv: readonly string[]): string | undefined {
  let link: string | undefined;
  for (const argument of argv) if (argument.startsWith(LINK_SWITCH)) link = argument.slice(LINK_SWITCH.length);
  return link;
}

/** The protocol link among an argv's arguments (Windows and Linux start the handler with it), if any. */
export function protocolUrlArgument(argv: readonly string[]): string | undefined {
  return argv.find((argument) => isProtocolUrl(argument));
}
/** The desktop app's switch that opens files without following them (`open --no-follow`). */
export const NO_FOLLOW_SWITCH = '--no-follow';

/** What the first instance is told by a second one (`requestSingleInstanceLock(additionalData)`). */
export interface SecondInstanceData {
  files: string[];
  /** Its `--session` and `--format`, for its files. */
  source?: OpenSource;
  /** Its `--link` (SPEC §12), the place to show its files at. */
  link?: string;
}

/**
 * The files a second instance asked for: taken from its `additionalData` when that is well formed
 * (absolute paths it resolved itself), else parsed from its argv — Chromium may add or reorder
 * switches in the argv it forwards, which is why the data is preferred.
 */
export function filesOfSecondInstance(argv: readonly string[], workingDirectory: string, additionalData: unknown, defaultApp: boolean): string[] {
  if (typeof additionalData === 'object' && additionalData !== null) {
    const files = (additionalData as { files?: unknown }).files;
    if (Array.isArray(files) && files.every((file): file is string => typeof file === 'string' && isAbsolute(file) && !file.includes('\0'))) {
      return files;
    }
  }
  return parseFileArguments(argv, { defaultApp, cwd: workingDirectory });
}

/** The `--session`/`--format` a second instance asked for: its `additionalData`'s when well formed, else its argv's. */
export function sourceOfSecondInstance(argv: readonly string[], additionalData: unknown): OpenSource {
  const source = typeof additionalData === 'object' && additionalData !== null ? (additionalData as { source?: unknown }).source : undefined;
  if (typeof source === 'object' && source !== null) {
    const { session, format } = source as Record<string, unknown>;
    if ((session === undefined || typeof session === 'string') && (format === undefined || typeof format === 'string')) {
      return { ...(session !== undefined ? { session } : {}), ...(format !== undefined ? { format } : {}) };
    }
  }
  return parseSourceArguments(argv);
}

/** Sample names, in order of preference, in the samples folder. */
export const SAMPLE_NAMES = ['session.sidecar.jsonl', 'demo.sidecar.jsonl'] as const;

/**
 * The samples folder: `<resources>/samples` when packaged (electron-builder's extraResources),
 * else `<repo>/samples` (the repository root is the parent of dist/).
 */
export function samplesDir(isPackaged: boolean, resourcesPath: string, distDir: string): string {
  return isPackaged ? join(resourcesPath, 'samples') : join(distDir, '..', 'samples');
}

/** The bundled sample to open when no file is given (as a one-path list), or [] if none is there. */
export function defaultSampleFiles(dir: string, exists: (path: string) => boolean = existsSync): string[] {
  for (const name of SAMPLE_NAMES) {
    const path = join(dir, name);
    if (exists(path)) return [path];
  }
  return [];
}
