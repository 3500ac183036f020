/**
 * `serve` and `open`: main.ts loads this module only when one of them runs (scripts/build.mjs
 * bundles it as dist/cli-serve.cjs), so the HTTP host, the resolver worker's client and Electron's
 * launcher are never loaded by the commands that read a file and exit.
 */
import type { OpenDeps } from './open';
import { findElectron, launchElectron, runOpen } from './open';
import type { CliIo, ParsedFlags } from './output';
import { createRealClient, parseBind, parseLinkOption, parseMaxUpload, parsePort, runServe, untilSignal } from './serve';
import { findPackageRoot } from './packageRoot';
import { usageError } from './errors';

function serveOptions(command: 'serve' | 'open', flags: Map<string, string | true>, files: string[]) {
  const port = flags.get('port');
  const host = flags.get('host');
  const session = flags.get('session');
  const format = flags.get('format');
  const maxUpload = flags.get('max-upload');
  const link = flags.get('link');
  if (files.length > 2) throw usageError(`${command} takes at most two files (a sidecar and/or a session snapshot), not ${files.length}`);
  const fragment = typeof link === 'string' ? parseLinkOption(link) : undefined;
  return {
    files,
    ...(fragment !== undefined ? { link: fragment } : {}),
    ...(typeof port === 'string' ? { port: parsePort(port) } : {}),
    ...(typeof host === 'string' ? { bind: parseBind(host) } : {}),
    ...(typeof session === 'string' ? { session } : {}),
    ...(typeof format === 'string' ? { format } : {}),
    ...(typeof maxUpload === 'string' ? { maxUploadBytes: parseMaxUpload(maxUpload) } : {}),
    ...(flags.has('no-follow') ? { follow: false } : {}),
  };
}

function openDeps(deps: Partial<OpenDeps>): OpenDeps {
  return {
    createClient: deps.createClient ?? createRealClient,
    untilStopped: deps.untilStopped ?? untilSignal,
    packageRoot: deps.packageRoot ?? findPackageRoot(),
    findElectron: deps.findElectron ?? findElectron,
    launchElectron: deps.launchElectron ?? launchElectron,
    ...(deps.libraryContext !== undefined ? { libraryContext: deps.libraryContext } : {}),
  };
}

/** Runs `serve` or `open` until stopped; resolves to the exit status. */
export function runServeCommand(command: 'serve' | 'open', { flags, files }: ParsedFlags, io: CliIo, deps: Partial<OpenDeps>): Promise<number> {
  const options = serveOptions(command, flags, files);
  return command === 'serve' ? runServe(options, io, openDeps(deps)) : runOpen(options, io, openDeps(deps));
}
