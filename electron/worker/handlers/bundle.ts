/**
 * `reproBundle` (docs/worker.md). The worker builds the bundle from the open session's own files
 * (the request names ids and codes, never a path), in the bundle module's private temporary
 * folder, and answers the files (base64) for the renderer to pack into a .tar.
 */
import type { ParsedParams, Reply, SessionInfo } from '../../../shared/index';
import { MAX_BUNDLE_BYTES, hostErrorCodeSchema } from '../../../shared/index';
import { BundleError, MINIMIZE_MAX_BYTES, buildBundle } from '../../bundle/bundle';
import { bundleCommandLine } from '../../bundle/template';
import { fail } from '../replies';
import type { Handler } from './handler';

/** `repro-<first code or id>`, in characters every file system and shell takes. */
export function bundleName(params: ParsedParams<'reproBundle'>): string {
  const what = params.codes[0] ?? params.ids[0] ?? 'session';
  return `repro-${what.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 80)}`;
}

/**
 * `maxBytes` is MAX_BUNDLE_BYTES but for tests. `labels`, one per file of `info`: the names the user
 * knows the files by (an upload's label), written instead of their paths (see BundleRequest.labels).
 */
export async function reproBundleReply(info: SessionInfo, params: ParsedParams<'reproBundle'>, maxBytes: number = MAX_BUNDLE_BYTES, labels?: readonly string[]): Promise<Reply<'reproBundle'>> {
  const name = bundleName(params);
  try {
    const bundle = await buildBundle({
      paths: info.files.map((f) => f.path),
      ...(labels !== undefined ? { labels: [...labels] } : {}),
      ids: params.ids,
      codes: params.codes,
      ...(info.session ? { session: info.session } : {}),
      format: info.format,
      sourceNames: 'path',
      // A session past what a download carries is copied whole, then refused as too_large: no minimizing it here.
      maxBytes: Math.min(maxBytes, MINIMIZE_MAX_BYTES),
    });
    const total = bundle.files.reduce((n, f) => n + f.bytes.length, 0);
    const command = bundleCommandLine(bundle.manifest, name);
    if (total > maxBytes) {
      return { ok: false, error: { code: 'too_large', message: `The bundle would hold ${total} bytes, more than the ${maxBytes} a download carries: make it on the command line with ${command}` } };
    }
    const m = bundle.manifest;
    return {
      ok: true,
      value: {
        name,
        files: bundle.files.map((f) => ({ name: f.name, base64: Buffer.from(f.bytes).toString('base64') })),
        command,
        ids: m.ids,
        codes: m.codes,
        oracle_calls: m.minimizer.oracle_calls,
        bytes_before: m.minimizer.bytes_before,
        bytes_after: m.minimizer.bytes_after,
      },
    };
  } catch (e) {
    if (e instanceof BundleError) {
      const code = hostErrorCodeSchema.safeParse(e.code);
      return { ok: false, error: { code: code.success ? code.data : 'internal_error', message: e.message } };
    }
    return { ok: false, error: { code: 'internal_error', message: `the bundle could not be made: ${e instanceof Error ? e.message : String(e)}` } };
  }
}

/** A repro bundle of the open session's files; asynchronous, as it loads every candidate. */
export const reproBundle: Handler<'reproBundle'> = async (request, state) => {
  const open = state.current;
  if (!open) return fail('no_session', 'reproBundle: no session is open');
  const changed = open.session.fileChange();
  if (changed) return fail('file_changed', changed.message);
  const labels = open.info.files.map((f) => state.labels.get(f.path));
  return reproBundleReply(open.info, request, MAX_BUNDLE_BYTES, labels.every((l) => l !== undefined) ? labels : undefined);
};
