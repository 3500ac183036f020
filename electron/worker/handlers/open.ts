/**
 * Opening and closing (docs/worker.md): the worker's `open` and `close`, which are not session
 * methods of the contract (workerMethods). An open closes the session before it, indexes the new
 * files (previewing a large one), follows them unless told not to, and starts the idle work.
 */
import { statSync } from 'node:fs';
import type { z } from 'zod';
import type { EventPayload, LoadedSession, SessionInfo } from '../../../shared/index';
import { workerMethods } from '../../../shared/index';
import type { IdleVerifier } from '../../loader/content/backgroundVerify';
import { BACKGROUND_MIN_BYTES, startIdleVerifier } from '../../loader/content/backgroundVerify';
import { SessionFollower } from '../../loader/follow';
import { loadSession } from '../../loader/session';
import type { WorkerReply } from '../protocol';
import { fail, hostError, internal, ok } from '../replies';
import type { SessionState } from '../state';
import { describe } from '../state';
import { verifyAfterReply } from './background';
import { countAfterReply } from '../sessionCounts';
import { startFollowing } from './follow';

export type OpenParams = z.output<typeof workerMethods.open.params>;
export type LoadProgressPayload = EventPayload<'loadProgress'>;

/** The bytes of the files an open names (0 for one that cannot be stat'ed: the open reports it). */
function filesBytes(paths: readonly string[]): number {
  let total = 0;
  for (const path of paths) {
    try {
      total += statSync(path).size;
    } catch {
      // not a file this open can read; the loader says why
    }
  }
  return total;
}

/**
 * Opens `params.paths`, closing the open session first (its memory is released before the new
 * files are indexed). On failure nothing is open. Progress is reported with the request's
 * generation.
 *
 * A large sidecar is previewed while it is indexed: `onPreview` gets a provisional info and, from
 * then on, session methods answer over the records read so far until the open resolves. An open
 * or close that comes meanwhile supersedes this one, which then answers `cancelled`.
 */
export async function openSession(
  state: SessionState,
  params: OpenParams,
  onProgress?: (progress: LoadProgressPayload) => void,
  onPreview?: (info: SessionInfo) => void,
): Promise<WorkerReply<SessionInfo>> {
  state.cancelLoad();
  const signal = { aborted: false };
  let finished: () => void = () => undefined;
  state.loading = { signal, done: new Promise<void>((resolve) => (finished = resolve)) };
  let idle: IdleVerifier | undefined;
  const { loadOptions, follow, background } = state.options;
  try {
    state.release();
    state.labels = new Map((params.labels ?? []).map((label, k) => [params.paths[k] ?? '', label]));
    const { generation } = params;
    const asked = params.session ?? '';
    const source = { ...loadOptions, services: state.services, ...(asked !== '' ? { session: asked } : {}), ...(params.format !== undefined ? { format: params.format } : {}), ...(params.roots !== undefined ? { roots: params.roots } : {}) };
    const once = {
      signal,
      ...(onProgress ? { onProgress: (p: { bytesRead: number; totalBytes: number }) => onProgress({ generation, bytesRead: p.bytesRead, totalBytes: p.totalBytes }) } : {}),
      onPreview: (preview: LoadedSession) => {
        if (signal.aborted) return;
        state.current = describe(preview, generation, true, asked);
        onPreview?.(state.current.info);
      },
    };
    const follows = params.follow !== false;
    // The background thread starts while the files are indexed (its start then costs the open
    // nothing it waits for); it gets its work once the open has replied.
    state.idleVerifier?.dispose();
    idle = filesBytes(params.paths) >= (background.minBytes ?? BACKGROUND_MIN_BYTES) ? startIdleVerifier(background) : undefined;
    state.idleVerifier = idle;
    const loaded = follows
      ? await SessionFollower.open(params.paths, { ...source, ...(follow.settleMs !== undefined ? { settleMs: follow.settleMs } : {}) }, once)
      : await loadSession(params.paths, { ...source, ...once });
    if (signal.aborted) {
      if (loaded.ok) ('follower' in loaded ? loaded.follower : loaded.session).close();
      return fail('cancelled', `opening ${params.paths.join(' + ')} was superseded`);
    }
    if (!loaded.ok) {
      state.current = undefined;
      return hostError(loaded.error);
    }
    if ('follower' in loaded) {
      state.current = describe(loaded.follower.session, generation, false, asked, {}, true);
      startFollowing(state, loaded.follower, asked);
    } else {
      state.current = describe(loaded.session, generation, false, asked);
    }
    verifyAfterReply(state, state.current);
    countAfterReply(state, state.current);
    return ok(state.current.info);
  } catch (e) {
    state.release();
    return internal(e);
  } finally {
    if (state.loading?.signal === signal) state.loading = undefined;
    // Not handed its work (the open failed or was superseded): the thread ends.
    if (idle && state.idleVerifier === idle) {
      idle.dispose();
      state.idleVerifier = undefined;
    }
    finished();
  }
}

/** Closes the session, superseding an open still being indexed. */
export function closeSession(state: SessionState): WorkerReply<Record<string, never>> {
  state.cancelLoad();
  return state.release();
}

/** Resolves once no open is being indexed (at once when none is). */
export function whenLoaded(state: SessionState): Promise<void> {
  return state.loading?.done ?? Promise.resolve();
}
