/**
 * A followed session (docs/worker.md): while its files grow, each update replaces the open session
 * (same generation and token, its layout extended) and is reported through `sessionUpdated`.
 */
import type { SessionFollower } from '../../loader/follow';
import { FollowLoop } from '../../loader/followLoop';
import { countAfterReply } from '../sessionCounts';
import type { SessionState } from '../state';
import { describe } from '../state';

/** Follows the open session: every update replaces it (same generation and token) and is reported. */
export function startFollowing(state: SessionState, follower: SessionFollower, asked: string): void {
  const { follow } = state.options;
  const loop = new FollowLoop(
    follower,
    (update) => {
      const open = state.current;
      if (!open || state.following?.follower !== follower) return;
      const next = describe(update.session, open.info.generation, false, asked, open.token, true, update.notice?.kind === 'reopened' ? undefined : open);
      state.current = next;
      if (next.session !== open.session) countAfterReply(state, next);
      follow.onUpdated?.({
        generation: next.info.generation,
        info: next.info,
        new_messages: Math.max(0, next.info.messages - open.info.messages),
        calls: update.session.calls.length,
        ...(update.notice ? { notice: update.notice } : {}),
      });
    },
    follow.loop ?? {},
  );
  state.following = { follower, loop };
}

/** One look at the followed files now (tests; the loop looks by itself). */
export function followNow(state: SessionState): Promise<void> {
  return state.following?.loop.trigger() ?? Promise.resolve();
}
