/**
 * The seams of the Node side. One core (the resolver worker, driven through a ResolverClient) and
 * one SessionHost over it; the Electron IPC handlers and the HTTP host are thin adapters that feed
 * untrusted requests to `SessionHost.handle` and forward its events.
 */
import type { ServedFolder } from './folder';
import type { HostEvent, Method, Reply } from '../../shared/index';
import type { OpenSource, ResolverClient } from '../worker/resolverClient';
import type { ServedLibrary } from './library';

export type { OpenSource, ResolverClient } from '../worker/resolverClient';

/** Turns untrusted contract requests into replies, for one window or one HTTP host. */
export interface SessionHost {
  /** Validates `params` against the contract, then answers. Never throws. */
  handle(method: string, params: unknown): Promise<Reply<Method>>;
  /**
   * Opens paths the shell itself vouches for: named on the command line, chosen in the native
   * dialog, dropped on the window (resolved by the desktop shell), or a recent file. Never a path
   * taken from a request.
   */
  openPaths(paths: string[], source?: OpenSource): Promise<Reply<'openFile'>>;
  /**
   * Opens a file the HTTP host received as an upload. The host keeps it while it is the
   * session shown (offered under its label) and discards it once the session is closed or replaced,
   * when its open fails, and on dispose. `order` is the one `beginUpload` gave when its request
   * arrived: an upload that began before another already opened is superseded, whichever of the two
   * finished arriving first (the user dropped the later one last).
   */
  openUploaded?(file: UploadedFile, order?: number): Promise<Reply<'openFile'>>;
  /** Numbers an upload as its request arrives, for `openUploaded`. */
  beginUpload?(): number;
  /** Host events (the client's, plus sessionOpened / sessionClosed / loadFailed). */
  onEvent(listener: (event: HostEvent) => void): () => void;
  /**
   * The events that describe the host as it is now (the open session or its preview, the last failed
   * open, the progress of an open in flight): replayed to a subscriber that connects late, so none
   * of them is missed between its `state` request and its subscription.
   */
  current(): HostEvent[];
  dispose(): Promise<void>;
}

/** An upload's private temporary file: where it is, the label shown for it, and how to remove it. */
export interface UploadedFile {
  path: string;
  /** The file's name as the browser gave it, sanitized: shown, never used as a path. */
  label: string;
  /** Removes the file and its private folder; safe to call more than once. */
  discard(): Promise<void>;
}

export interface SessionHostOptions {
  host: 'electron' | 'http';
  client: ResolverClient;
  /** Files offered to the renderer by id (named at start; recent files in the desktop app). */
  files: string[];
  /** The format `files` are read as (`--format`), when forced: opening them by id keeps it. */
  format?: string;
  /** The native open dialog; absent on the HTTP host (`openDialog` answers `not_supported`). */
  openDialog?: () => Promise<string[] | null>;
  /** `serve DIR`: the folder whose session files `folder` lists and `openFile` opens by entry id. */
  folder?: ServedFolder;
  /** `serve` with no FILE: the session library `library` lists and `openLink` opens by place (./library.ts). */
  library?: ServedLibrary;
  /** False opens every session without following it (`--no-follow`); followed by default. */
  follow?: boolean;
  /** Called after every successful open (the desktop app remembers recent files). */
  onOpened?: (paths: string[]) => void;
  /**
   * How long `handle` waits for a request's answer before it answers `timeout` itself (a search
   * is cancelled then), by contract method with a `default`; a method bound to Infinity is not
   * bounded. DEFAULT_HOST_TIMEOUTS when absent.
   */
  requestTimeoutMs?: HostTimeouts;
}

/** Bounds in milliseconds by contract method, and one for the rest. */
export type HostTimeouts = { readonly default: number } & { readonly [method: string]: number | undefined };
