/**
 * The open session, what the host offers, load progress, alerts, and the host's events. Every
 * session change (opened, closed, replaced, the resolver restarted) bumps `epoch` and resets every
 * cache: a reply captured under an older epoch is dropped on arrival.
 */
import type { HostError, HostEvent, ResultOf, SessionInfo } from '../../shared/contract';
import type { SliceCreator } from './appState';
import { freshBundles } from './bundleSlice';
import { freshCalls } from './callsSlice';
import { freshFindings } from './findingsSlice';
import { freshStory } from './storySlice';
import { freshLog } from './logSlice';
import { freshReductions } from './reductionsSlice';
import { freshRows } from './rowsSlice';
import { baseName } from '../text/format';
import { freshSearchResults } from './searchSlice';

export type OfferedFile = ResultOf<'state'>['files'][number];

export interface LoadProgress {
  generation: number;
  bytesRead: number;
  totalBytes: number;
}

export interface AppAlert {
  id: number;
  /** What went wrong (the error's own message). */
  message: string;
  /** What to do about it. */
  hint?: string;
}

export const LOAD_FAILED_HINT = 'Open a session file: a sidecar (.sidecar.jsonl) or snapshot (.session.json), a Claude Code transcript or Codex rollout (.jsonl), a SWE-agent or mini-swe-agent trajectory (.traj), an Inspect AI log (.eval, .json) or an OpenHands trajectory (.json, or the base_state.json of a V1 conversation).';

export interface SessionSlice {
  /** Which host answers: the desktop shell or the HTTP host; null until `state` answered. */
  host: 'electron' | 'http' | null;
  /** Files the host offers to open by id (the HTTP host's command-line files, recent files). */
  offeredFiles: OfferedFile[];
  session: SessionInfo | null;
  /** Bumps with every session change; caches and in-flight replies belong to one epoch. */
  epoch: number;
  /** Progress of the file being opened, while it is. */
  loading: LoadProgress | null;
  alerts: AppAlert[];
  /** Subscribes to host events and asks the host's state; returns the unsubscribe function. */
  start: () => () => void;
  openOffered: (id: string) => Promise<void>;
  /**
   * Opens the file a link names (SPEC §14: its path relative to a root of the host), which the host
   * looks up in its own listing; false (with an alert naming the file and how to serve it) when it cannot.
   */
  openLinkFile: (file: string, root?: string) => Promise<boolean>;
  /**
   * Reopens the open file on another of its sessions (§10.1; '' is the main one). When that fails
   * the error is shown like any failed open, and the session that was open is opened again.
   */
  openSession: (session: string) => Promise<void>;
  openWithDialog: () => Promise<void>;
  openDropped: (file: File) => Promise<void>;
  pushAlert: (message: string, hint?: string) => void;
  dismissAlert: (id: number) => void;
  /** Replaces everything with `info` (or nothing): new epoch, empty caches, the check started. */
  applySession: (info: SessionInfo | null) => void;
  handleEvent: (event: HostEvent) => void;
  // --- live sessions ---
  /** The projected list's identity: a new session (or a reopen) starts a new list; a followed session's growth keeps it, and the user's place. */
  listEpoch: number;
  /** Messages that arrived while the view was not at its bottom (the `Jump to latest (N new)` button). */
  liveNew: number;
  /** A followed file was reopened from scratch or deleted (shown as a status). */
  liveNotice: string | null;
  /** The view shows its last row: new rows then follow, like a terminal (set by the view). */
  atBottom: boolean;
  setAtBottom: (atBottom: boolean) => void;
  /** Scrolls to the last row; the new messages count as seen. */
  jumpToLatest: () => void;
  /** Follows the files (or stops), for the open session (reopened that way) and later opens. */
  setFollow: (follow: boolean) => Promise<void>;
  /** The followed session grew: new counts, the shown rows asked again in place, the session-wide lists refreshed; expansions and the scroll position stay. */
  applyLiveUpdate: (info: SessionInfo, newMessages: number) => void;
  // ---
}

/** What to do about a link whose file did not open. */
export const LINK_FILE_HINT = 'The rest of the link (its model call, reduction and search) applies once its file is open here.';

/** Sessions up to this size are checked as soon as they open; bigger ones when asked (Findings tab). */
export const AUTO_CHECK_MAX_BYTES = 32 * 1024 * 1024;

/**
 * The offered file the open session was read from: the one whose names are the session's files'
 * (the host names a pair `a + b`, in any order); the last one offered when several match.
 */
export function openOfferedFile(files: readonly OfferedFile[], info: SessionInfo | null): OfferedFile | undefined {
  if (!info) return undefined;
  const names = info.files.map((f) => baseName(f.path)).sort().join('\n');
  return [...files].reverse().find((f) => f.name.split(' + ').sort().join('\n') === names);
}

export function sessionBytes(info: SessionInfo): number {
  return info.files.reduce((n, f) => n + f.bytes, 0);
}

/** A newer open, or the whole session replacing the preview shown while its file was indexed. */
function isNewer(info: SessionInfo, current: SessionInfo | null): boolean {
  return current === null || info.generation > current.generation || (info.generation === current.generation && current.provisional === true && info.provisional !== true);
}

export const createSessionSlice: SliceCreator<SessionSlice> = (deps) => (set, get) => {
  let nextAlertId = 1;

  /**
   * The alerts shown as the user starts an open; the returned function takes them away once it has
   * succeeded (an earlier open's error is about what is no longer asked for). Alerts raised since
   * (the opened session's own) stay.
   */
  const alertsBefore = (): (() => void) => {
    const before = new Set(get().alerts.map((a) => a.id));
    return () => set({ alerts: get().alerts.filter((a) => !before.has(a.id)) });
  };

  const openFailed = (error: HostError, hint: string = LOAD_FAILED_HINT): void => {
    // A superseded open is not a failure; a load failure also arrives as a `loadFailed` event,
    // and pushAlert drops the duplicate.
    if (error.code === 'cancelled') return;
    get().pushAlert(error.message, hint);
  };

  // --- the throttled refresh of what a live update makes stale over the whole session ---
  const liveRefresh: { timer: ReturnType<typeof setTimeout> | undefined; last: number; checking: boolean; checkAgain: boolean } = { timer: undefined, last: Number.NEGATIVE_INFINITY, checking: false, checkAgain: false };
  /**
   * A check over a large session can take longer than the updates come: one is asked at a time,
   * and a refresh meanwhile asks one more once it is answered (the worker never queues checks).
   */
  const checkLive = (): void => {
    if (liveRefresh.checking) {
      liveRefresh.checkAgain = true;
      return;
    }
    liveRefresh.checking = true;
    void get()
      .runCheck()
      .finally(() => {
        liveRefresh.checking = false;
        if (!liveRefresh.checkAgain) return;
        liveRefresh.checkAgain = false;
        // Its answer was about a smaller session (dropped): the status it left is not this session's.
        if (get().checkStatus === 'running') set({ checkStatus: 'idle' });
        checkLive();
      });
  };
  const cancelLiveRefresh = (): void => {
    if (liveRefresh.timer !== undefined) clearTimeout(liveRefresh.timer);
    liveRefresh.timer = undefined;
  };
  const refreshLive = (): void => {
    liveRefresh.timer = undefined;
    liveRefresh.last = Date.now();
    const before = get();
    const info = before.session;
    if (!info || info.provisional) return;
    const logWanted = before.logStatus !== 'idle';
    const checkWanted = before.checkStatus !== 'idle' || sessionBytes(info) <= AUTO_CHECK_MAX_BYTES;
    set({
      ...freshLog(),
      ...freshFindings(),
      ...freshStory(),
      ...freshSearchResults(),
      // The Model call slider and the context map grow: asked again (the old map shows meanwhile).
      contextMapStatus: 'idle',
      tokenMapStatus: 'idle',
      callTokens: null,
    });
    if (logWanted) void get().loadLog();
    if (checkWanted) checkLive();
    if (get().searchQuery.trim() !== '') void get().runSearch();
  };
  // ---
  return {
    host: null,
    offeredFiles: [],
    session: null,
    epoch: 0,
    loading: null,
    alerts: [],
    listEpoch: 0,
    liveNew: 0,
    liveNotice: null,
    atBottom: false,

    start() {
      const unsubscribe = deps.api.onEvent((event) => get().handleEvent(event));
      void deps.api.state({}).then((reply) => {
        if (!reply.ok) {
          get().pushAlert(reply.error.message, 'Check that the Session Inspector host is still running, then reload this window.');
          return;
        }
        const info = reply.value.session;
        // The session first, then the host: whoever waits for the host's answer (a link naming a file) sees both at once.
        if (info && isNewer(info, get().session)) get().applySession(info);
        set({ host: reply.value.host, offeredFiles: reply.value.files });
        // A failed open that happened before this window connected (the files named at start).
        if (!info && !get().session && reply.value.loadError) openFailed(reply.value.loadError.error);
      });
      return unsubscribe;
    },

    async openOffered(id) {
      const cleared = alertsBefore();
      const reply = await deps.api.openFile({ id });
      if (!reply.ok) return openFailed(reply.error);
      cleared();
      if (isNewer(reply.value, get().session)) get().applySession(reply.value);
    },

    async openLinkFile(file, root) {
      const reply = await deps.api.openLink({ file, ...(root !== undefined ? { root } : {}) });
      if (!reply.ok) {
        if (reply.error.code !== 'cancelled') get().pushAlert(reply.error.message, LINK_FILE_HINT);
        return false;
      }
      if (isNewer(reply.value, get().session)) get().applySession(reply.value);
      return true;
    },

    async openSession(session) {
      const shown = get().session;
      // The desktop app offers a file once it opened it: a file opened from the dialog is learnt here.
      let file = openOfferedFile(get().offeredFiles, shown);
      if (!file) {
        const state = await deps.api.state({});
        if (state.ok) set({ offeredFiles: state.value.files });
        file = openOfferedFile(get().offeredFiles, shown);
      }
      if (!shown || !file) return get().pushAlert('The open file cannot be reopened on another session: the host no longer offers it.', LOAD_FAILED_HINT);
      const cleared = alertsBefore();
      const reply = await deps.api.openFile({ id: file.id, ...(session !== '' ? { session } : {}) });
      if (reply.ok) {
        cleared();
        if (isNewer(reply.value, get().session)) get().applySession(reply.value);
        return;
      }
      openFailed(reply.error);
      // What was open before serves the user better than an empty window; a later open wins.
      if (reply.error.code === 'cancelled' || get().session !== null) return;
      const back = await deps.api.openFile({ id: file.id, ...(shown.session !== '' ? { session: shown.session } : {}) });
      if (!back.ok) return openFailed(back.error);
      if (isNewer(back.value, get().session)) get().applySession(back.value);
    },

    async openWithDialog() {
      const cleared = alertsBefore();
      const reply = await deps.api.openDialog({});
      if (!reply.ok) return openFailed(reply.error, reply.error.code === 'not_supported' ? 'Choose one of the files this host offers, or start it with the file you want.' : LOAD_FAILED_HINT);
      if (reply.value) cleared();
      if (reply.value && isNewer(reply.value, get().session)) get().applySession(reply.value);
    },

    async openDropped(file) {
      const cleared = alertsBefore();
      const reply = await deps.openDropped(file);
      if (!reply.ok) {
        const hint =
          reply.error.code === 'not_supported'
            ? `To inspect ${file.name}, start the host with it: npx session-inspector serve ${file.name} (or open it in the desktop app).`
            : LOAD_FAILED_HINT;
        return openFailed(reply.error, hint);
      }
      cleared();
      if (isNewer(reply.value, get().session)) get().applySession(reply.value);
    },

    pushAlert(message, hint) {
      const alerts = get().alerts;
      if (alerts.some((a) => a.message === message && a.hint === hint)) return;
      // A few at a time: the oldest gives way.
      set({ alerts: [...alerts.slice(-4), { id: nextAlertId++, message, ...(hint !== undefined ? { hint } : {}) }] });
    },

    dismissAlert(id) {
      set({ alerts: get().alerts.filter((a) => a.id !== id) });
    },

    applySession(info) {
      cancelLiveRefresh();
      liveRefresh.checkAgain = false;
      const loading = get().loading;
      // A check the user asked for over a preview is answered for the preview's epoch and dropped:
      // it runs again over the whole session that replaces it, whatever the session's size.
      const before = get().session;
      const checkAsked = get().checkStatus === 'running' && before?.provisional === true && info !== null && !info.provisional && info.generation === before.generation;
      set({
        session: info,
        epoch: get().epoch + 1,
        listEpoch: get().listEpoch + 1,
        liveNew: 0,
        liveNotice: null,
        // A preview keeps the progress bar: the file is still being indexed.
        loading: info && !info.provisional && loading && loading.generation <= info.generation ? null : loading,
        ...freshRows(info),
        ...freshReductions(),
        ...freshSearchResults(),
        ...freshLog(),
        ...freshFindings(),
        ...freshCalls(),
        ...freshStory(),
        // A bundle's search goes on while the preview becomes the whole session.
        ...(info !== null && info.generation === before?.generation ? {} : freshBundles()),
      });
      if (!info || info.provisional) return;
      if (info.stopped) {
        get().pushAlert(
          `${info.files.map((f) => f.path.split(/[\\/]/).pop()).join(' + ')} was written by a newer format version than this Session Inspector reads; its content was not read.`,
          'Open it with a newer Session Inspector; the Findings tab says which file and version.',
        );
      }
      // The resolver answers one request at a time: on a big session the check would hold every
      // row and expansion behind it for minutes, so there it waits for the user to ask.
      if (checkAsked || sessionBytes(info) <= AUTO_CHECK_MAX_BYTES) void get().runCheck();
      if (get().searchQuery.trim() !== '' && !info.stopped) void get().runSearch();
    },

    // --- live sessions ---
    setAtBottom(atBottom) {
      if (get().atBottom !== atBottom || (atBottom && get().liveNew > 0)) set({ atBottom, ...(atBottom ? { liveNew: 0 } : {}) });
    },

    async setFollow(follow) {
      const reply = await deps.api.setFollow({ follow });
      // The reopened session arrives as sessionOpened.
      if (!reply.ok) openFailed(reply.error);
    },

    jumpToLatest() {
      const { rowCount } = get();
      set({ liveNew: 0 });
      if (rowCount > 0) get().selectRow(rowCount - 1, 'end');
    },

    applyLiveUpdate(info, newMessages) {
      const before = get();
      const latestShown = before.shownCall === null;
      // A new epoch drops every reply in flight about the smaller session; rows, statuses and
      // expansions are kept (and rows asked again in place), so nothing the user looks at moves.
      set({
        session: info,
        epoch: before.epoch + 1,
        ...(latestShown ? { rowCount: info.rows } : {}),
        liveNew: before.atBottom ? 0 : before.liveNew + newMessages,
      });
      if (latestShown) get().refreshRows();
      // What is asked over the whole session (log, check, search, context map) is asked again at
      // most once per liveRefreshMs: at 1 GiB a check or a search per look would queue in the
      // worker faster than it answers. The first update of a quiet spell refreshes at once.
      if (liveRefresh.timer !== undefined) return;
      const wait = liveRefresh.last + deps.timing.liveRefreshMs - Date.now();
      if (wait <= 0) refreshLive();
      else liveRefresh.timer = setTimeout(refreshLive, wait);
    },
    // ---
    handleEvent(event) {
      switch (event.name) {
        case 'loadProgress': {
          const { generation } = event.payload;
          const session = get().session;
          // A preview is still loading: its progress shows.
          if (session && !session.provisional && session.generation >= generation) return;
          set({ loading: { ...event.payload } });
          return;
        }
        case 'searchProgress':
          get().applySearchProgress(event.payload);
          return;
        case 'bundleProgress':
          get().applyBundleProgress(event.payload);
          return;
        case 'sessionPreview':
          if (isNewer(event.payload, get().session)) get().applySession(event.payload);
          return;
        case 'sessionOpened':
          if (isNewer(event.payload, get().session)) get().applySession(event.payload);
          else if (get().loading && (get().loading?.generation ?? 0) <= event.payload.generation) set({ loading: null });
          return;
        case 'sessionClosed':
          if (get().session?.generation === event.payload.generation) get().applySession(null);
          return;
        case 'loadFailed': {
          const loading = get().loading;
          if (loading && loading.generation <= event.payload.generation) set({ loading: null });
          const shown = get().session;
          if (shown?.provisional && shown.generation <= event.payload.generation) get().applySession(null);
          openFailed(event.payload.error);
          return;
        }
        case 'workerRestarted':
          get().pushAlert(`The resolver restarted (${event.payload.reason}); the session was reopened.`);
          // Whatever was in flight died with the worker: start over on the same session.
          get().applySession(get().session);
          return;
        case 'fileChanged':
          // Its content is no longer served: say which file, and what to do.
          if (get().session?.generation === event.payload.generation) {
            // Nothing shown may still claim "verified": statuses and expansions are asked for again (and answer file_changed).
            set({ statuses: new Map(), expansions: new Map() });
            get().pushAlert(`${event.payload.path.split(/[\\/]/).pop() ?? event.payload.path} changed on disk since it was opened; its content is no longer shown as verified.`, 'Open the file again to read what it holds now.');
          }
          return;
        case 'sessionUpdated': {
          // The followed session grew, was reopened, or its file is gone.
          const shown = get().session;
          const { generation, info, new_messages: added, notice } = event.payload;
          if (!shown || shown.provisional || shown.generation !== generation) return;
          if (notice?.kind === 'deleted') {
            set({ liveNotice: notice.message });
            return;
          }
          if (notice?.kind === 'reopened') {
            // Read again from scratch: a new list (what was shown may no longer be there).
            get().applySession(info);
            set({ liveNotice: notice.message });
            return;
          }
          get().applyLiveUpdate(info, added);
          return;
        }
        case 'sessionCounts': {
          // The open file's sessions, counted after its open (an Inspect log's samples): the picker shows them as they arrive.
          const shown = get().session;
          if (!shown || shown.provisional || shown.generation !== event.payload.generation) return;
          const { sessions_omitted: _before, ...rest } = shown;
          set({ session: { ...rest, sessions: event.payload.sessions, ...(event.payload.sessions_omitted !== undefined ? { sessions_omitted: event.payload.sessions_omitted } : {}) } });
          return;
        }
        case 'libraryChanged':
          get().applyLibraryChange(event.payload);
          return;
        case 'command':
          if (event.payload.name === 'toggleTheme') get().toggleTheme();
          else if (event.payload.name === 'focusSearch') get().requestFocusSearch();
          else get().setShortcutsOpen(true);
          return;
      }
    },
  };
};
