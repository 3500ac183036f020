/**
 * `open [FILE...]`: the desktop window when an Electron binary can be had; otherwise one sentence on
 * stderr saying why, and exactly what `serve` does.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import type { CliIo } from './output';
import type { ServeDeps, ServeOptions } from './serve';
import { NO_FOLLOW_SWITCH, linkArgument, sourceArguments } from '../main/args';
import { bundledSample, checkOpenSource, openSource, runServe } from './serve';

export type ElectronLookup = { ok: true; binary: string } | { ok: false; reason: string; noBinary: boolean };

export interface OpenDeps extends ServeDeps {
  /** Finds the Electron binary and the app it would run (fetching the binary on first launch). */
  findElectron(packageRoot: string): ElectronLookup;
  /** Runs the desktop app with `args` (the app folder, then the files); resolves to its exit status. */
  launchElectron(binary: string, args: string[]): Promise<number>;
}

function firstLine(text: string): string {
  const line = text.split('\n').map((l) => l.trim()).find((l) => l !== '');
  return line ? line.slice(0, 200) : '';
}

/** The binary under the `electron` package's dist/, per its path.txt; undefined when not there. */
function installedBinary(electronDir: string): string | undefined {
  const pathFile = join(electronDir, 'path.txt');
  if (!existsSync(pathFile)) return undefined;
  const binary = join(electronDir, 'dist', readFileSync(pathFile, 'utf8').trim());
  return existsSync(binary) ? binary : undefined;
}

/** The desktop app's entry: package.json `main`, which must exist (built by `npm run build`). */
function appEntryProblem(packageRoot: string): string | undefined {
  let main: unknown;
  try {
    main = (JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as { main?: unknown }).main;
  } catch (e) {
    return `its package.json cannot be read: ${(e as Error).message}`;
  }
  if (typeof main !== 'string' || main === '') return 'package.json names no main entry for the desktop app yet';
  if (!existsSync(join(packageRoot, main))) return `the desktop app is not built (${main} is missing: run npm run build)`;
  return undefined;
}

export function findElectron(packageRoot: string): ElectronLookup {
  let electronDir: string;
  try {
    electronDir = dirname(createRequire(join(packageRoot, 'package.json')).resolve('electron/package.json'));
  } catch {
    return { ok: false, noBinary: true, reason: 'the electron package is not installed' };
  }
  let binary = installedBinary(electronDir);
  if (!binary) {
    // Electron 42 and later fetch the binary at first launch rather than at install.
    const install = spawnSync(process.execPath, [join(electronDir, 'install.js')], { encoding: 'utf8', timeout: 10 * 60_000 });
    binary = installedBinary(electronDir);
    if (!binary) {
      const why = install.error ? install.error.message : firstLine(install.stderr) || `its installer exited with status ${install.status ?? 'unknown'}`;
      return { ok: false, noBinary: true, reason: `fetching it failed: ${why}` };
    }
  }
  const problem = appEntryProblem(packageRoot);
  if (problem) return { ok: false, noBinary: false, reason: problem };
  if (process.platform === 'linux' && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY) {
    return { ok: false, noBinary: false, reason: 'there is no display: neither DISPLAY nor WAYLAND_DISPLAY is set' };
  }
  return { ok: true, binary };
}

export function launchElectron(binary: string, args: string[]): Promise<number> {
  return new Promise((resolveExit) => {
    const env = { ...process.env };
    // Set, it would make the binary a plain Node and the app would not start.
    delete env.ELECTRON_RUN_AS_NODE;
    const child = spawn(binary, args, { stdio: 'inherit', env });
    const forward = (signal: NodeJS.Signals) => () => void child.kill(signal);
    const onInt = forward('SIGINT');
    const onTerm = forward('SIGTERM');
    process.on('SIGINT', onInt);
    process.on('SIGTERM', onTerm);
    const done = (code: number): void => {
      process.off('SIGINT', onInt);
      process.off('SIGTERM', onTerm);
      resolveExit(code);
    };
    child.once('error', () => done(2));
    child.once('exit', (code, signal) => done(code ?? (signal === 'SIGINT' || signal === 'SIGTERM' ? 0 : 1)));
  });
}

export async function runOpen(options: ServeOptions, io: CliIo, deps: OpenDeps): Promise<number> {
  // No FILE: the desktop window starts on the session library (SPEC §14), as `serve` does; with
  // --session/--format the bundled sample, resolved before anything starts so a missing one is an
  // error of `open` itself.
  const onSample = options.session !== undefined || options.format !== undefined;
  const files = options.files.length > 0 ? options.files : onSample ? [bundledSample(deps.packageRoot)] : [];
  await checkOpenSource(files, options);
  const electron = deps.findElectron(deps.packageRoot);
  if (electron.ok) return deps.launchElectron(electron.binary, [deps.packageRoot, ...sourceArguments(openSource(options)), ...linkArgument(options.link), ...(options.follow === false ? [NO_FOLLOW_SWITCH] : []), ...files.map((f) => resolve(f))]);
  const lead = electron.noBinary ? 'No Electron binary is available on this machine' : 'The desktop window cannot start on this machine';
  io.stderr(`${lead} (${electron.reason}); starting the HTTP host instead — open the URL below in a browser.\n`);
  // Without FILE the HTTP host serves the session library, as `serve` does.
  return runServe(files.length > 0 ? { ...options, files } : options, io, deps);
}
