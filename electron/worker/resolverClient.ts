/**
 * The host's handle on the resolver worker, as the worker's side defines it: `client.ts`
 * implements it, the session host (electron/host/) and `serve` drive it (electron/host/types.ts
 * re-exports it with the host's other seams).
 */
import type { HostError, HostEvent, ParsedParams, Reply, SessionInfo, WorkerSessionMethod } from '../../shared/index';

/** The host thread's handle on the resolver worker. */
export interface ResolverClient {
  /**
   * Opens files in the worker (closing any open session); progress arrives as `loadProgress` events.
   * `source` picks a session of the file and may force its format (§10.1–10.2).
   */
  open(paths: string[], generation: number, source?: OpenSource): Promise<{ ok: true; value: SessionInfo } | { ok: false; error: HostError }>;
  close(): Promise<void>;
  /** A session method, answered by the worker; params are already validated. */
  request<M extends WorkerSessionMethod>(method: M, params: ParsedParams<M>): Promise<Reply<M>>;
  /** Cancels the search `searchId` if it is in flight; true when it was. */
  cancelSearch(searchId: string): boolean;
  /** Stops the repro bundle `bundleId` if it is in flight (it answers with its best so far); true when it was. */
  cancelBundle(bundleId: string): boolean;
  /** `loadProgress` while opening; `workerRestarted` after a crash (the client restarts the worker and reopens the last files). */
  onEvent(listener: (event: HostEvent) => void): () => void;
  dispose(): Promise<void>;
}

/** Which session of a file to open, and a format forced instead of detected (`--session`, `--format`). */
export interface OpenSource {
  session?: string;
  format?: string;
  /** False opens without following the files (a change then makes them `file_changed`). */
  follow?: boolean;
  /** One per path: the name the user knows the file by (an upload's label), written instead of its path into a repro bundle. */
  labels?: string[];
  /**
   * The folders (real paths) every file of the session must really be inside, at the open and at
   * every reopen: the served folder, for `serve DIR` (docs/safe-reads.md). Set by the host only.
   */
  roots?: string[];
}
