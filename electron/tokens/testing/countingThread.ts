/**
 * The real counting thread for a test file, started from the bundle the unit tests' global setup
 * builds (dist/countThread.cjs). `counter()` says so where that bundle is missing; `close()` goes in
 * the file's `afterAll`.
 */
import { join } from 'node:path';
import type { TextCounter } from '../textCounter';
import { COUNT_THREAD_BUNDLE, startTextCounter } from '../textCounter';

/** Where the counting thread's bundle is built. */
export const COUNT_THREAD_SCRIPT = join(import.meta.dirname, '../../../dist', COUNT_THREAD_BUNDLE);

export function realCountingThread(): { counter: () => TextCounter; close: () => void } {
  const started = startTextCounter({ script: COUNT_THREAD_SCRIPT });
  return {
    counter: () => {
      if (!started) throw new Error(`no counting thread: dist/${COUNT_THREAD_BUNDLE} is built by the unit tests' global setup`);
      return started;
    },
    close: () => started?.close(),
  };
}
