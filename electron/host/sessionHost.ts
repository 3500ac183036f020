/**
 * The SessionHost: turns untrusted contract requests (from an Electron window or the HTTP host)
 * into replies, over one ResolverClient. It is the only place that maps the renderer's file ids to
 * paths: a request never names a path, it names an id this host offered.
 */
import { stat } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
import type { HostError, HostEvent, Method, ParsedParams, Reply, ResultOf, SessionInfo, WorkerSessionMethod } from '../../shared/index';
import { parseParams } from '../../shared/index';
import { linkPathProblem } from '../../shared/links/link';
import { quotedText } from '../../shared/format/visibleText';
import type { HostTimeouts, OpenSource, SessionHost, SessionHostOptions, UploadedFile } from './types';
import { UPLOAD_MARK } from './upload';

/**
 * The host's own bounds, the backstop behind the resolver client's (DEFAULT_REQUEST_TIMEOUTS,
 * which stops and restarts a stuck worker a little earlier and answers `worker_crashed`): a caller
 * (a window, an HTTP request) is never left waiting on a client that does not answer. The open
 * dialog waits on the user and is not bounded.
 */
export const DEFAULT_HOST_TIMEOUTS: HostTimeouts = {
  default: 150_000,
  openFile: 660_000,
  search: 270_000,
  searchPage: 270_000,
  trace: 270_000,
  // Counted in slices that wait while a search runs (electron/worker/handlers/tokens.ts).
  callTokens: 270_000,
  check: 660_000,
  // A bundle loads and checks up to MINIMIZE_MAX_CALLS candidates of the session.
  reproBundle: 660_000,
  replay: 660_000,
  whatIf: 660_000,
  // It reopens the session.
  setFollow: 660_000,
  openDialog: Infinity,
};

/** A file (or a sidecar + snapshot pair) the renderer may open by id. */
interface OfferedFile {
  id: string;
  paths: string[];
  /** The format it is read as when one was forced (`--format`): every open of it, any session, keeps it. */
  format?: string;
  /** An upload's name as the browser gave it (sanitized), shown instead of its temporary file's. */
  label?: string;
}

type AnyReply = Reply<Method>;

function failure(code: HostError['code'], message: string): { ok: false; error: HostError } {
  return { ok: false, error: { code, message } };
}

function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** Same files in the same order, compared by absolute path. */
function samePaths(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((p, k) => resolve(p) === resolve(b[k] as string));
}

async function sizeOf(paths: readonly string[]): Promise<number | null> {
  let total = 0;
  for (const p of paths) {
    try {
      const s = await stat(p);
      if (!s.isFile()) return null;
      total += s.size;
    } catch {
      return null;
    }
  }
  return total;
}

/** `value` with `f` applied to every string in it; the same object where nothing changed. */
function mapStrings(value: unknown, f: (text: string) => string): unknown {
  if (typeof value === 'string') return f(value);
  if (typeof value !== 'object' || value === null) return value;
  let changed = false;
  if (Array.isArray(value)) {
    const out = value.map((item: unknown) => {
      const mapped = mapStrings(item, f);
      changed ||= mapped !== item;
      return mapped;
    });
    return changed ? out : value;
  }
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    const mapped = mapStrings(item, f);
    changed ||= mapped !== item;
    out[key] = mapped;
  }
  return changed ? out : value;
}

/** The id of `serve DIR`'s folder among the host's roots (its place in them, as the session library numbers roots). */
export const SERVED_FOLDER_ROOT = '0';

/**
 * What a link to a file the host does not list is told (SPEC §14): the file it names, what the host
 * serves, and the command that would serve it. Quoted visibly: the path comes from the page.
 */
export function unreachableLink(file: string, root: string | undefined, folder: string | undefined): string {
  const named = `${quotedText(file, 200)}${root !== undefined ? ` (in the root ${quotedText(root, 80)})` : ''}`;
  const serves = folder !== undefined ? `the folder ${quotedText(folder, 80)}` : 'only the files it was started with';
  return `This link names the session file ${named}, which this host does not list: it serves ${serves}. To open it, serve the folder the link's path is relative to: npx session-inspector serve DIR, then open the link's #… part on the address it prints.`;
}

/** A SessionHost, plus what its adapters' tests read of it. */
export interface InspectableSessionHost extends SessionHost {
  /** Event listeners subscribed right now (each open event stream or window holds one): a leak check. */
  listenerCount(): number;
}

/** Numbers session hosts, so the library's searches of one tab are told from another's. */
let hostsMade = 0;

export function createSessionHost(options: SessionHostOptions): InspectableSessionHost {
  const { client } = options;
  const hostNumber = ++hostsMade;
  /** This host's library search in flight (its key): a new one stops it; another tab's are not this host's. */
  let librarySearching: string | undefined;
  const libraryKey = (searchId: string): string => `${hostNumber}\u0000${searchId}`;
  const listeners = new Set<(event: HostEvent) => void>();
  const offered: OfferedFile[] = [];
  let nextFileId = 1;
  /** The generation of the latest open started; every open takes the next one. */
  let generation = 0;
  /** Uploads by arrival (`beginUpload`), and the latest that was opened. */
  let uploadsBegun = 0;
  let newestUploadOpened = 0;
  let session: SessionInfo | null = null;
  /** The last open's failure, until something opens (or is closed): reported by `state`. */
  let loadError: ResultOf<'state'>['loadError'] = null;
  let disposed = false;
  /**
   * Uploads whose private copy is kept (SECURITY.md §4, Uploads): the session shown, and those whose open is in
   * flight. Each owns its copy: it is discarded when its own open fails or is superseded, or once
   * another session replaced it (or none is shown); never by another upload's clean-up.
   */
  let uploads: UploadedFile[] = [];
  /** Uploads whose open is in flight: their own open's end decides whether they are kept. */
  const opening = new Set<UploadedFile>();
  /** Every upload's label by its temporary path, for the life of the host: no answer or event names the path. */
  const labels = new Map<string, string>();
  /** The paths of the session shown (or previewed); empty when none is. */
  let sessionPaths: string[] = [];
  /** How a link names the session shown (or being opened): set for a file the host listed. */
  let shownLink: SessionInfo['link_file'];
  /** The files named at start (not uploads, not files opened later): a link may name them by their file name. */
  const startFiles = options.files.map((p) => resolve(p));

  /**
   * How a link names `paths` (SPEC §14): a served folder's entry by its name in the folder, a file
   * named at start by its file name; nothing for any other file (an upload, a file from the dialog).
   */
  const linkFileOf = (paths: readonly string[]): SessionInfo['link_file'] => {
    const first = paths[0];
    if (first === undefined) return undefined;
    if (options.folder && dirname(first) === options.folder.root) return { path: basename(first) };
    if (startFiles.includes(resolve(first))) return { path: basename(first) };
    return options.library?.placeOf(first);
  };
  /** `info` with the link that names it (dropped by the worker's own payloads, which know no roots). */
  const withLink = (info: SessionInfo): SessionInfo => (shownLink === undefined ? info : { ...info, link_file: shownLink });

  /** `text` with every upload's temporary path (and its file's name) replaced by its label. */
  const hidePaths = (text: string): string => {
    if (!text.includes(UPLOAD_MARK)) return text;
    let out = text;
    for (const [path, label] of labels) out = out.split(path).join(label).split(basename(path)).join(label).split(dirname(path)).join(label);
    return out;
  };
  /** `value` as the page sees it: an upload's temporary path is never shown, its label is (the same object when nothing changes). */
  const present = <T>(value: T): T => (labels.size === 0 ? value : (mapStrings(value, hidePaths) as T));
  /** Stops offering the uploads `gone` and discards their copies. */
  const discardUploads = async (gone: readonly UploadedFile[]): Promise<void> => {
    if (gone.length === 0) return;
    uploads = uploads.filter((u) => !gone.includes(u));
    for (let k = offered.length - 1; k >= 0; k--) {
      if (offered[k]?.paths.some((p) => gone.some((u) => u.path === p))) offered.splice(k, 1);
    }
    await Promise.all(gone.map((u) => u.discard().catch(() => undefined)));
  };
  /** Discards every upload but those in `keep` (the session shown) and those still opening (`all`: those too). */
  const releaseUploads = (keep: readonly string[], all = false): Promise<void> => discardUploads(uploads.filter((u) => !keep.includes(u.path) && (all || !opening.has(u))));

  const emit = (raw: HostEvent): void => {
    const event = present(raw);
    for (const listener of [...listeners]) {
      try {
        listener(event);
      } catch {
        // One broken listener (a closed window, a dropped stream) must not starve the others.
      }
    }
  };

  const offer = (paths: string[], format?: string): OfferedFile => {
    const known = offered.find((f) => samePaths(f.paths, paths));
    if (known) {
      if (format !== undefined) known.format = format;
      return known;
    }
    const label = paths.length === 1 ? labels.get(paths[0] as string) : undefined;
    const file: OfferedFile = { id: `file-${nextFileId++}`, paths: [...paths], ...(format !== undefined ? { format } : {}), ...(label !== undefined ? { label } : {}) };
    offered.push(file);
    return file;
  };
  for (const path of options.files) offer([path], options.format);

  /** Whether opens follow the files (`--no-follow`, the app's setting), and what is open, to reopen it when that changes. */
  let follow = options.follow !== false;
  let lastOpened: { paths: string[]; source: OpenSource } | undefined;

  // The library's changes (files that appeared, grew or went) go to this host's page as events.
  const unsubscribeLibrary = options.library?.subscribe((payload) => emit({ name: 'libraryChanged', payload })) ?? (() => undefined);

  /** The last progress of the open in flight, for `current()`. */
  let progress: HostEvent | null = null;

  const unsubscribeClient = client.onEvent((event) => {
    // Only the worker's own events pass; session lifecycle events are this host's to emit.
    if (event.name === 'loadProgress' && event.payload.generation === generation) progress = event;
    if (event.name === 'loadProgress' || event.name === 'workerRestarted' || event.name === 'searchProgress' || event.name === 'bundleProgress') emit(event);
    // A file of the session shown changed on disk: the window says so (its requests answer file_changed).
    if (event.name === 'fileChanged' && event.payload.generation === session?.generation) emit(event);
    // The session shown grew (followed): `state` and a late subscriber see it as it is now.
    if (event.name === 'sessionUpdated' && event.payload.generation === session?.generation && !session.provisional) {
      session = withLink(present(event.payload.info));
      emit({ ...event, payload: { ...event.payload, info: session } });
    }
    // The counts of the shown file's sessions, as they arrive after its open: `state` keeps them too.
    if (event.name === 'sessionCounts' && event.payload.generation === session?.generation && !session.provisional) {
      const { sessions_omitted: _before, ...shown } = session;
      session = withLink({ ...shown, sessions: event.payload.sessions, ...(event.payload.sessions_omitted !== undefined ? { sessions_omitted: event.payload.sessions_omitted } : {}) });
      session = present(session);
      emit(event);
    }
    // The first rows of a large file being indexed, for the open in flight only.
    if (event.name === 'sessionPreview' && event.payload.generation === generation && session === null) {
      session = withLink(present(event.payload));
      emit({ ...event, payload: session });
    }
  });

  /** Opens `paths`; on failure nothing is open, and the uploads are released but for those in `keepOnFailure`. */
  async function openPaths(paths: string[], source: OpenSource = {}, keepOnFailure: readonly string[] = []): Promise<Reply<'openFile'>> {
    try {
      if (disposed) return failure('internal_error', 'the session host is disposed');
      if (paths.length === 0 || paths.length > 2) return failure('usage', `${paths.length} files given: open one or two (a sidecar and/or a session snapshot)`);
      const mine = ++generation;
      const previous = session;
      // The client closes the open session before it opens the next one: from here on, nothing is open.
      session = null;
      sessionPaths = [];
      shownLink = linkFileOf(paths);
      if (previous) emit({ name: 'sessionClosed', payload: { generation: previous.generation } });
      // An upload is named by its label in what the worker writes itself (a repro bundle).
      const named = paths.map((p) => labels.get(p));
      const sent: OpenSource = { ...source, ...(follow ? {} : { follow: false }), ...(named.every((l) => l !== undefined) ? { labels: named } : {}) };
      let reply: Awaited<ReturnType<typeof client.open>>;
      try {
        reply = await client.open(paths, mine, sent);
      } catch (e) {
        reply = failure('internal_error', `opening failed: ${messageOf(e)}`);
      }
      if (mine !== generation) {
        // A later open started while this one ran; its outcome is the one that counts.
        return failure('cancelled', `opening ${paths.map((p) => labels.get(p) ?? basename(p)).join(' + ')} was superseded by a later open`);
      }
      if (!reply.ok) {
        // An upload's error names it by its label, never by its temporary path.
        reply = present(reply);
        // A preview shown while the file was indexed goes with it.
        session = null;
        loadError = { generation: mine, files: paths.map((p) => labels.get(p) ?? basename(p)), error: reply.error };
        emit({ name: 'loadFailed', payload: { generation: mine, error: reply.error } });
        // No session is shown now: the upload that was is released (its copy with it), unless it is to be shown again.
        await releaseUploads(keepOnFailure);
        return reply;
      }
      loadError = null;
      const info = withLink(present(reply.value));
      session = info;
      sessionPaths = [...paths];
      lastOpened = { paths: [...paths], source: { ...source } };
      offer(paths, source.format);
      // An upload is kept while it is the session shown, no longer.
      await releaseUploads(paths);
      emit({ name: 'sessionOpened', payload: info });
      try {
        options.onOpened?.([...paths]);
      } catch {
        // Remembering a recent file is a nicety; the open itself succeeded.
      }
      return { ok: true, value: info };
    } catch (e) {
      return failure('internal_error', `internal error: ${messageOf(e)}`);
    }
  }

  async function openUploaded(file: UploadedFile, order?: number): Promise<Reply<'openFile'>> {
    if (disposed) {
      await file.discard().catch(() => undefined);
      return failure('internal_error', 'the session host is disposed');
    }
    if (order !== undefined) {
      // An upload that began before one already opened (a smaller file dropped after it) is superseded.
      if (order < newestUploadOpened) {
        await file.discard().catch(() => undefined);
        return failure('cancelled', `opening ${file.label} was superseded by a later upload`);
      }
      newestUploadOpened = order;
    }
    labels.set(file.path, file.label);
    uploads.push(file);
    opening.add(file);
    // The session shown now: an upload that is no session (or cannot be read) must not take it away.
    const shown = session && !session.provisional && lastOpened && samePaths(lastOpened.paths, sessionPaths) ? lastOpened : undefined;
    let reply: Reply<'openFile'>;
    try {
      reply = await openPaths([file.path], {}, shown?.paths ?? []);
    } finally {
      opening.delete(file);
    }
    // The open closed it before it failed: it is shown again (the error stays the reply, and the window's alert).
    if (!reply.ok && reply.error.code !== 'cancelled' && shown && session === null) await openPaths(shown.paths, shown.source);
    // Not the session shown (its open failed, or a later one superseded it): its own copy goes, no other.
    if (!sessionPaths.includes(file.path)) await discardUploads(uploads.filter((u) => u === file));
    return present(reply);
  }

  async function state(): Promise<ResultOf<'state'>> {
    // The session as it is when asked, not after the files are measured.
    const current = session;
    const error = loadError;
    const files = await Promise.all(
      offered.map(async (f) => ({ id: f.id, name: f.label ?? f.paths.map((p) => basename(p)).join(' + '), bytes: await sizeOf(f.paths) })),
    );
    return { host: options.host, session: current, files, loadError: error };
  }

  async function close(): Promise<Reply<'close'>> {
    // An open in flight is superseded by the close.
    generation++;
    loadError = null;
    const previous = session;
    session = null;
    sessionPaths = [];
    shownLink = undefined;
    await client.close();
    await releaseUploads([]);
    if (previous) emit({ name: 'sessionClosed', payload: { generation: previous.generation } });
    return { ok: true, value: {} };
  }

  async function sessionRequest(method: WorkerSessionMethod, params: ParsedParams<WorkerSessionMethod>): Promise<AnyReply> {
    if (!session) return failure('no_session', `${method}: no session is open`);
    const asked = session.generation;
    const reply = await client.request(method, params);
    // A reply that describes a session closed or replaced meanwhile must not reach the new one's view.
    if (session?.generation !== asked) return failure('cancelled', `${method}: the session changed while answering`);
    return reply;
  }

  async function dispatch(method: Method, params: ParsedParams<Method>): Promise<AnyReply> {
    switch (method) {
      case 'state':
        return { ok: true, value: await state() };
      case 'openFile': {
        const { id, session: asked } = params as ParsedParams<'openFile'>;
        if (options.folder && id.startsWith('entry-')) {
          const entry = options.folder.pathOf(id);
          if ('refused' in entry) return failure('invalid_request', `openFile: ${entry.refused}`);
          return openPaths([entry.path], { ...(asked !== undefined && asked !== '' ? { session: asked } : {}), roots: [options.folder.root] });
        }
        const file = offered.find((f) => f.id === id);
        if (!file) return failure('invalid_request', `openFile: no offered file has id ${JSON.stringify(id).slice(0, 100)}`);
        return openPaths(file.paths, { ...(asked !== undefined && asked !== '' ? { session: asked } : {}), ...(file.format !== undefined ? { format: file.format } : {}) });
      }
      case 'openLink': {
        const { file, root, session: asked } = params as ParsedParams<'openLink'>;
        const problem = linkPathProblem(file);
        if (problem !== undefined) return failure('invalid_request', `openLink: ${problem}`);
        const which = asked !== undefined && asked !== '' ? { session: asked } : {};
        // The session library (serve with no FILE): a place its listing named, never a path opened as given.
        if (options.library && root !== undefined) {
          const found = await options.library.pathOf(root, file);
          if ('refused' in found) return failure('unreadable_file', `openLink: ${found.refused}`);
          return openPaths([found.path], { ...which, roots: [found.root] });
        }
        // The host's own listing, read now: a name it lists, never a path opened as given.
        // A root is named by its place among the host's roots, as `sessions` writes it: `0` for the served folder.
        if (options.folder && (root === undefined || root === SERVED_FOLDER_ROOT)) {
          let listing: Awaited<ReturnType<typeof options.folder.list>>;
          try {
            listing = await options.folder.list();
          } catch (e) {
            return failure('unreadable_file', `cannot read the folder ${options.folder.name}: ${messageOf(e)}`);
          }
          const entry = listing.entries.find((e) => e.name === file && e.refused === undefined);
          if (entry) {
            const found = options.folder.pathOf(entry.id);
            if ('refused' in found) return failure('invalid_request', `openLink: ${found.refused}`);
            return openPaths([found.path], { ...which, roots: [options.folder.root] });
          }
        }
        const named = root === undefined ? offered.find((f) => f.label === undefined && startFiles.includes(resolve(f.paths[0] as string)) && basename(f.paths[0] as string) === file) : undefined;
        if (named) return openPaths(named.paths, { ...which, ...(named.format !== undefined ? { format: named.format } : {}) });
        return failure('unreadable_file', unreachableLink(file, root, options.folder?.name));
      }
      case 'openDialog': {
        if (!options.openDialog) return failure('not_supported', `the ${options.host} host has no open dialog: open a file it offers`);
        const chosen = await options.openDialog();
        if (chosen === null || chosen.length === 0) return { ok: true, value: null };
        return openPaths(chosen);
      }
      case 'close':
        return close();
      case 'folder': {
        if (!options.folder) return failure('not_supported', `the ${options.host} host serves no folder: start it with serve DIR`);
        try {
          return { ok: true, value: await options.folder.list() };
        } catch (e) {
          return failure('unreadable_file', `cannot read the folder ${options.folder.name}: ${messageOf(e)}`);
        }
      }
      case 'library':
        if (!options.library) return failure('not_supported', `the ${options.host} host lists no session library: start it with no FILE (serve)`);
        return { ok: true, value: options.library.snapshot() };
      case 'librarySearch': {
        if (!options.library) return failure('not_supported', `the ${options.host} host lists no session library: start it with no FILE (serve)`);
        const { query, searchId } = params as ParsedParams<'librarySearch'>;
        const key = libraryKey(searchId);
        if (librarySearching !== undefined) options.library.cancel(librarySearching);
        librarySearching = key;
        const found = await options.library.search(query, key).finally(() => {
          if (librarySearching === key) librarySearching = undefined;
        });
        return found === null ? failure('cancelled', 'librarySearch: a later search or a cancel stopped this one') : { ok: true, value: found };
      }
      case 'setFollow': {
        follow = (params as ParsedParams<'setFollow'>).follow;
        // The open session is read again the way asked (a followed session's growth is then its own).
        if (session && lastOpened && (session.following === true) !== follow) {
          const reopened = await openPaths(lastOpened.paths, lastOpened.source);
          if (!reopened.ok) return reopened;
        }
        return { ok: true, value: { follow } };
      }
      case 'cancelBundle':
        return { ok: true, value: { cancelled: client.cancelBundle((params as ParsedParams<'cancelBundle'>).bundleId) } };
      case 'cancelSearch': {
        const { searchId } = params as ParsedParams<'cancelSearch'>;
        return { ok: true, value: { cancelled: client.cancelSearch(searchId) || options.library?.cancel(libraryKey(searchId)) === true } };
      }
      default:
        // Every other method is the worker's: a new host method in the contract fails to compile here.
        return sessionRequest(method, params as ParsedParams<WorkerSessionMethod>);
    }
  }

  const timeouts = options.requestTimeoutMs ?? DEFAULT_HOST_TIMEOUTS;

  /** `dispatch`, or `timeout` once its bound has passed; a search given up on is cancelled in the worker. */
  async function bounded(method: Method, params: ParsedParams<Method>): Promise<AnyReply> {
    const bound = timeouts[method] ?? timeouts.default;
    if (!Number.isFinite(bound)) return dispatch(method, params);
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<AnyReply>((resolveLate) => {
      timer = setTimeout(() => {
        if (method === 'search' || method === 'searchPage') client.cancelSearch((params as ParsedParams<'search' | 'searchPage'>).searchId);
        if (method === 'librarySearch') options.library?.cancel(libraryKey((params as ParsedParams<'librarySearch'>).searchId));
        resolveLate(failure('timeout', `${method} was not answered within ${bound / 1000} s and was given up`));
      }, bound);
      timer.unref();
    });
    try {
      return await Promise.race([dispatch(method, params), late]);
    } finally {
      clearTimeout(timer);
    }
  }

  return {
    async handle(method, params) {
      try {
        if (disposed) return failure('internal_error', 'the session host is disposed');
        const parsed = parseParams(method, params);
        if (!parsed.ok) return parsed;
        return present(await bounded(parsed.method, parsed.params));
      } catch (e) {
        return failure('internal_error', `internal error: ${messageOf(e)}`);
      }
    },
    openPaths: async (paths, source) => present(await openPaths(paths, source)),
    openUploaded,
    beginUpload: () => ++uploadsBegun,
    onEvent(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    current() {
      const events: HostEvent[] = [];
      if (session) events.push({ name: session.provisional ? 'sessionPreview' : 'sessionOpened', payload: session });
      else if (loadError) events.push({ name: 'loadFailed', payload: { generation: loadError.generation, error: loadError.error } });
      const inFlight = progress?.name === 'loadProgress' && progress.payload.generation === generation && !(session && !session.provisional) && !loadError ? progress : null;
      if (inFlight) events.push(inFlight);
      return events.map(present);
    },
    listenerCount: () => listeners.size,
    dispose() {
      // The client belongs to whoever created it: they dispose it after the host.
      disposed = true;
      unsubscribeClient();
      unsubscribeLibrary();
      listeners.clear();
      return releaseUploads([], true);
    },
  };
}
