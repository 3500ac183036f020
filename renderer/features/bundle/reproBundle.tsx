/**
 * `Make repro bundle` (SPEC §12; docs/bundles.md) on a finding and on an expanded reduction. The
 * host builds the bundle; this packs its files into one ustar archive (shared/links/tar.ts) named
 * `repro-<code|id>.tar` and offers it as a download (a blob link: the same path in the browser and
 * in the desktop window), then shows the equivalent command line to copy and what was cut.
 *
 * While the host searches, its `bundleProgress` events show the checks made against the cap, the
 * size now against the start and the time taken; `Stop and keep the best` cancels the search, and
 * the host answers with the smallest bundle found so far that still reproduces.
 */
import type { ResultOf } from '../../../shared/contract';
import { ustar } from '../../../shared/links/tar';
import { IDLE_BUNDLE, reproBundleKey } from '../../store/bundleSlice';
import { useApp } from '../../store/storeContext';
import { countOf, formatBytes, formatCount } from '../../text/format';
import { offerDownload } from '../../widgets/offerDownload';
import './reproBundle.css';

type Made = ResultOf<'reproBundle'>;

function base64Bytes(text: string): Uint8Array {
  const raw = atob(text);
  const bytes = new Uint8Array(raw.length);
  for (let k = 0; k < raw.length; k++) bytes[k] = raw.charCodeAt(k);
  return bytes;
}

/** The archive: one folder named after the bundle holding its files. */
export function bundleArchive(made: Made): Uint8Array {
  return ustar([{ name: `${made.name}/` }, ...made.files.map((f) => ({ name: `${made.name}/${f.name}`, bytes: base64Bytes(f.base64) }))]);
}

/** `412 tool_call (600.0 KiB), 3 compaction (12.0 KiB)`: what was cut, most bytes first. */
export function cutSummary(cut: Made['cut']): string {
  return cut.map((k) => `${formatCount(k.units)} ${k.kind} (${formatBytes(k.bytes)})`).join(', ');
}

export function ReproBundleButton({ codes = [], ids = [] }: { codes?: string[]; ids?: string[] }) {
  const target = { codes, ids };
  const start = useApp((s) => s.startReproBundle);
  const stop = useApp((s) => s.stopReproBundle);
  // In the store: the row holding this control may be unmounted and mounted again while it runs.
  const state = useApp((s) => s.reproBundles[reproBundleKey(target)]) ?? IDLE_BUNDLE;
  const running = state.status === 'running' ? state.bundleId : undefined;
  const progress = useApp((s) => (running !== undefined ? s.bundleProgress[running] : undefined));

  async function onClick(): Promise<void> {
    const made = await start(target);
    // Offered even when the row was scrolled away meanwhile: the user asked for it.
    if (made) offerDownload(`${made.name}.tar`, bundleArchive(made), 'application/x-tar');
  }

  return (
    <div className="repro-bundle">
      <button type="button" onClick={() => void onClick()} disabled={state.status === 'running'}>
        Make repro bundle
      </button>
      {state.status === 'running' && (
        <button type="button" onClick={() => stop(target)} disabled={state.stopping}>
          Stop and keep the best
        </button>
      )}
      <span className="repro-bundle-note" role="status" aria-live="polite">
        {state.status === 'running' &&
          (progress
            ? `Minimizing: ${formatCount(progress.oracle_calls)} of at most ${countOf(progress.max_oracle_calls, 'check')}, ${formatBytes(progress.bytes_now)} of ${formatBytes(progress.bytes_before)} kept (${formatCount(progress.units_now)} of ${countOf(progress.units_before, 'record')}), ${(progress.elapsed_ms / 1000).toFixed(1)} s${state.stopping ? '; stopping…' : ''}`
            : `Minimizing the session…${state.stopping ? ' stopping…' : ''}`)}
        {state.status === 'error' && <span className="is-error">{state.message}</span>}
        {state.status === 'done' &&
          `${state.made.name}.tar: ${formatBytes(state.made.bytes_after)} of session files (from ${formatBytes(state.made.bytes_before)}), ${countOf(state.made.oracle_calls, 'check')}.${state.made.stopped_early ? ` Stopped early: ${state.made.stopped_early}.` : ''}`}
      </span>
      {state.status === 'running' && progress && <progress className="repro-bundle-progress" max={progress.max_oracle_calls} value={progress.oracle_calls} aria-label="Checks made of the cap" />}
      {state.status === 'done' && state.made.cut.length > 0 && <p className="repro-bundle-cut">Cut: {cutSummary(state.made.cut)}.</p>}
      {state.status === 'done' && (
        <p className="repro-bundle-command">
          The same on the command line: <code>{state.made.command}</code>
        </p>
      )}
    </div>
  );
}
