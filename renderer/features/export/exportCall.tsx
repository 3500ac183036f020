/**
 * `Export call…` in the model calls bar (SPEC §16, §16.1): a modal dialog that asks the host for
 * the shown call's input as a provider request (the agent's own provider, or one chosen; the
 * originals with `Expanded`) and copies it or offers it as a `.json` download made from a Blob
 * here. The body is never rendered: only its size and what the file does not record are shown, as text.
 */
import { useId, useState } from 'react';
import type { ResultOf } from '../../../shared/contract';
import type { Provider } from '../../../shared/export/providers';
import { useApp } from '../../store/storeContext';
import { formatBytes } from '../../text/format';
import { offerDownload } from '../../widgets/offerDownload';
import { useModalDialog } from '../../widgets/useModalDialog';
import { copyText } from '../links/copyText';
import '../../widgets/modalDialog.css';
import './exportCall.css';

type Made = ResultOf<'exportCall'>;
type Choice = Provider | 'own';

const CHOICES: readonly [Choice, string][] = [
  ['own', 'The agent’s own provider'],
  ['anthropic', 'Anthropic Messages'],
  ['openai-chat', 'OpenAI Chat Completions'],
  ['openai-responses', 'OpenAI Responses'],
];

type State = { status: 'idle' } | { status: 'running' } | { status: 'error'; message: string } | { status: 'done'; made: Made; said: string };

function ExportCallDialog({ call, onClose }: { call: number; onClose: () => void }) {
  const exportCall = useApp((s) => s.exportCall);
  const ref = useModalDialog(true);
  const id = useId();
  const [choice, setChoice] = useState<Choice>('own');
  const [expanded, setExpanded] = useState(false);
  const [state, setState] = useState<State>({ status: 'idle' });

  async function run(action: 'copy' | 'download'): Promise<void> {
    setState({ status: 'running' });
    const reply = await exportCall({ call, expanded, ...(choice === 'own' ? {} : { provider: choice }) });
    if (reply === null) return setState({ status: 'idle' });
    if (!reply.ok) return setState({ status: 'error', message: reply.error.message });
    const made = reply.value;
    if (action === 'download') {
      offerDownload(made.filename, new TextEncoder().encode(`${made.request}\n`), 'application/json');
      return setState({ status: 'done', made, said: `Downloaded ${made.filename}.` });
    }
    setState({ status: 'done', made, said: await copyText(made.request, `the ${made.provider} request of call ${made.call}`) });
  }

  return (
    <dialog ref={ref} className="modal-dialog export-call-dialog" aria-labelledby={`${id}-title`} onClose={onClose} onCancel={onClose}>
      <h2 id={`${id}-title`}>Export call {call}</h2>
      <p className="export-call-lead">The request body that gives a provider’s API what the model was given at this call.</p>
      <fieldset>
        <legend>Provider</legend>
        {CHOICES.map(([value, label]) => (
          <label key={value} className="export-call-choice">
            <input type="radio" name={`${id}-provider`} value={value} checked={choice === value} onChange={() => setChoice(value)} />
            {label}
          </label>
        ))}
      </fieldset>
      <label className="export-call-choice">
        <input type="checkbox" checked={expanded} onChange={(e) => setExpanded(e.currentTarget.checked)} />
        Expanded: the originals instead of the stubs and summaries
      </label>
      <div className="export-call-actions">
        <button type="button" onClick={() => void run('copy')} disabled={state.status === 'running'}>
          Copy
        </button>
        <button type="button" onClick={() => void run('download')} disabled={state.status === 'running'}>
          Download .json
        </button>
        <button type="button" onClick={onClose}>
          Close
        </button>
      </div>
      <p className="export-call-status" role="status">
        {state.status === 'running' && 'Exporting…'}
        {state.status === 'error' && <span className="is-error">{state.message}</span>}
        {state.status === 'done' && `${state.said} ${formatBytes(new TextEncoder().encode(state.made.request).length)}, ${state.made.provider}${state.made.expanded ? ', expanded' : ''}.`}
      </p>
      {state.status === 'done' && state.made.notes.length > 0 && (
        <section aria-label={state.made.body === 'recorded' ? 'Recorded request' : 'Notes'}>
          <h3>{state.made.body === 'recorded' ? 'The request as the file records it' : 'Notes'}</h3>
          <ul className="export-call-notes">
            {state.made.notes.map((n, k) => (
              <li key={k}>{n}</li>
            ))}
          </ul>
        </section>
      )}
      {state.status === 'done' && state.made.not_recorded.length > 0 && (
        <section aria-label="Not recorded">
          <h3>Not recorded in the file, left out</h3>
          <ul className="export-call-notes">
            {state.made.not_recorded.map((n) => (
              <li key={n}>{n}</li>
            ))}
          </ul>
        </section>
      )}
      {state.status === 'done' && state.made.adjusted.length > 0 && (
        <section aria-label="Adjusted">
          <h3>Changed so that the API takes it</h3>
          <ul className="export-call-notes">
            {state.made.adjusted.map((n, k) => (
              <li key={k}>{n}</li>
            ))}
          </ul>
        </section>
      )}
    </dialog>
  );
}

/** The `Export call…` button of the calls bar and its dialog, for call `call`. */
export function ExportCallButton({ call }: { call: number }) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <button type="button" className="export-call-open" onClick={() => setOpen(true)}>
        Export call…
      </button>
      {open && <ExportCallDialog call={call} onClose={() => setOpen(false)} />}
    </>
  );
}
