/**
 * `open` run in-process as if Electron could be had: what it would launch (binary and arguments),
 * its exit status and everything it printed. Nothing is launched; the fake resolver client serves.
 */
import { createFakeResolverClient } from '../../host/testing/fakeClient';
import { main } from '../main';

export async function openLaunches(argv: string[], packageRoot: string): Promise<{ code: number; launches: [string, string[]][]; output: string }> {
  const launches: [string, string[]][] = [];
  let output = '';
  const code = await main(argv, { stdout: (s) => (output += s), stderr: (s) => (output += s) }, {}, {
    packageRoot,
    createClient: () => createFakeResolverClient(),
    untilStopped: () => Promise.resolve(),
    findElectron: () => ({ ok: true, binary: '/opt/electron/electron' }),
    launchElectron: (binary, args) => {
      launches.push([binary, args]);
      return Promise.resolve(0);
    },
  });
  return { code, launches, output };
}
