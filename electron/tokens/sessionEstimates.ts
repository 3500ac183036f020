/**
 * SPEC §15 estimates over one loaded session: per message of a call's input (cached per message
 * for the session's life), per hidden original, the context breakdown at a call, and the
 * calibration against the context the file records from call to call (docs/token-estimates.md).
 *
 * Cache key of a message: its view index and the ids of the reductions applied to it. Within one
 * loaded session the minted view's message at an index does not change (a followed file only
 * appends), and the text the model was shown there is fixed by the reductions applied: so a key
 * names one text, whichever call's input it appears in.
 */
import type { ByteSource, MessageList, Reduction } from '../../shared/format/types';
import { HASH_ON_READ } from '../../shared/format/types';
import type { CallInput, ModelCall, ViewEntry } from '../../shared/calls/calls';
import { logChanges, rowStartAt, viewEntries } from '../../shared/calls/calls';
import { inSource } from '../../shared/calls/whatIf';
import { projectRows, projectionLayout, rowsTouched } from '../../shared/resolver/project';
import { addressedRange, resolveOriginal } from '../../shared/resolver/original';
import type { ContextBreakdown } from '../../shared/tokens/breakdown';
import { contextBreakdown } from '../../shared/tokens/breakdown';
import type { Calibration, GrowthPair } from '../../shared/tokens/calibration';
import { CLAUDE_DEFAULT, MIN_GROWTH_TOKENS, calibrate, calibrated } from '../../shared/tokens/calibration';
import type { TokenEstimate } from '../../shared/tokens/estimate';
import { isClaudeModel, samplePlan, sumEstimates, tokenEstimate } from '../../shared/tokens/estimate';
import type { OfferedContent } from '../loader/common/source';
import type { LoadedSession } from '../loader/session';
import { nodeRunningSha256, nodeSha256 } from '../loader/session';
import { TranscriptHashes } from '../../shared/resolver/transcriptHashes';
import type { CountPlan } from './counter';
import type { TextCounter } from './textCounter';
import { CLAIM_FREE, TAKEN_HERE } from './textCounter';
import type { ContentsCountedAhead } from './countWhileBuilding';
import { contentPlan, countPlan, countText, counterLoadedHere, estimateSource, estimateText } from './counter';

/** The context the file records for call N (1-based), where it records one (SPEC §15 recorded usage). */
export type RecordedContext = (call: number) => number | undefined;

/** The context the file recorded at each call (SPEC §15, LoadedSession.callTokens): what calibration fits estimates to. */
export function recordedContextOf(session: Pick<LoadedSession, 'callTokens'>): RecordedContext {
  return (call) => session.callTokens(call)?.context;
}

/** A call's input and its view's entries, made by the caller (electron/cli/view.ts PreparedView). */
export interface GivenView {
  readonly input: CallInput;
  readonly entries: readonly ViewEntry[];
}

export interface CallEstimate {
  /** Per entry of the call's input, in order: in the file's tokens where calibrated. */
  messages: TokenEstimate[];
  total: TokenEstimate;
}

/** What `hidden_tokens_est` says of a reduction: the original's estimate minus what replaced it, at least 0. */
export interface HiddenEstimate {
  id: string;
  hidden: TokenEstimate | null;
}

/** A reduction's figures: what it hid from the model, and its whole original. */
export interface ReductionEstimate {
  hidden: TokenEstimate | null;
  original: TokenEstimate | null;
}

/** An open session's estimates and, per view (the latest or a call's input), each reduction's figures (the worker's `hiddenTokens`). */
export interface HiddenTokens {
  estimates: SessionEstimates;
  /** Per view (its minted list): each reduction's figures, the text shown in place of each applied one, and the rows projected for it. */
  byView: WeakMap<MessageList, HiddenTokensOfView>;
}

export interface HiddenTokensOfView {
  known: Map<string, ReductionEstimate>;
  /** The text the model was shown at a projected row, by the id of the reduction applied there. */
  shown: Map<string, string>;
  /** Rows already projected: a row holding 100,000 reductions is projected once, not once per ask. */
  projected: Set<number>;
}

/** The most call-to-call steps the calibration's walk counts (docs/token-estimates.md "Long sessions"). */
export const MAX_CALIBRATION_STEPS = 128;

/**
 * The indexes (into the session's calls) of the walk's steps, in order: every call of a session of
 * at most MAX_CALIBRATION_STEPS + 1 calls; else `steps` evenly spaced calls from the second on,
 * each closing a pair with the call before it.
 */
export function calibrationStepCalls(calls: number, steps: number = MAX_CALIBRATION_STEPS): number[] {
  if (calls <= steps + 1) return Array.from({ length: calls }, (_, k) => k);
  return Array.from({ length: steps }, (_, k) => 1 + Math.floor((k * (calls - 1)) / steps));
}

/** An entry's cache key: its view index and the reductions applied to it (see the file's head). */
const entryKey = (entry: ViewEntry): string => `${entry.index}|${entry.reductions.join(',')}`;

/**
 * What an entry's estimate counts as its content: its source when the file holds it (the row shows
 * its first bytes), else its text; either may have been counted while the session was built.
 */
const countedContent = (entry: ViewEntry, view: MessageList): OfferedContent => inSource(entry, view) ?? entry.content;

/** What an estimate counted ahead counts (AheadJob.plan): an entry's content, and its texts besides (`othersOf`) not yet counted. */
interface EntryPlan {
  content: CountPlan;
  /** Counted whole, never sampled. */
  others: string[];
}

/** An entry's estimate: its content's, and the count of the rest; sampled when its content was. */
function entryEstimate(content: TokenEstimate, others: number): TokenEstimate {
  return tokenEstimate(content.tokens + others, { sampled: content.sampled === true });
}

/** Text handed to a counting thread at once (UTF-16 units): some 30 ms of its counting at 8 MB/s. */
const AHEAD_CHARS = 256 * 1024;
/**
 * Batches handed to the counting thread and not yet answered, at most. This thread also reads and
 * decodes the counter's share, walks the calibration's steps and collects the session's garbage,
 * so the counter is kept further ahead than two batches: on the bench's 537 MB session it then
 * counted 6.8–7.5 M characters against 6.1–6.7 M with two, and the whole took 0.56–0.70 of its time
 * on one thread (docs/token-estimates.md "Counting on two threads").
 */
const AHEAD_BATCHES = 4;
/**
 * What `shareCounting` leaves to the counting thread when this one has not loaded the tokenizer
 * (150–200 ms here the first time: `counterLoadedHere`): up to so many more of the jobs'
 * characters, while at most so many offered batches are unbegun. `view --at` of the bench's 537 MB
 * session had some 1 M characters of small entries left after its walk: loading the tokenizer for
 * them and waiting took about 300 ms, leaving them to the thread 105–145 ms
 * (docs/token-estimates.md "Counted while the session is built").
 */
const LEFT_TO_THE_THREAD = { chars: 2 * 1024 * 1024, batches: 2 };

/**
 * How long this thread, with nothing left to count, waits for the counting thread's next answer
 * before it counts a batch still handed out itself (`helpWhenStalled`): HELP_AFTER_MS, and the
 * time the thread would take to count the batch it answers next at HELP_SLOW_CHARS_PER_MS. The
 * thread counts some 4–8 M characters a second; it runs at the lowest priority, and on a machine
 * whose cores are all busy it may get almost none of one (docs/token-estimates.md "A thread that
 * does not answer").
 */
export const HELP_AFTER_MS = 250;
/** A quarter of the slowest rate the counting thread was measured at (4 M characters a second). */
const HELP_SLOW_CHARS_PER_MS = 1_000;

/** How counting ahead waits for the counting thread. */
export interface AheadOptions {
  /** HELP_AFTER_MS unless given (tests; Infinity: wait for the thread however long it takes). */
  helpAfterMs?: number;
}

/** A batch `shareCounting` handed to the counter. */
interface Handed {
  readonly texts: string[];
  /** Its characters: what the thread has to count. */
  readonly chars: number;
  /** Taken here (TAKEN_HERE) before this thread counts it, so that a thread that has not begun it skips it. */
  readonly claim: Int32Array;
  /** Settled once answered, failed or counted here (never rejected). */
  over: Promise<void>;
  /** Takes the batch's counts, the first time only (undefined: none, it is left to be counted where asked). */
  answer(counts: readonly number[] | undefined): void;
}

/**
 * Waits for the batches handed to the counting thread (`open`, and those offered while the
 * session was built), and when none is answered in time (HELP_AFTER_MS and the next batch's
 * characters at HELP_SLOW_CHARS_PER_MS), counts here the batches still open, the last first, begun
 * by the thread or not, taking the thread's answers between them: both count the same texts with
 * the same function, so the first answer is the answer. The thread runs at the lowest priority
 * (nice 19), and beside busy threads at the normal priority it may get a few per cent of a core: a
 * command then waited seconds on a batch of some 30 ms.
 */
async function helpWhenStalled(open: Set<Handed>, built: ContentsCountedAhead | undefined, helpAfterMs: number): Promise<void> {
  let stalledOnce = false;
  for (;;) {
    // Posted in this order: what was offered while the session was built, then the handed batches.
    const waiting = [...(built?.unanswered() ?? []), ...open];
    const next = waiting[0];
    if (!next) return;
    if (stalledOnce) {
      // Found stalled once: the rest is counted here, taking the thread's answers between batches.
      await new Promise<void>((resolve) => setImmediate(resolve));
    } else {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const answered = Promise.race(waiting.map((w) => w.over)).then(() => false);
      const wait = helpAfterMs + next.chars / HELP_SLOW_CHARS_PER_MS;
      stalledOnce = Number.isFinite(wait) ? await Promise.race([answered, new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), wait)))]) : await answered;
      clearTimeout(timer);
      if (!stalledOnce) continue;
    }
    const last = [...open].pop();
    if (last) {
      Atomics.compareExchange(last.claim, 0, CLAIM_FREE, TAKEN_HERE);
      last.answer(last.texts.map(countText));
    } else built?.countUnansweredHere();
  }
}

/**
 * How many times faster this thread hashes bytes than it counts them: SHA-256 some 500 MB/s here,
 * counting 4–8 MB/s (docs/token-estimates.md).
 */
const HASH_TO_COUNT_SPEED = 64;

/**
 * `AheadJob.work` of an original of `bytes`: what is counted of it (its sample when it is sampled:
 * `samplePlan`) and, being verified, its hash.
 */
function hereWork(bytes: number): number {
  const plan = samplePlan(bytes);
  const counted = plan.sampled ? plan.ranges.reduce((n, [a, b]) => n + b - a, 0) : bytes;
  return counted + bytes / HASH_TO_COUNT_SPEED;
}

/** An input's entries by cache key, with its view. */
interface KeyedEntries {
  entries: Map<string, ViewEntry>;
  view: MessageList;
}

/**
 * A reduction's original's cache key: what names the original — its kind, where it is, and its
 * hash — not the record's id. Records that name the same original share its count (100,000
 * reductions of one message were 100,000 originals read, verified and counted, one per id;
 * docs/token-estimates.md "One count per original").
 */
const originalKey = (r: Reduction): string => `${r.kind}|${r.ptr.index}|${r.end ?? ''}|${hashKey(r)}|${r.ptr.bytes ?? ''}`;

/**
 * The hash part of `originalKey`, without making a hash made when first read (HASH_ON_READ: a
 * compaction's transcript, which the resolve that counts it hashes anyway): its reduction's id
 * stands for it, the same before and after it is made.
 */
const hashKey = (r: Reduction): string => (HASH_ON_READ in r.ptr ? `id:${r.id}` : (r.ptr.hash ?? ''));

/** One estimate counted ahead (SessionEstimates.shareCounting). */
interface AheadJob {
  /** Counts it on this thread, into its cache. */
  here(): void;
  /**
   * About how long `here` takes, in characters the counter counts meanwhile (`hereWork`): so many
   * are handed to the counter before this thread begins it, so the counter is not left idle while
   * this thread verifies and counts a large original.
   */
  readonly work?: number;
  /**
   * What the counter is to count for it, and where its counts go: its content's estimate, and the
   * count of each of its other texts, in order; undefined when there is nothing to count (it is then known).
   */
  plan(): (EntryPlan & { done(content: TokenEstimate, otherCounts: readonly number[]): void }) | undefined;
}

/** A step of the calibration's walk (SessionEstimates.stepAt). */
interface Step {
  recorded: number;
  previous: KeyedEntries;
  current: KeyedEntries;
}

/** Entries by cache key. */
function keyed(entries: readonly ViewEntry[]): Map<string, ViewEntry> {
  const out = new Map<string, ViewEntry>();
  for (const e of entries) out.set(entryKey(e), e);
  return out;
}

/** An original's raw o200k estimate and its length in bytes. */
export interface KnownOriginal {
  estimate: TokenEstimate;
  bytes: number;
}

export class SessionEstimates {
  private readonly raw = new Map<string, TokenEstimate>();
  /** By `entryKey`: an entry's content's estimate counted ahead, until `entryRaw` makes the entry's. */
  private readonly contentCounted = new Map<string, TokenEstimate>();
  /** By text: the count of a text an entry holds besides its content (`othersOf`), counted ahead or when first asked. */
  private readonly otherCounts = new Map<string, number>();
  /** By `originalKey`; null where the original cannot be read. */
  private readonly originals = new Map<string, KnownOriginal | null>();
  private calibrationMemo: Calibration | null | undefined;
  private readonly pairs: GrowthPair[] = [];
  private pairSteps: Generator<GrowthPair | undefined> | undefined;
  private pairsDone = false;
  private steps = 0;
  /** Steps `calibrationEntries` found ahead of the walk, by call index, for the walk to take (each once). */
  private readonly stepsAhead = new Map<number, Step | undefined>();
  private counted = 0;
  /** Contents counted while the session was built (`countAhead`): their estimates stand for theirs. */
  private countedWhileBuilding: ContentsCountedAhead | undefined;
  /**
   * How originals are resolved for their counts: with the transcript hashes kept between resolves,
   * so the nested compactions' originals are each hashed from where the last ended (docs/tokens.md
   * "How the pass runs"). The map's pass (electron/worker/tokenMap.ts) resolves with it too.
   */
  readonly resolveOptions = { sha256: nodeSha256, transcripts: new TranscriptHashes(() => nodeRunningSha256()) };

  constructor(
    private readonly session: Pick<LoadedSession, 'model' | 'modelChanges' | 'calls' | 'callTimeline' | 'callInput' | 'instructionsAt' | 'log' | 'minted' | 'recorded'>,
    private readonly recordedContext?: RecordedContext,
  ) {}

  /** A Claude model answered some call of the session: its estimates are approximate. */
  get approximate(): boolean {
    return isClaudeModel(this.session.model) || this.session.modelChanges.some((c) => isClaudeModel(c.from) || isClaudeModel(c.to));
  }

  /** The o200k estimate of one entry of an input (content and tool calls), cached per message. */
  entryRaw(entry: ViewEntry, view: MessageList): TokenEstimate {
    const key = entryKey(entry);
    const known = this.raw.get(key);
    if (known) return known;
    const ahead = this.contentCounted.get(key);
    this.contentCounted.delete(key);
    const content = ahead ?? countPlan(this.contentPlanOf(countedContent(entry, view)));
    let counted = 0;
    for (const text of this.othersOf(entry, view)) counted += this.otherCount(text);
    const estimate = entryEstimate(content, counted);
    this.raw.set(key, estimate);
    return estimate;
  }

  /**
   * The count of a text an entry holds besides its content: counted ahead (here or on the counting
   * thread), or while the session was built (offered as a text: its estimate is its count, a text
   * not sampled being counted whole), else here now.
   */
  private otherCount(text: string): number {
    let n = this.otherCounts.get(text) ?? this.countedWhileBuilding?.estimate(text);
    if (typeof n !== 'number') n = n && n.sampled !== true ? n.tokens : countText(text);
    this.otherCounts.set(text, n);
    return n;
  }

  /** Whether a text besides an entry's content is counted, or on its way: counted ahead, or offered while the session was built and not yet taken. */
  private otherKnown(text: string): boolean {
    const built = this.countedWhileBuilding;
    if (this.otherCounts.has(text) || built?.pending(text)) return true;
    const estimate = built?.estimate(text);
    return estimate !== undefined && estimate.sampled !== true;
  }

  /** An entry's texts besides its content: each tool call's name and arguments, and the thinking its record keeps. */
  private othersOf(entry: ViewEntry, view: MessageList): string[] {
    const others: string[] = [];
    for (const c of entry.tool_calls ?? []) others.push(c.name, c.arguments);
    const thinking = this.thinkingOf(entry, view);
    if (thinking !== undefined) others.push(thinking);
    return others;
  }

  /** A content's plan: its estimate counted while the session was built, once answered, else its texts to count. */
  private contentPlanOf(content: OfferedContent): CountPlan {
    const known = this.countedWhileBuilding?.estimate(content);
    return known ? { texts: [], estimate: () => known } : contentPlan(content);
  }

  /** A source's estimate: the one counted while the session was built, once answered, else counted here. */
  private sourceEstimate(source: ByteSource): TokenEstimate {
    return this.countedWhileBuilding?.estimate(source) ?? estimateSource(source);
  }

  /**
   * The thinking an assistant message's record keeps beside its content (an importer's
   * `metadata.thinking`): Claude models from Opus 4.5 on keep earlier turns' thinking in the
   * context, and counting it brings the estimate of the real files' growth from 20 % to 9 % median
   * error (docs/token-estimates.md). A reduced message shows its stub only.
   */
  private thinkingOf(entry: ViewEntry, view: MessageList): string | undefined {
    if (entry.reductions.length > 0 || entry.role !== 'assistant') return undefined;
    const thinking = view.at(entry.index)?.metadata?.thinking;
    return typeof thinking === 'string' ? thinking : undefined;
  }

  /**
   * Counts ahead, on this thread and `counter`'s, what `entriesEstimate(entries, view)` of each of
   * `inputs`, a `breakdown` of the same input and the calibration will count: each entry not yet
   * known, and those of the calibration's walk (`shareCounting`). Their answers are then the cache's, the same
   * as if counted where asked (the same texts, counted by the same function: docs/token-estimates.md
   * "Counting on two threads").
   */
  async countAhead(inputs: readonly { entries: readonly ViewEntry[]; view: MessageList }[], counter: TextCounter, built?: ContentsCountedAhead, options: AheadOptions = {}): Promise<void> {
    // Contents offered while the session was built: their estimates are taken from there, and
    // what the thread has not begun is taken back by this one (countWhileBuilding.ts).
    if (built) {
      this.countedWhileBuilding = built;
      const asked = new Set<OfferedContent>();
      for (const { entries, view } of inputs) {
        for (const entry of entries) {
          asked.add(countedContent(entry, view));
          for (const text of this.othersOf(entry, view)) asked.add(text);
        }
      }
      built.want(asked);
    }
    const jobs: AheadJob[] = [];
    const add = this.entryJobs(jobs);
    for (const { entries, view } of inputs) for (const entry of entries) add(entry, view);
    await this.shareWithWalk(jobs, add, counter, built, options);
  }

  /** `shareCounting` of `jobs`, to which `add` (`entryJobs`) then adds the calibration's walk's entries (`calibrationEntries`). */
  private shareWithWalk(jobs: AheadJob[], add: (entry: ViewEntry, view: MessageList) => void, counter: TextCounter, built: ContentsCountedAhead | undefined, options: AheadOptions): Promise<void> {
    return this.shareCounting(
      jobs,
      counter,
      () => {
        for (const { entry, view } of this.calibrationEntries()) add(entry, view);
      },
      built,
      options.helpAfterMs ?? HELP_AFTER_MS,
    );
  }

  /** Adds to `jobs` an entry's estimate to count ahead, unless it is known or already there. */
  private entryJobs(jobs: AheadJob[]): (entry: ViewEntry, view: MessageList) => void {
    const seen = new Set<string>();
    return (entry, view) => {
      const key = entryKey(entry);
      if (this.raw.has(key) || seen.has(key)) return;
      // What it calls and thinks, but the texts counted or on their way (offered while the session
      // was built): counted ahead here or there, so that no count is left for later.
      const others = this.othersOf(entry, view).filter((text) => !this.otherKnown(text));
      const took = (counts: readonly number[]): void => others.forEach((text, k) => this.otherCounts.set(text, counts[k] ?? 0));
      // Its content is on the counting thread already, or taken back by shareCounting.
      if (this.countedWhileBuilding?.pending(countedContent(entry, view))) {
        if (others.length === 0) return;
        seen.add(key);
        jobs.push({
          here: () => others.forEach((text) => this.otherCount(text)),
          plan: () => ({ content: { texts: [], estimate: (sum) => tokenEstimate(sum) }, others, done: (_, counts) => took(counts) }),
        });
        return;
      }
      seen.add(key);
      jobs.push({
        here: () => this.entryRaw(entry, view),
        // The entry's estimate is made when asked (entryRaw), once the texts offered while the session was built are counted too.
        plan: () => ({
          content: this.contentPlanOf(countedContent(entry, view)),
          others,
          done: (content, counts) => {
            took(counts);
            this.contentCounted.set(key, content);
          },
        }),
      });
    };
  }

  /**
   * Counts ahead, on this thread and `counter`'s, what `hiddenEstimates` will count: the original of
   * each reduction of the live log not yet known (read and verified here, counted there or here),
   * and the calibration's walk (`shareCounting`).
   */
  async countHiddenAhead(counter: TextCounter, built?: ContentsCountedAhead, options: AheadOptions = {}): Promise<void> {
    const { log, minted } = this.session;
    // Originals offered while the session was built (countWhileBuilding.ts): each is still read and
    // verified here, and its estimate taken from there once answered.
    if (built) this.countedWhileBuilding = built;
    const waiting: { key: string; source: ByteSource }[] = [];
    const jobs: AheadJob[] = [];
    const seen = new Set<string>();
    for (const r of log) {
      const key = originalKey(r);
      if (this.originals.has(key) || seen.has(key)) continue;
      seen.add(key);
      /** The original read and verified, unless it cannot be (null, kept), or its count is on the thread (left waiting). */
      const resolved = (): { bytes: ByteSource } | undefined => {
        const original = resolveOriginal(r, minted, this.session.recorded, this.resolveOptions);
        if (!original.ok) {
          this.originals.set(key, null);
          return undefined;
        }
        const bytes = original.value.bytes;
        if (!built?.pending(bytes)) return { bytes };
        waiting.push({ key, source: bytes });
        return undefined;
      };
      jobs.push({
        ...(typeof r.ptr.bytes === 'number' ? { work: hereWork(r.ptr.bytes) } : {}),
        here: () => {
          const original = resolved();
          if (original) this.originals.set(key, { estimate: this.sourceEstimate(original.bytes), bytes: original.bytes.length });
        },
        plan: () => {
          const original = resolved();
          if (!original) return undefined;
          const { bytes } = original;
          return { content: this.contentPlanOf(bytes), others: [], done: (estimate) => void this.originals.set(key, { estimate, bytes: bytes.length }) };
        },
      });
    }
    await this.shareWithWalk(jobs, this.entryJobs(jobs), counter, built, options);
    // Counted on either thread by now (shareCounting waited for the offered batches); one whose
    // batch failed is counted where it is asked.
    for (const { key, source } of waiting) {
      const estimate = built?.estimate(source);
      if (estimate) this.originals.set(key, { estimate, bytes: source.length });
    }
  }

  /**
   * Shares `jobs` between this thread and `counter`'s: this thread does them from the start of the
   * list (`here`), and hands the counter the texts of jobs taken from its end (`plan`), AHEAD_CHARS
   * at a time and at most AHEAD_BATCHES batches ahead, until they meet. `more` adds jobs once the
   * counter has its first batches (the calibration's, whose walk takes this thread a while). A batch
   * the counter does not answer, and a job whose texts could not be read, is left to be done where
   * it is asked, as without a counter; a job that fails here ends the sharing (it fails again
   * where it is asked, and is reported there).
   */
  private async shareCounting(jobs: AheadJob[], counter: TextCounter, more: () => void, built: ContentsCountedAhead | undefined, helpAfterMs: number): Promise<void> {
    let front = 0;
    let ahead = 0;
    /** Batches handed to the counter and not yet answered (nor counted here). */
    const open = new Set<Handed>();
    const handOut = (): void => {
      const batch: { plan: NonNullable<ReturnType<AheadJob['plan']>>; contentTexts: number }[] = [];
      const texts: string[] = [];
      let chars = 0;
      while (jobs.length > front && chars < AHEAD_CHARS) {
        const job = jobs.pop()!;
        const taken: string[] = [];
        let plan: ReturnType<AheadJob['plan']>;
        try {
          plan = job.plan();
          if (plan) for (const text of plan.content.texts) taken.push(text);
        } catch {
          // Unreadable here: done where it is asked, which reports why.
          continue;
        }
        if (!plan) continue;
        const contentTexts = taken.length;
        taken.push(...plan.others);
        for (const text of taken) {
          texts.push(text);
          chars += text.length;
        }
        batch.push({ plan, contentTexts });
      }
      if (batch.length === 0) return;
      ahead += chars;
      const claim = new Int32Array(new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT));
      const handed: Handed = {
        texts,
        chars,
        claim,
        over: Promise.resolve(),
        answer: (counts) => {
          if (!open.delete(handed)) return;
          ahead -= chars;
          if (!counts) return;
          let k = 0;
          for (const { plan, contentTexts } of batch) {
            let content = 0;
            for (const end = k + contentTexts; k < end; k++) content += counts[k] ?? 0;
            const others = counts.slice(k, k + plan.others.length);
            k += plan.others.length;
            plan.done(plan.content.estimate(content), others);
          }
        },
      };
      // A failed batch is left to be done where it is asked; one this thread took is answered here.
      handed.over = counter.countUnlessTaken(texts, claim).then(
        (counts) => handed.answer(counts),
        () => handed.answer(undefined),
      );
      open.add(handed);
    };
    /** Keeps AHEAD_BATCHES batches handed out, or `work` characters, what this thread's next job costs it. */
    const keepAhead = (work = 0): void => {
      const target = Math.max(AHEAD_BATCHES * AHEAD_CHARS, work);
      while (ahead < target && jobs.length > front) handOut();
    };
    try {
      // The counter starts on the jobs known while this thread finds the rest.
      keepAhead();
      more();
      for (;;) {
        keepAhead();
        // Little left, and this thread has not loaded the tokenizer: the counting thread, which has,
        // counts the rest sooner than this one could load it. Handed out up to a bound: past it,
        // this thread loads it and shares the rest.
        if (!counterLoadedHere() && (built?.unbegun() ?? 0) <= LEFT_TO_THE_THREAD.batches) {
          const bound = ahead + LEFT_TO_THE_THREAD.chars;
          while (jobs.length > front && ahead < bound) handOut();
          if (jobs.length <= front) break;
        }
        // What was handed over while the session was built and the thread has not begun comes first.
        if (!built?.countOneHere()) {
          keepAhead(jobs[front]?.work);
          if (jobs.length <= front) break;
          jobs[front++]!.here();
        }
        // The counter's answers arrive between turns of the event loop.
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
    } catch {
      // Done here, a job failed (the file changed, say): it fails again where it is asked, and is reported there.
    }
    await helpWhenStalled(open, built, helpAfterMs);
  }

  /** The estimate in the file's tokens: calibrated, and marked approximate for a Claude model. */
  private presented(raw: TokenEstimate): TokenEstimate {
    return tokenEstimate(calibrated(raw.tokens, this.calibration()), { approximate: this.approximate, sampled: raw.sampled === true });
  }

  private rawTotal(call: number | null, given?: GivenView): { entries: readonly ViewEntry[]; raw: TokenEstimate[]; input: CallInput } | undefined {
    const input = given?.input ?? this.session.callInput(call);
    if (!input) return undefined;
    const entries = given?.entries ?? viewEntries(input);
    return { entries, raw: entries.map((e) => this.entryRaw(e, input.minted)), input };
  }

  /** Per-message and total estimates of call N's input (null: the latest view). */
  callEstimate(call: number | null): CallEstimate | undefined {
    const input = this.session.callInput(call);
    return input ? this.entriesEstimate(viewEntries(input), input.minted) : undefined;
  }

  /** Per-entry and total estimates of the entries of an input whose minted view is `view`. */
  entriesEstimate(entries: readonly ViewEntry[], view: MessageList): CallEstimate {
    const messages = entries.map((e) => this.presented(this.entryRaw(e, view)));
    return { messages, total: sumEstimates(messages, { approximate: this.approximate }) };
  }

  /**
   * The call-to-call pairs of the file: recorded growth of the context from call N to N+1 and the
   * estimated growth (the raw o200k total of input N+1 minus that of input N). Only where the file
   * records both calls' context.
   */
  growthPairs(): GrowthPair[] {
    this.advanceCalibration(() => false);
    return [...this.pairs];
  }

  /** Calls the calibration's walk has counted so far (all of them once `advanceCalibration` is true; 0 where the file records no context). */
  get calibrationSteps(): number {
    return this.steps;
  }

  /** The steps the walk takes in all: every call, or MAX_CALIBRATION_STEPS of a longer session. */
  get calibrationTotal(): number {
    return this.recordedContext ? calibrationStepCalls(this.session.calls.length).length : 0;
  }

  /** Of those, the calls whose input the walk counted (the ones that record their context): the walk's work. */
  get calibrationCounted(): number {
    return this.counted;
  }

  /**
   * Fits the calibration call by call until `stop()` says to stop (checked before each call, so a
   * caller with a time budget makes progress at every turn); true once every call is counted and
   * `calibration()` answers at once. A file that records no context has nothing to fit.
   */
  advanceCalibration(stop: () => boolean): boolean {
    if (!this.recordedContext) return true;
    this.pairSteps ??= this.growthSteps(this.recordedContext);
    while (!this.pairsDone) {
      if (stop()) return false;
      const step = this.pairSteps.next();
      if (step.done) this.pairsDone = true;
      else {
        this.steps++;
        if (step.value) this.pairs.push(step.value);
      }
    }
    return true;
  }

  /**
   * The walk's steps: a step per call, each the pair it closes with the call before if both record
   * their context. A session of more than MAX_CALIBRATION_STEPS + 1 calls is fitted on that many
   * evenly spaced steps (each still a call and the call before it): a median over them is the same
   * fit within its error, and the walk stays bounded on a session of 100,000 calls
   * (docs/token-estimates.md "Long sessions").
   */
  private *growthSteps(recorded: RecordedContext): Generator<GrowthPair | undefined> {
    for (const at of calibrationStepCalls(this.session.calls.length)) {
      const step = this.stepsAhead.has(at) ? this.stepsAhead.get(at) : this.stepAt(at, recorded);
      this.stepsAhead.delete(at);
      if (!step) {
        yield undefined;
        continue;
      }
      this.counted += 2;
      yield { recorded: step.recorded, estimated: this.rawSum(step.current, step.previous) - this.rawSum(step.previous, step.current) };
    }
  }

  /**
   * The calibration's step at the call of index `at`: the growth of the context the file records
   * from the call before, and the two inputs' entries from the first row that differs between them
   * on; undefined where either call records no context, or the growth it records is one the fit
   * leaves out (MIN_GROWTH_TOKENS or less).
   */
  private stepAt(at: number, recorded: RecordedContext): Step | undefined {
    const { calls } = this.session;
    const b = calls[at]!;
    const a = at > 0 ? calls[at - 1]! : undefined;
    const ra = a && recorded(a.call);
    const rb = recorded(b.call);
    // A step whose recorded growth the fit leaves out whatever its estimate (a compaction's drop,
    // a few tokens: usablePairs) is not estimated: across a compaction that would count the whole
    // view before it (docs/token-estimates.md "Long sessions").
    if (ra === undefined || rb === undefined || rb - ra <= MIN_GROWTH_TOKENS) return undefined;
    const inputA = this.session.callInput(a!.call);
    const inputB = this.session.callInput(b.call);
    if (!inputA || !inputB) return undefined;
    // The estimated growth is what input N+1 holds that input N does not, less the reverse (an entry reduced in between):
    // the same as the difference of the two totals, without counting the entries both hold. Both hold the same rows
    // before the first message that changed between them: only the rows from there on are projected.
    const from = this.sharedRowsEnd(a!, b, inputA, inputB);
    return {
      recorded: rb - ra,
      previous: { entries: keyed(viewEntries(inputA, from)), view: inputA.minted },
      current: { entries: keyed(viewEntries(inputB, from)), view: inputB.minted },
    };
  }

  /** The entries the calibration's walk counts that it has not counted yet, each with its input's view (for `countAhead`). */
  private *calibrationEntries(): Generator<{ entry: ViewEntry; view: MessageList }> {
    const recorded = this.recordedContext;
    if (!recorded || this.pairsDone) return;
    for (const at of calibrationStepCalls(this.session.calls.length).slice(this.steps)) {
      const step = this.stepAt(at, recorded);
      this.stepsAhead.set(at, step);
      if (!step) continue;
      for (const [one, other] of [[step.current, step.previous], [step.previous, step.current]] as const) {
        for (const [key, entry] of one.entries) if (!other.entries.has(key)) yield { entry, view: one.view };
      }
    }
  }

  /**
   * A view index before which two calls' inputs project the same rows with the same entries: at or
   * before the first index one holds and the other does not, or a reduction of one and not the other
   * addresses; where both start a row; and before no compaction with a run at or after it (a
   * compaction's entry, at its first run, lists the reductions of all its runs).
   */
  private sharedRowsEnd(a: ModelCall, b: ModelCall, inputA: CallInput, inputB: CallInput): number {
    const { reduced, restored } = logChanges(this.session.callTimeline, a, b);
    let end = Math.min(inputA.minted.length, inputB.minted.length);
    for (const r of [...reduced, ...restored]) end = Math.min(end, addressedRange(r)[0]);
    // Each compaction's first and last run.
    const groups = new Map<string, [number, number]>();
    for (const r of [...inputA.log, ...inputB.log]) {
      if (r.group === undefined) continue;
      const [first, last] = groups.get(r.group) ?? [Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY];
      groups.set(r.group, [Math.min(first, r.ptr.index), Math.max(last, r.ptr.index)]);
    }
    for (;;) {
      let next = Math.min(rowStartAt(inputA, end), rowStartAt(inputB, end));
      for (const [first, last] of groups.values()) if (first < next && next <= last) next = first;
      if (next === end) return end;
      end = next;
    }
  }

  /** The raw estimate of the entries of `of` that `without` does not hold. */
  private rawSum(of: KeyedEntries, without: KeyedEntries): number {
    let n = 0;
    for (const [key, e] of of.entries) if (!without.entries.has(key)) n += this.entryRaw(e, of.view).tokens;
    return n;
  }

  /**
   * The calibration the estimates use: the file's own fit where it records enough calls, else
   * for a Claude model the measured default, else none (o200k is the tokenizer of the OpenAI
   * models the other formats record).
   */
  calibration(): Calibration | undefined {
    if (this.calibrationMemo === undefined) this.calibrationMemo = calibrate(this.growthPairs(), this.approximate ? CLAUDE_DEFAULT : undefined) ?? null;
    return this.calibrationMemo ?? undefined;
  }

  /**
   * SPEC §15 context breakdown at call N (null: the latest view). `given`: call N's input and its
   * view's entries where the caller has made them (`view`: docs/worker.md §7).
   */
  breakdown(call: number | null, given?: GivenView): ContextBreakdown | undefined {
    const r = this.rawTotal(call, given);
    if (!r) return undefined;
    const kinds = new Map(r.input.log.map((x) => [x.id, x.kind]));
    const messages = r.entries.map((e, k) => ({ role: e.role, summary: e.reductions.some((id) => kinds.get(id) === 'summarized'), tokens: this.presented(r.raw[k] as TokenEstimate).tokens }));
    let instructions = 0;
    for (const i of this.session.instructionsAt(call) ?? []) instructions += this.presented(estimateText(i.text)).tokens;
    const recorded = call === null ? undefined : this.recordedContext?.(call);
    return contextBreakdown(messages, { instructions, approximate: this.approximate, ...(recorded !== undefined ? { recorded } : {}) });
  }

  /**
   * `hidden_tokens_est` of each reduction of the live log: the estimate of its original minus that
   * of what the model was shown in its place (the stub, a kept prefix, a summary), at least 0;
   * null when the file does not hold the original or it cannot be read.
   */
  hiddenEstimates(): HiddenEstimate[] {
    const { log, minted } = this.session;
    const shown = new Map<string, string>();
    // Only the rows a reduction touches can show one in its place (docs/worker.md §7).
    const layout = projectionLayout(minted.length, log);
    for (const row of projectRows(minted, log, rowsTouched(log, layout), layout)) if (row.applied !== undefined && !shown.has(row.applied)) shown.set(row.applied, row.text);
    return log.map((r: Reduction) => ({ id: r.id, hidden: this.reductionEstimate(r, shown.get(r.id) ?? '', minted).hidden }));
  }

  /**
   * One reduction's figures (the app's chips, log rows and search results): `hidden` as
   * `hiddenEstimates` gives it, with `shown` the text the model was shown in its place, and
   * `original` the estimate of its whole original; both null when the file does not hold the
   * original. The original's count is cached per reduction record for the session's life.
   */
  reductionEstimate(r: Reduction, shown: string, minted: MessageList = this.session.minted): ReductionEstimate {
    const whole = this.originalRaw(r, minted);
    if (!whole) return { hidden: null, original: null };
    const hidden = tokenEstimate(Math.max(0, whole.tokens - countText(shown)), { sampled: whole.sampled === true });
    return { hidden: this.presented(hidden), original: this.presented(whole) };
  }

  /** The raw o200k estimate of reduction `r`'s original, null when it cannot be read. */
  private originalRaw(r: Reduction, minted: MessageList): TokenEstimate | null {
    const key = originalKey(r);
    const known = this.originals.get(key);
    if (known !== undefined) return known?.estimate ?? null;
    let out: KnownOriginal | null = null;
    const original = resolveOriginal(r, minted, this.session.recorded, this.resolveOptions);
    if (original.ok) {
      try {
        out = { estimate: this.sourceEstimate(original.value.bytes), bytes: original.value.bytes.length };
      } catch {
        out = null;
      }
    }
    this.originals.set(key, out);
    return out?.estimate ?? null;
  }

  /**
   * Reduction `r`'s original as counted so far in this session, by any of its records (null: it
   * cannot be read); undefined when it has not been counted. The app's map in tokens and its
   * reductions' figures share one estimator per open, so an original is counted once for both.
   */
  knownOriginal(r: Reduction): KnownOriginal | null | undefined {
    return this.originals.get(originalKey(r));
  }

  /** Keeps an original counted elsewhere: the map's pass counts one across its slices (electron/worker/tokenMap.ts countHidden). */
  rememberOriginal(r: Reduction, known: KnownOriginal | null): void {
    this.originals.set(originalKey(r), known);
  }
}

/**
 * One estimator per open session: its per-message cache, its originals and its calibration serve
 * every diff and export document of it, and in the worker the map in tokens and the reductions'
 * figures (docs/tokens.md "One estimator per open").
 */
const estimators = new WeakMap<LoadedSession, SessionEstimates>();

export function sessionEstimates(session: LoadedSession): SessionEstimates {
  let e = estimators.get(session);
  if (!e) estimators.set(session, (e = new SessionEstimates(session, recordedContextOf(session))));
  return e;
}
