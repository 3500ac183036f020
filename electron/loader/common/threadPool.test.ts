/**
 * The one thread pool: requests answered by id on threads started from a bundle file, the least
 * loaded thread chosen, and every way a thread can fail (it exits, it does not answer in time, it
 * cannot start, the pool is closed) refusing exactly the requests in flight on it, with the pool's
 * own words, while the next request starts another thread.
 */
import { writeFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../../tools/testing/files';
import type { PoolWords } from './threadPool';
import { ThreadPool, startThread } from './threadPool';

const tmp = tempDir('session-inspector-thread-pool-test-');
afterAll(() => tmp.cleanup());

/** A thread that echoes (with its thread id), exits, or never answers, as each request says. */
const SCRIPT = tmp.path('echo.cjs');
writeFileSync(
  SCRIPT,
  `const { parentPort, threadId } = require('node:worker_threads');
parentPort.on('message', (m) => {
  if (m.do === 'echo') parentPort.postMessage({ id: m.id, value: m.value, thread: threadId });
  else if (m.do === 'exit') process.exit(3);
});
`,
);

type Ask = { do: 'echo'; value: number } | { do: 'exit' } | { do: 'hang' };
type Answer = { id: number; value: number; thread: number };

const words: PoolWords = {
  notStarted: 'no thread',
  failed: (e) => `failed: ${e.message}`,
  exited: (code) => `exited ${code}`,
  closed: 'closed',
  timedOut: (ms) => `no answer in ${ms} ms`,
};

function pool(options: { size?: number; timeoutMs?: number; maxFailures?: number; script?: string } = {}): ThreadPool<Ask, Answer> {
  return new ThreadPool<Ask, Answer>({ script: options.script ?? SCRIPT, idleMs: 60_000, words, ...options });
}

describe('ThreadPool', () => {
  it('answers each request by its id, spread over its threads by load', async () => {
    const p = pool({ size: 2 });
    try {
      const answers = await Promise.all([1, 2, 3, 4].map((value) => p.request({ do: 'echo', value }, 10)));
      expect(answers.map((a) => a.value)).toEqual([1, 2, 3, 4]);
      // Equal weights in flight: the requests alternate between the two threads.
      expect(new Set(answers.map((a) => a.thread)).size).toBe(2);
    } finally {
      p.close();
    }
  });

  it('a thread that exits refuses the requests in flight on it, and the next request starts another', async () => {
    const p = pool();
    try {
      const waiting = p.request({ do: 'hang' });
      const exiting = p.request({ do: 'exit' });
      await expect(exiting).rejects.toThrow('exited 3');
      await expect(waiting).rejects.toThrow('exited 3');
      expect((await p.request({ do: 'echo', value: 7 })).value).toBe(7);
    } finally {
      p.close();
    }
  });

  it('a request not answered in time stops its thread; the pool goes on with a new one', async () => {
    // Long enough for a thread to start on a loaded machine: the hanging request waits it out.
    const p = pool({ timeoutMs: 5000 });
    try {
      await expect(p.request({ do: 'hang' })).rejects.toThrow('no answer in 5000 ms');
      expect((await p.request({ do: 'echo', value: 8 })).value).toBe(8);
    } finally {
      p.close();
    }
  });

  it('after maxFailures threads failed, no thread is started again', async () => {
    const p = pool({ maxFailures: 2 });
    try {
      await expect(p.request({ do: 'exit' })).rejects.toThrow('exited 3');
      await expect(p.request({ do: 'exit' })).rejects.toThrow('exited 3');
      await expect(p.request({ do: 'echo', value: 1 })).rejects.toThrow('no thread');
    } finally {
      p.close();
    }
  });

  it('a bundle that is not there fails its thread, and the request is refused with the failure', async () => {
    const p = pool({ script: tmp.path('missing.cjs') });
    try {
      await expect(p.request({ do: 'echo', value: 1 })).rejects.toThrow(/^failed: |^exited /);
    } finally {
      p.close();
    }
  });

  it('close refuses the requests in flight', async () => {
    const p = pool();
    const waiting = p.request({ do: 'hang' });
    p.close();
    await expect(waiting).rejects.toThrow('closed');
  });

  it('startThread starts a thread from a bundle, unref\'d unless asked to keep the process alive', async () => {
    const worker = startThread(SCRIPT, { keepAlive: true });
    expect(worker).toBeDefined();
    const answer = new Promise<Answer>((resolve) => worker?.once('message', resolve));
    worker?.postMessage({ id: 1, do: 'echo', value: 9 });
    expect((await answer).value).toBe(9);
    await worker?.terminate();
  });
});
