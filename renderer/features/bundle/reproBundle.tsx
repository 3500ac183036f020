/**
 * `Make repro bundle` (SPEC §12) on a finding and on an expanded reduction. The host
 * builds the bundle; this packs its files into one ustar archive (shared/links/tar.ts) named
 * `repro-<code|id>.tar` and offers it as a download (a blob link: the same path in the browser and
 * in the desktop window), then shows the equivalent command line to copy.
 */
import { useState } from 'react';
import type { ResultOf } from '../../../shared/contract';
import { ustar } from '../../../shared/links/tar';
import { useApp } from '../../store/storeContext';
import { countOf, formatBytes } from '../../text/format';
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

type State = { status: 'idle' } | { status: 'running' } | { status: 'error'; message: string } | { status: 'done'; made: Made };

export function ReproBundleButton({ codes = [], ids = [] }: { codes?: string[]; ids?: string[] }) {
  const make = useApp((s) => s.makeReproBundle);
  const [state, setState] = useState<State>({ status: 'idle' });

  async function onClick(): Promise<void> {
    setState({ status: 'running' });
    const reply = await make({ codes, ids });
    if (reply === null) return setState({ status: 'idle' });
    if (!reply.ok) return setState({ status: 'error', message: reply.error.message });
    offerDownload(`${reply.value.name}.tar`, bundleArchive(reply.value), 'application/x-tar');
    setState({ status: 'done', made: reply.value });
  }

  return (
    <div className="repro-bundle">
      <button type="button" onClick={() => void onClick()} disabled={state.status === 'running'}>
        Make repro bundle
      </button>
      <span className="repro-bundle-note" aria-live="polite">
        {state.status === 'running' && 'Minimizing the session…'}
        {state.status === 'error' && <span className="is-error">{state.message}</span>}
        {state.status === 'done' &&
          `${state.made.name}.tar: ${formatBytes(state.made.bytes_after)} of session files (from ${formatBytes(state.made.bytes_before)}), ${countOf(state.made.oracle_calls, 'check')}.`}
      </span>
      {state.status === 'done' && (
        <p className="repro-bundle-command">
          The same on the command line: <code>{state.made.command}</code>
        </p>
      )}
    </div>
  );
}
