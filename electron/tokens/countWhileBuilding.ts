/**
 * Contents counted on the counting thread while the session is built (docs/token-estimates.md
 * "Counted while the session is built"). `view` knows the call it prints before it reads the
 * session, and `log` that it counts every reduction's original; a format that can tell which of its
 * contents those are offers them as soon as it knows them, in or after its pass and before its build
 * (LoadOptions.countWhileBuilding), and they go to the counting thread at once, which sat idle
 * while the session was read. Once
 * built, the session's estimator (SessionEstimates.countAhead, countHiddenAhead) takes each answer
 * in place of counting that content, and takes back the batches the thread has not begun (their
 * claim: CountRequest.claim) to count them itself.
 *
 * A guess costs nothing when wrong: a content the input does not show is never asked for, and a
 * content asked for and not offered is counted as before. An estimate is the one `sourcePlan` makes
 * of the same source, or `textPlan` of an equal text held in memory, counted by the same function,
 * so it is the same wherever it was counted.
 */
import type { TokenEstimate } from '../../shared/tokens/estimate';
import type { CountWhileBuilding, OfferedContent } from '../loader/common/source';
import type { CountPlan } from './counter';
import { contentPlan, countPlan } from './counter';
import type { TextCounter } from './textCounter';
import { CLAIM_FREE, TAKEN_HERE } from './textCounter';

/**
 * Contents offered at most, in bytes: more than the counting thread counts while the bench's 537 MB
 * session is built (some 8 MB/s for one to two seconds; what it has not begun is taken back), and a
 * bound on what this thread reads and decodes to hand over in one go.
 */
export const COUNT_WHILE_BUILDING_BYTES = 32 * 1024 * 1024;
/** Characters per batch handed to the thread: a batch is what either thread takes at once. */
const BATCH_CHARS = 256 * 1024;

interface Batch {
  readonly sources: OfferedContent[];
  /** Each source's plan, to make its estimate of its summed counts (a sampled plan scales by what it decoded). */
  readonly plans: CountPlan[];
  /** How many of the batch's texts are each source's, in order. */
  readonly textCounts: number[];
  readonly claim: Int32Array;
  /** Its texts' characters. */
  readonly chars: number;
  /** Settled once the batch is over: answered, failed, or counted (or dropped) by this thread; never rejected. */
  readonly over: Promise<void>;
  /** True once `over` is settled. */
  isOver: boolean;
  /** Settles `over` (once). */
  finish(): void;
}

export class ContentsCountedAhead implements CountWhileBuilding {
  private readonly batches: Batch[] = [];
  private readonly pendingBy = new Map<OfferedContent, Batch>();
  private readonly estimates = new Map<OfferedContent, TokenEstimate>();
  /** Batches this thread may still take back, in the order posted: the last is taken back first. */
  private takeable: Batch[] = [];
  /** The sources the input asks for, once known (`want`): the others are not counted. */
  private wanted: Set<OfferedContent> | undefined;

  constructor(
    readonly wants: CountWhileBuilding['wants'],
    private readonly counter: TextCounter,
    readonly maxBytes: number = COUNT_WHILE_BUILDING_BYTES,
  ) {}

  /** Plans each content here (a source read and decoded) and hands their texts to the thread, a batch at a time. */
  offer(sources: readonly OfferedContent[]): void {
    let batch = { sources: [] as OfferedContent[], plans: [] as CountPlan[], textCounts: [] as number[], texts: [] as string[], chars: 0 };
    const post = (): void => {
      if (batch.sources.length === 0) return;
      const claim = new Int32Array(new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT));
      let finish = (): void => undefined;
      const over = new Promise<void>((resolve) => (finish = resolve));
      const posted: Batch = {
        sources: batch.sources,
        plans: batch.plans,
        textCounts: batch.textCounts,
        claim,
        chars: batch.chars,
        over,
        isOver: false,
        finish() {
          posted.isOver = true;
          finish();
        },
      };
      void this.counter.countUnlessTaken(batch.texts, claim).then(
        (counts) => {
          if (counts) this.settle(posted, counts);
          posted.finish();
        },
        () => {
          this.release(posted);
          posted.finish();
        },
      );
      this.batches.push(posted);
      this.takeable.push(posted);
      for (const s of posted.sources) this.pendingBy.set(s, posted);
      batch = { sources: [], plans: [], textCounts: [], texts: [], chars: 0 };
    };
    // A text equal to one offered is that one (its estimate is any equal text's), within this offer too.
    const inThisOffer = new Set<OfferedContent>();
    for (const source of sources) {
      if (this.pendingBy.has(source) || this.estimates.has(source) || inThisOffer.has(source)) continue;
      inThisOffer.add(source);
      const plan = contentPlan(source);
      const texts: string[] = [];
      try {
        for (const text of plan.texts) texts.push(text);
      } catch {
        // Unreadable here: counted where it is asked, which reports why.
        continue;
      }
      batch.sources.push(source);
      batch.plans.push(plan);
      batch.textCounts.push(texts.length);
      for (const text of texts) {
        batch.texts.push(text);
        batch.chars += text.length;
      }
      if (batch.chars >= BATCH_CHARS) post();
    }
    post();
  }

  /** The source's estimate, once counted on either thread; undefined before, and for a source never offered. */
  estimate(source: OfferedContent): TokenEstimate | undefined {
    return this.estimates.get(source);
  }

  /** True while the source is offered and not yet counted (the thread has it, or this thread may take it back). */
  pending(source: OfferedContent): boolean {
    return this.pendingBy.has(source);
  }

  /**
   * The sources the built input asks for: a batch of none of them that the thread has not begun is
   * taken back and dropped, and a batch taken back counts only those (the guess was wrong for the rest).
   */
  want(sources: ReadonlySet<OfferedContent>): void {
    this.wanted = new Set(sources);
    const kept: Batch[] = [];
    for (const batch of this.takeable) {
      if (batch.sources.some((s) => sources.has(s)) || Atomics.compareExchange(batch.claim, 0, CLAIM_FREE, TAKEN_HERE) !== CLAIM_FREE) kept.push(batch);
      else this.drop(batch);
    }
    this.takeable = kept;
  }

  /**
   * Takes back the last batch the thread has not begun and counts it here: false when there is
   * none left (the thread began or answered each). The sources are read again (their texts are not
   * held here while the thread has them).
   */
  countOneHere(): boolean {
    for (;;) {
      const batch = this.takeable.pop();
      if (!batch) return false;
      if (Atomics.compareExchange(batch.claim, 0, CLAIM_FREE, TAKEN_HERE) !== CLAIM_FREE) continue;
      this.countHere(batch);
      return true;
    }
  }

  /**
   * Counts here the last batch not yet over, begun by the thread or not (a thread that has not
   * answered for a while: SessionEstimates' `HELP_AFTER_MS`); the thread's answer, if it comes, is
   * then dropped (both count the same texts with the same function). False when every batch is over.
   */
  countUnansweredHere(): boolean {
    for (let k = this.batches.length - 1; k >= 0; k--) {
      const batch = this.batches[k] as Batch;
      if (batch.isOver) continue;
      Atomics.compareExchange(batch.claim, 0, CLAIM_FREE, TAKEN_HERE);
      this.takeable = this.takeable.filter((b) => b !== batch);
      this.countHere(batch);
      return true;
    }
    return false;
  }

  /** The batches not yet over, in the order posted: each one's characters, and a promise settled when it is over (never rejected). */
  unanswered(): { chars: number; over: Promise<void> }[] {
    return this.batches.filter((b) => !b.isOver);
  }

  /** How many batches the thread has not begun (and this thread may take back with `countOneHere`). */
  unbegun(): number {
    let n = 0;
    for (const batch of this.takeable) if (Atomics.load(batch.claim, 0) === CLAIM_FREE) n++;
    return n;
  }

  /** Every batch answered, taken back, counted here or failed. */
  async settled(): Promise<void> {
    await Promise.all(this.batches.map((b) => b.over));
  }

  /** Counts the batch's wanted sources here (read again: their texts are not held while the thread has them); the batch is then over. */
  private countHere(batch: Batch): void {
    for (const source of batch.sources) {
      if (this.pendingBy.get(source) !== batch || (this.wanted && !this.wanted.has(source))) continue;
      try {
        this.estimates.set(source, countPlan(contentPlan(source)));
      } catch {
        // Unreadable now: left to be counted where it is asked, which reports why.
      }
    }
    this.drop(batch);
  }

  /** A batch this thread took: its sources are no longer pending, and it is over without the thread's answer. */
  private drop(batch: Batch): void {
    this.release(batch);
    batch.finish();
  }

  /** Each source's estimate from the batch's counts, in order. */
  private settle(batch: Batch, counts: readonly number[]): void {
    let k = 0;
    batch.sources.forEach((source, j) => {
      let sum = 0;
      for (const end = k + (batch.textCounts[j] as number); k < end; k++) sum += counts[k] ?? 0;
      if (this.pendingBy.get(source) === batch) this.estimates.set(source, (batch.plans[j] as CountPlan).estimate(sum));
    });
    this.release(batch);
  }

  /** The batch's sources are no longer pending (counted, or left to be counted where asked). */
  private release(batch: Batch): void {
    for (const s of batch.sources) if (this.pendingBy.get(s) === batch) this.pendingBy.delete(s);
  }
}
