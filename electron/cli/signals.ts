/**
 * The end of a long-running command (serve, open, check --follow): SIGINT or SIGTERM. Its own
 * module so that check --follow (dist/cli-session.cjs) does not load the HTTP host with serve.ts.
 *
 * The first signal starts an orderly shutdown (the caller closes the host and the worker, then the
 * process exits 0). That shutdown is bounded: a worker thread stuck in a system call (a read of a
 * file that never answers) can neither finish nor be terminated, and `process.exit` itself waits
 * for such a thread. So once `graceMs` have passed, or at a second signal, the signal is raised
 * again with its default action, which ends the process whatever its threads are doing.
 */

/** How long an orderly shutdown may take before the signal ends the process. */
export const SHUTDOWN_GRACE_MS = 3000;

export function untilSignal(graceMs = SHUTDOWN_GRACE_MS): Promise<void> {
  return new Promise((resolveStop) => {
    const stop = (signal: NodeJS.Signals): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      const now = (): void => {
        process.off('SIGINT', now);
        process.off('SIGTERM', now);
        // No listener left: the signal's default action (the process ends, by that signal).
        process.kill(process.pid, signal);
      };
      // A second signal while shutting down means "now".
      process.once('SIGINT', now);
      process.once('SIGTERM', now);
      // Unreferenced: a shutdown that finishes lets the process exit on its own, with its status.
      setTimeout(now, graceMs).unref();
      resolveStop();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}
