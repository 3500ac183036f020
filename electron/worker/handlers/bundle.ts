/**
 * `reproBundle` (docs/worker.md). The worker builds the bundle from the open session's own files
 * (the request names ids and codes, never a path), in the bundle module's private temporary
 * folder, and answers the files (base64) for the renderer to pack into a .tar. With a `bundleId`,
 * its progress goes out as `bundleProgress` events and `cancelBundle` stops it: it then answers
 * with the smallest bundle found so far that reproduces (docs/bundles.md).
 */
import { resolve } from 'node:path';
import type { ParsedParams, Reply, SessionInfo } from '../../../shared/index';
import { MAX_BUNDLE_BYTES, MAX_BUNDLE_CUT_KINDS, hostErrorCodeSchema } from '../../../shared/index';
import type { BundleProgress } from '../../bundle/bundle';
import { BundleError, MINIMIZE_MAX_BYTES, buildBundle } from '../../bundle/bundle';
import { bundleCommandLine } from '../../bundle/template';
import { fail } from '../replies';
import type { Handler, RequestContext } from './handler';

/** The kinds of cut unit a reply lists: the first MAX_BUNDLE_CUT_KINDS − 1, the rest summed as `other`. */
function cutKinds(kinds: readonly { kind: string; units: number; bytes: number }[]): { kind: string; units: number; bytes: number }[] {
  if (kinds.length <= MAX_BUNDLE_CUT_KINDS) return [...kinds];
  const rest = kinds.slice(MAX_BUNDLE_CUT_KINDS - 1);
  return [...kinds.slice(0, MAX_BUNDLE_CUT_KINDS - 1), { kind: 'other', units: rest.reduce((n, k) => n + k.units, 0), bytes: rest.reduce((n, k) => n + k.bytes, 0) }];
}

/** `repro-<first code or id>`, in characters every file system and shell takes. */
export function bundleName(params: ParsedParams<'reproBundle'>): string {
  const what = params.codes[0] ?? params.ids[0] ?? 'session';
  return `repro-${what.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 80)}`;
}

/**
 * `maxBytes` is MAX_BUNDLE_BYTES but for tests. `labels`, one per file of `info`: the names the user
 * knows the files by (an upload's label), written instead of their paths (see BundleRequest.labels).
 */
export async function reproBundleReply(info: SessionInfo, params: ParsedParams<'reproBundle'>, maxBytes: number = MAX_BUNDLE_BYTES, labels?: readonly string[], context: RequestContext = {}): Promise<Reply<'reproBundle'>> {
  const { bundleId } = params;
  const { onBundleProgress, bundleCancelled } = context;
  const name = bundleName(params);
  const least = copiedBytesAtLeast(info);
  if (least > maxBytes) {
    // Refused before the session is opened again, read whole and cut into units (docs/bundles.md "Too large for the app").
    const command = bundleCommandLine({ ids: params.ids, codes: params.codes, options: { ...(info.session ? { session: info.session } : {}), format: info.format }, sources: info.files.map((f, k) => ({ path: labels?.[k] ?? resolve(f.path) })) }, name);
    return { ok: false, error: { code: 'too_large', message: `The bundle would hold at least ${least} bytes (its session's files, copied whole), more than the ${maxBytes} a download carries: make it on the command line with ${command}` } };
  }
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
      ...(bundleCancelled ? { cancelled: bundleCancelled } : {}),
      ...(bundleId !== undefined && onBundleProgress ? { onProgress: throttled((p) => onBundleProgress({ bundleId, ...p })) } : {}),
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
        stop: m.minimizer.stop,
        stopped_early: m.minimizer.stopped_early?.message ?? null,
        cut: cutKinds(m.minimizer.cut.by_kind),
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

/** Formats whose files a bundle holds byte for byte when it keeps every unit (a line is a unit); the others are written again. */
const LINE_FORMATS: ReadonlySet<string> = new Set(['supercode-sidecar', 'claude-code', 'codex-rollout']);

/**
 * Bytes a bundle of `info`'s session holds at least, from its files' sizes alone. A session larger
 * than the bundle's minimizing limit (at most the download's) is copied whole, not minimized
 * (buildBundle): so its line-format files are in the bundle byte for byte, and when they alone pass
 * the download's limit, the bundle does too. Other formats are written again and count nothing.
 */
export function copiedBytesAtLeast(info: SessionInfo): number {
  return info.files.reduce((n, f) => n + (LINE_FORMATS.has(f.format) ? f.bytes : 0), 0);
}

/** Progress events at most every PROGRESS_EVERY_MS of the search's own clock; the first and the last always. */
export const PROGRESS_EVERY_MS = 200;

function throttled(send: (p: BundleProgress) => void): (p: BundleProgress) => void {
  let last = -Infinity;
  return (p) => {
    if (p.stage !== 'start' && p.stage !== 'done' && p.elapsed_ms - last < PROGRESS_EVERY_MS) return;
    last = p.elapsed_ms;
    send(p);
  };
}

/** A repro bundle of the open session's files; asynchronous, as it loads every candidate. */
export const reproBundle: Handler<'reproBundle'> = async (request, state, context) => {
  const open = state.current;
  if (!open) return fail('no_session', 'reproBundle: no session is open');
  const changed = open.session.fileChange();
  if (changed) return fail('file_changed', changed.message);
  const labels = open.info.files.map((f) => state.labels.get(f.path));
  return reproBundleReply(open.info, request, MAX_BUNDLE_BYTES, labels.every((l) => l !== undefined) ? labels : undefined, context);
};
