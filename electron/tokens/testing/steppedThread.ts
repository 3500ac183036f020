/**
 * A stand-in for the counting thread (textCounter.ts) that counts a request only when the test
 * says, with the real thread's rule for a claim: it swaps a free claim for its own before it
 * counts, and skips a taken one. A thread at the lowest priority beside busy ones, which gets no
 * CPU until told (docs/token-estimates.md "A thread that does not answer").
 */
import { countText } from '../counter';
import type { TextCounter } from '../textCounter';
import { CLAIMED_BY_THREAD, CLAIM_FREE } from '../textCounter';

/** One request as posted: its texts, its claim, and whether the stand-in counted it. */
export interface SteppedRequest {
  texts: string[];
  claim: Int32Array;
  counted?: boolean;
}

export interface SteppedThread extends TextCounter {
  /** Every request in the order posted. */
  readonly requests: SteppedRequest[];
  /** Answers the next request waiting (counted if its claim was free, else skipped); false when none waits. */
  step(): boolean;
  /** Claims the waiting requests told of by their place in the queue, without answering them: a thread that began them. */
  begin(which: readonly boolean[]): void;
  /** Answers every request begun and not yet answered. */
  answerBegun(): void;
}

/**
 * The stand-in; `mark` is added to each count it answers (an estimate it made shows it), and with
 * `beginOnArrival` it claims each request as it arrives (a thread that begins every batch at once).
 */
export function steppedThread(options: { mark?: number; beginOnArrival?: boolean } = {}): SteppedThread {
  const mark = options.mark ?? 0;
  const queue: { request: SteppedRequest; resolve: (counts: number[] | undefined) => void }[] = [];
  /** Requests claimed and not yet answered. */
  const begun: (typeof queue)[number][] = [];
  const requests: SteppedRequest[] = [];
  const claim = (item: (typeof queue)[number]): boolean => Atomics.compareExchange(item.request.claim, 0, CLAIM_FREE, CLAIMED_BY_THREAD) === CLAIM_FREE;
  const answer = (item: (typeof queue)[number]): void => {
    queue.splice(queue.indexOf(item), 1);
    item.request.counted = true;
    item.resolve(item.request.texts.map((t) => countText(t) + mark));
  };
  return {
    requests,
    count: () => Promise.reject(new Error('not used')),
    countUnlessTaken: (texts, c) =>
      new Promise((resolve) => {
        const item = { request: { texts, claim: c }, resolve };
        requests.push(item.request);
        queue.push(item);
        if (options.beginOnArrival === true && claim(item)) begun.push(item);
      }),
    close: () => undefined,
    step() {
      const next = queue[0];
      if (!next) return false;
      const wasBegun = begun.indexOf(next);
      if (wasBegun >= 0) begun.splice(wasBegun, 1);
      if (wasBegun >= 0 || claim(next)) answer(next);
      else {
        queue.shift();
        next.request.counted = false;
        next.resolve(undefined);
      }
      return true;
    },
    begin(which) {
      for (const [j, item] of queue.entries()) if (which[j] === true && !begun.includes(item) && claim(item)) begun.push(item);
    },
    answerBegun() {
      for (const item of begun.splice(0)) answer(item);
    },
  };
}
