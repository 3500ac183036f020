/** The command line in-process, with the fake resolver client: what the serve and link tests drive. */
import { join } from 'node:path';
import type { FakeResolverClient } from '../../host/testing/fakeClient';
import { createFakeResolverClient } from '../../host/testing/fakeClient';
import type { CliDeps } from '../main';
import { main } from '../main';

const ROOT = join(import.meta.dirname, '../../..');

/**
 * Runs `main` in-process with a fake client; resolves once the listening line is out, with a
 * `stop()` that plays the part of SIGTERM and resolves to the exit status.
 */
export async function startServe(argv: string[], deps: CliDeps = {}) {
  let stdout = '';
  let stderr = '';
  let onLine: (line: string) => void = () => undefined;
  const firstLine = new Promise<string>((resolve) => (onLine = resolve));
  let stop: () => void = () => undefined;
  const stopped = new Promise<void>((resolve) => (stop = resolve));
  const client: FakeResolverClient = createFakeResolverClient();
  const exit = main(
    argv,
    {
      stdout: (s) => {
        stdout += s;
        if (stdout.includes('\n')) onLine(stdout.slice(0, stdout.indexOf('\n')));
      },
      stderr: (s) => (stderr += s),
    },
    {},
    { createClient: () => client, untilStopped: () => stopped, packageRoot: ROOT, ...deps },
  );
  // A run that ends early (a usage error) must not leave the test waiting for a line.
  const line = await Promise.race([firstLine, exit.then(() => `exited: ${stdout}${stderr}`)]);
  return {
    line,
    client,
    get stdout() {
      return stdout;
    },
    get stderr() {
      return stderr;
    },
    exit,
    async stop(): Promise<number> {
      stop();
      return exit;
    },
  };
}

