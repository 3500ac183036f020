/**
 * `bundle --out DIR [--id ID]... [--finding CODE]... FILE...` (SPEC §12): builds the repro bundle
 * (electron/bundle/bundle.ts) and writes it into DIR, a new or empty folder. Prints
 * `{"out","files","minimizer"}`; every failure is a §8 error (exit 2).
 */
import { resolve } from 'node:path';
import { BundleError, buildBundle, writeBundle } from '../bundle/bundle';
import { CliError, usageError } from './errors';
import type { CliIo } from './output';

export async function runBundle(flags: Map<string, string | true>, lists: Map<string, string[]>, files: string[], io: CliIo): Promise<number> {
  const out = flags.get('out');
  if (typeof out !== 'string' || out === '') throw usageError('bundle needs --out DIR (a new or empty folder)');
  if (files.length === 0) throw usageError('bundle needs FILE...: a sidecar and/or a session snapshot');
  if (files.length > 2) throw usageError(`bundle takes one or two files (a sidecar and/or a session snapshot), not ${files.length}`);
  const session = flags.get('session');
  const format = flags.get('format');
  try {
    const bundle = await buildBundle({
      paths: files,
      ids: lists.get('id') ?? [],
      codes: lists.get('finding') ?? [],
      ...(typeof session === 'string' ? { session } : {}),
      ...(typeof format === 'string' ? { format } : {}),
    });
    writeBundle(out, bundle);
    io.stdout(`${JSON.stringify({ out: resolve(out), files: bundle.files.map((f) => f.name), minimizer: bundle.manifest.minimizer })}\n`);
    return 0;
  } catch (e) {
    if (e instanceof BundleError) throw new CliError(e.code, e.message);
    throw e;
  }
}
