/**
 * `serve [FILE...|DIR] [--port N] [--host H] [--max-upload BYTES]`: the HTTP host of SPEC §6 for a
 * browser (a DIR: the session files in it). Prints exactly
 * `Session Inspector listening on <url>` as the first line on stdout (the URL carries the access
 * token, SPEC §7.1), then runs until SIGINT or SIGTERM and exits 0.
 */
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { homedir } from 'node:os';
import { serveFolder } from '../host/folder';
import type { ServedLibrary } from '../host/library';
import { machineLibrary } from '../host/library';
import type { RootsContext } from '../library/roots';
import { processRootsContext } from '../library/roots';
import { startHttpHost } from '../host/http';
import { createSessionHost } from '../host/sessionHost';
import { createSessionPool } from '../host/sessionPool';
import type { PooledSession } from '../host/sessionPool';
import type { OpenSource, ResolverClient, SessionHostOptions } from '../host/types';
import { loadSession } from '../loader/session';
import { DEFAULT_REQUEST_TIMEOUTS, createResolverClient } from '../worker/client';
import type { CliIo } from './output';
import { formatLink, parseLink } from '../../shared/links/link';
import { CliError, terminalSentence, usageError } from './errors';
import { untilSignal } from './signals';
import { samplesFolder } from './packageRoot';

export { untilSignal };

/** What `serve` and `open` need from the outside world; tests replace each part. */
export interface ServeDeps {
  /** The resolver client (the real worker by default). */
  createClient(): ResolverClient;
  /** Resolves when the host should stop: SIGINT or SIGTERM by default. */
  untilStopped(): Promise<void>;
  /** The installed package: the bundled sample and `dist/renderer` are found under it. */
  packageRoot: string;
  /** Where the session library looks (serve with no FILE): the process's own environment and home by default. */
  libraryContext?: RootsContext;
}

export interface ServeOptions {
  files: string[];
  port?: number;
  bind?: string;
  /** `--session ID`: the session of the file to open (§10.1). */
  session?: string;
  /** `--format F`: read the files as this format instead of detecting it (§10.2). */
  format?: string;
  /** `--max-upload BYTES`: the largest file the page may upload. */
  maxUploadBytes?: number;
  /** `--link '#…'` (SPEC §12): the place to start at, as a canonical fragment (`#…`, never just `#`). */
  link?: string;
  /** `--no-follow`: false opens the files without following them. */
  follow?: boolean;
}

/** The folder `serve DIR` lists: the one argument, when it is a folder. */
function folderArgument(files: string[]): string | null {
  if (files.length !== 1) return null;
  try {
    return statSync(files[0] as string).isDirectory() ? (files[0] as string) : null;
  } catch {
    return null;
  }
}

/**
 * `--link`'s value (with or without its `#`) as the canonical fragment the app is started with;
 * undefined for an empty link. A value the app could not go to is a usage error, before anything starts.
 */
export function parseLinkOption(text: string): string | undefined {
  const { link, problems } = parseLink(text.startsWith('#') ? text : `#${text}`);
  if (problems.length > 0) throw usageError(`--link: ${problems.join(' ')}`);
  const fragment = formatLink(link);
  return fragment === '#' ? undefined : fragment;
}

/** `--session` and `--format` of `options`, as the host and the worker take them. */
export function openSource(options: ServeOptions): OpenSource {
  return { ...(options.session !== undefined ? { session: options.session } : {}), ...(options.format !== undefined ? { format: options.format } : {}) };
}

/**
 * Refuses, before anything starts, a `--format` that names no format or a `--session` the file does
 * not hold: both are usage errors (exit 2), as for check, log, expand and search. The file is read
 * once here for that (only when either flag is given); any other failure to open it is left to the
 * host, which then runs without a session and says why, as without the flags.
 */
export async function checkOpenSource(files: string[], options: ServeOptions): Promise<void> {
  if (options.session === undefined && options.format === undefined) return;
  const loaded = await loadSession(files, openSource(options));
  if (!loaded.ok) {
    if (loaded.error.code === 'usage') throw new CliError('usage', loaded.error.message);
    return;
  }
  // The loader refuses a --session the file does not hold (a usage error, above).
  loaded.session.close();
}

export const LISTENING_PREFIX = 'Session Inspector listening on ';

/** The sample opened when no FILE is given. */
export function bundledSample(packageRoot: string): string {
  for (const name of ['session.sidecar.jsonl', 'demo.sidecar.jsonl']) {
    const path = join(samplesFolder(packageRoot), name);
    if (existsSync(path)) return path;
  }
  throw new CliError('unreadable_file', `no FILE given and the bundled sample is missing (looked for samples/session.sidecar.jsonl and samples/demo.sidecar.jsonl under ${packageRoot})`);
}

/** The resolver worker's client: what `serve` and `open` use outside tests. */
export function createRealClient(): ResolverClient {
  // A stuck worker is stopped and restarted; the session host bounds each request too.
  return createResolverClient({ requestTimeoutMs: DEFAULT_REQUEST_TIMEOUTS });
}

function isLoopback(bind: string): boolean {
  return bind === 'localhost' || bind === '::1' || bind.startsWith('127.');
}

/**
 * A session for a new tab (SPEC §14): a SessionHost like the host's one, over a worker of its own.
 * With `opening` (`serve FILE`), it opens the host's files at once, so every tab shows them; a
 * tab of `serve DIR` starts on the folder's listing.
 */
export function tabSession(shared: Omit<SessionHostOptions, 'client'>, createClient: () => ResolverClient, opening?: { paths: string[]; source: OpenSource }): PooledSession {
  const client = createClient();
  const host = createSessionHost({ ...shared, client });
  // Its outcome reaches the tab as events and `state` (a failure as `loadFailed`, as at start).
  if (opening) void host.openPaths(opening.paths, opening.source);
  return {
    host,
    dispose: async () => {
      await host.dispose();
      await client.dispose();
    },
  };
}

/** The session library `serve` lists with no FILE: the agents' folders, else the bundled samples; the cache in the OS cache folder. */
function hostLibrary(deps: ServeDeps): ServedLibrary {
  return machineLibrary(deps.libraryContext ?? processRootsContext(homedir()), samplesFolder(deps.packageRoot));
}

/** Runs the HTTP host until stopped; resolves to the exit status. */
export async function runServe(options: ServeOptions, io: CliIo, deps: ServeDeps): Promise<number> {
  const dir = folderArgument(options.files);
  if (dir !== null && (options.session !== undefined || options.format !== undefined)) throw usageError('serve DIR lists the session files of a folder: --session and --format go with a FILE');
  // No FILE (and no --session/--format to apply to one): the session library (SPEC §14, docs/library.md "In the app").
  const library = dir === null && options.files.length === 0 && options.session === undefined && options.format === undefined ? hostLibrary(deps) : undefined;
  const files = dir !== null || library !== undefined ? [] : options.files.length > 0 ? options.files : [bundledSample(deps.packageRoot)];
  const bind = options.bind ?? '127.0.0.1';
  await checkOpenSource(files, options);
  const shared: Omit<SessionHostOptions, 'client'> = {
    host: 'http',
    files,
    ...(options.format !== undefined ? { format: options.format } : {}),
    // One listing for every tab: an entry's id is the same in each.
    ...(dir !== null ? { folder: serveFolder(dir) } : {}),
    ...(library !== undefined ? { library } : {}),
    ...(options.follow === false ? { follow: false } : {}),
  };
  const client = deps.createClient();
  const host = createSessionHost({ ...shared, client });
  // One session per tab (SPEC §14): each with its own worker, the host's one handed to the first tab.
  const sessions = createSessionPool({ defaultHost: host, create: () => tabSession(shared, () => deps.createClient(), files.length > 0 ? { paths: files, source: openSource(options) } : undefined) });
  const shutDown = async (): Promise<void> => {
    await sessions.dispose();
    await host.dispose();
    await client.dispose();
    library?.dispose();
  };
  try {
    let http: Awaited<ReturnType<typeof startHttpHost>>;
    try {
      http = await startHttpHost({
        host,
        sessions,
        bind,
        port: options.port ?? 0,
        rendererDir: join(deps.packageRoot, 'dist', 'renderer'),
        ...(options.maxUploadBytes !== undefined ? { maxUploadBytes: options.maxUploadBytes } : {}),
      });
    } catch (e) {
      const err = e as NodeJS.ErrnoException;
      throw new CliError('listen_failed', `cannot listen on ${bind}:${options.port ?? 0}: ${err.code ?? err.message}`);
    }
    // Listening before the files are indexed: a page opened at once shows the progress bar and a
    // large sidecar's first rows while the rest is read. The host still runs if the open fails: the
    // failure is the session's state, reported as `loadFailed` to the page.
    const opening = (files.length > 0 ? host.openPaths(files, openSource(options)) : Promise.resolve({ ok: true } as const)).then((opened) => {
      if (!opened.ok && opened.error.code !== 'cancelled') io.stderr(`session-inspector: ${terminalSentence(opened.error.message)} The host runs without a session.\n`);
    });
    // The place goes after the token: a fragment never reaches the server, the page reads it.
    io.stdout(`${LISTENING_PREFIX}${http.url}${options.link ?? ''}\n`);
    if (!isLoopback(bind)) {
      io.stderr(`session-inspector: listening on ${bind}, which is not a loopback address; requests must still name a loopback host or ${bind} and carry the token.\n`);
    }
    await deps.untilStopped();
    await http.close();
    await opening;
  } finally {
    await shutDown();
  }
  return 0;
}

export function parsePort(text: string): number {
  if (!/^\d{1,5}$/.test(text) || Number(text) > 65535) throw usageError(`--port must be a whole number from 0 to 65535, not ${JSON.stringify(text)}`);
  return Number(text);
}

/** `--max-upload`: a whole number of bytes, or of KiB, MiB, GiB with a K, M or G after it. */
export function parseMaxUpload(text: string): number {
  const m = /^(\d{1,13})([KMG]?)$/i.exec(text);
  const bytes = m ? Number(m[1]) * 1024 ** ' KMG'.indexOf((m[2] || ' ').toUpperCase()) : NaN;
  if (!Number.isSafeInteger(bytes) || bytes < 1) throw usageError(`--max-upload must be a whole number of bytes (or KiB, MiB, GiB with K, M, G after it), at least 1, not ${JSON.stringify(text)}`);
  return bytes;
}

export function parseBind(text: string): string {
  const bind = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  if (bind === '' || /[\s/?#@]/.test(bind)) throw usageError(`--host must be an address or a host name, not ${JSON.stringify(text)}`);
  return bind;
}
