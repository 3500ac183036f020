/**
 * The counting thread works ahead of need, so it runs at the lowest priority and the thread a user
 * waits on goes first where every core is busy (docs/token-estimates.md "Counting on two threads").
 * On Linux the nice value is per thread: the real thread (dist/countThread.cjs) lowers its own, and
 * no other thread of the process changes. Elsewhere the call would lower the whole process's, so
 * `yieldToOtherThreads` does nothing there.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BACKGROUND_NICE, yieldToOtherThreads } from '../loader/common/threadPool';
import { realCountingThread } from './testing/countingThread';

/** The nice value a thread's `stat` line holds (field 19). The command name, in parentheses, may hold spaces: fields are counted after its last ')'. */
function niceOf(stat: string): number {
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
}

/** Each thread of this process: its id and nice value (/proc/self/task/<tid>/stat). */
function threadNices(): Map<string, number> {
  const nices = new Map<string, number>();
  for (const tid of readdirSync('/proc/self/task')) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
    } catch {
      continue; // the thread ended between the listing and the read
    }
    nices.set(tid, niceOf(stat));
  }
  return nices;
}

/** This thread's own nice value. */
function ownNice(): number {
  return niceOf(readFileSync('/proc/thread-self/stat', 'utf8'));
}

const linux = process.platform === 'linux';
/** A test run started at the lowest priority already (`nice -n 19 npm test`) cannot see a thread lower its own. */
const startedLowest = linux && ownNice() === BACKGROUND_NICE;

describe('the counting thread’s priority', () => {
  it.skipIf(!linux || startedLowest)('the real counting thread lowers its own priority, and only its own', async () => {
    const before = threadNices();
    const mine = ownNice();
    const thread = realCountingThread();
    let after: Map<string, number>;
    try {
      // Answered: the thread has run its top level, the priority's call among it.
      expect(await thread.counter().count(['hello world'])).toHaveLength(1);
      after = threadNices();
    } finally {
      thread.close();
    }
    const lowered = [...after].filter(([tid, nice]) => nice === BACKGROUND_NICE && before.get(tid) !== BACKGROUND_NICE);
    expect(lowered).toHaveLength(1);
    // Every thread that was here before keeps its priority, this one too.
    for (const [tid, nice] of before) if (after.has(tid)) expect(after.get(tid)).toBe(nice);
    expect(ownNice()).toBe(mine);
  });

  it('does nothing where the priority is the whole process’s', () => {
    const mine = linux ? ownNice() : undefined;
    expect(yieldToOtherThreads('darwin')).toBe(false);
    expect(yieldToOtherThreads('win32')).toBe(false);
    if (linux) expect(ownNice()).toBe(mine);
  });
});
