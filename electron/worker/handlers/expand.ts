/**
 * `expand` (docs/worker.md): a reduction's original, a slice at a time, with what the model saw
 * of it. Its slicing is also `rowText`'s (handlers/rows.ts).
 */
import { MAX_SLICE_BYTES } from '../../../shared/index';
import { hostError, ok } from '../replies';
import { callView } from './calls';
import type { Handler } from './handler';

/** A byte range no longer than MAX_SLICE_BYTES: a longer one keeps its start and is cut at start + MAX_SLICE_BYTES. */
export function clampSlice(range: readonly [number, number]): [number, number] {
  const [start, end] = range;
  return end - start > MAX_SLICE_BYTES ? [start, start + MAX_SLICE_BYTES] : [start, end];
}

/**
 * `expandReduction` (SPEC §5.1) with its range clamped to MAX_SLICE_BYTES. Without a range the
 * reply is `[0, min(total_bytes, MAX_SLICE_BYTES))`, not the whole original: an original can be
 * hundreds of megabytes, and the renderer pages through it with ranges, knowing `total_bytes`.
 */
export const expand: Handler<'expand'> = (request, state) =>
  state.withSession('expand', (open) => {
    const view = callView(open, request.call);
    if ('ok' in view) return view;
    const story = open.session.expandStory(request.id, request.range ? clampSlice(request.range) : [0, MAX_SLICE_BYTES], request.call);
    if (!story.ok) return hostError(story.error);
    const { outcome, hidden, messages } = story.value;
    return ok({ ...outcome, hidden, ...(messages ? { messages } : {}) });
  });
