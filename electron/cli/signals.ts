/**
 * The end of a long-running command (serve, open, check --follow): SIGINT or SIGTERM. Its own
 * module so that check --follow (dist/cli-session.cjs) does not load the HTTP host with serve.ts.
 */
export function untilSignal(): Promise<void> {
  return new Promise((resolveStop) => {
    const stop = (): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      // A second signal while shutting down means "now".
      const force = (): void => process.exit(130);
      process.once('SIGINT', force);
      process.once('SIGTERM', force);
      resolveStop();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}
