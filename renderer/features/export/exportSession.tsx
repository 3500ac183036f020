/**
 * `Export session…` (SPEC §16, §16.1): a dialog to write the open session as one Markdown or HTML
 * document (the host writes it: docs/export-documents.md), with secrets redacted or not and a range
 * of model calls, then download it (a blob link, in the browser and the desktop window alike) or
 * copy it. The document's text is never shown or rendered here.
 */
import { useId, useState } from 'react';
import type { Params, ResultOf } from '../../../shared/contract';
import { useApp } from '../../store/storeContext';
import { useModalDialog } from '../../widgets/useModalDialog';
import { formatBytes } from '../../text/format';
import { copyText } from '../links/copyText';
import './exportSession.css';
import '../../widgets/modalDialog.css';

type Made = ResultOf<'exportDocument'>;

function offerDownload(made: Made, as: Params<'exportDocument'>['as']): void {
  const url = URL.createObjectURL(new Blob([made.text], { type: as === 'html' ? 'text/html;charset=utf-8' : 'text/markdown;charset=utf-8' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = made.name;
  link.hidden = true;
  document.body.append(link);
  link.click();
  link.remove();
  // The download has its bytes once the click is handled; the URL is released after.
  setTimeout(() => URL.revokeObjectURL(url), 0);
}

/** A call number typed in a box: undefined when empty. */
function callNumber(text: string): number | undefined {
  return /^\d+$/.test(text.trim()) ? Number(text.trim()) : undefined;
}

/** What redaction replaced, in words. */
function redactedWords(counts: Record<string, number>): string {
  const kinds = Object.keys(counts).sort();
  if (kinds.length === 0) return 'no secret found';
  return `redacted ${kinds.map((k) => `${counts[k]} ${k}`).join(', ')}`;
}

export function ExportSessionButton() {
  const hasSession = useApp((s) => s.session !== null && !s.session.provisional);
  const make = useApp((s) => s.makeSessionDocument);
  const [open, setOpen] = useState(false);
  const [as, setAs] = useState<'markdown' | 'html'>('html');
  const [redact, setRedact] = useState(true);
  const [first, setFirst] = useState('');
  const [last, setLast] = useState('');
  const [status, setStatus] = useState('');
  const [busy, setBusy] = useState(false);
  const ref = useModalDialog(open);
  const id = useId();
  if (!hasSession) return null;

  async function run(then: 'download' | 'copy'): Promise<void> {
    const from = callNumber(first);
    const to = callNumber(last);
    if ((first.trim() !== '' && from === undefined) || (last.trim() !== '' && to === undefined)) return setStatus('Calls are whole numbers (1, 2, …), or empty for every call.');
    const params: Params<'exportDocument'> = { as, redact, ...(from !== undefined || to !== undefined ? { calls: [from ?? 1, to ?? from ?? 1] as [number, number] } : {}) };
    setBusy(true);
    setStatus('Writing the document…');
    const reply = await make(params);
    setBusy(false);
    if (reply === null) return setStatus('The session changed while the document was written: try again.');
    if (!reply.ok) return setStatus(reply.error.message);
    const made = reply.value;
    const what = `${made.name}, ${formatBytes(made.bytes)}${redact ? `, ${redactedWords(made.redacted)}` : ''}`;
    if (then === 'download') {
      offerDownload(made, as);
      setStatus(`Downloaded ${what}.`);
    } else {
      setStatus(`${await copyText(made.text, 'the document')} (${what})`);
    }
  }

  return (
    <>
      <button type="button" title="Write the session as one Markdown or HTML document, to download or copy" onClick={() => setOpen(true)}>
        Export session…
      </button>
      <dialog ref={ref} className="modal-dialog export-dialog" aria-labelledby={`${id}-title`} onClose={() => setOpen(false)} onCancel={() => setOpen(false)}>
        <h2 id={`${id}-title`}>Export session</h2>
        <fieldset>
          <legend>Format</legend>
          <label>
            <input type="radio" name={`${id}-as`} checked={as === 'html'} onChange={() => setAs('html')} /> HTML
          </label>
          <label>
            <input type="radio" name={`${id}-as`} checked={as === 'markdown'} onChange={() => setAs('markdown')} /> Markdown
          </label>
        </fieldset>
        <label className="export-redact">
          <input type="checkbox" checked={redact} onChange={(e) => setRedact(e.currentTarget.checked)} /> Redact secrets (API keys, tokens, passwords, private keys)
        </label>
        <fieldset>
          <legend>Model calls (empty: every call)</legend>
          <label>
            First call <input type="number" min={1} inputMode="numeric" value={first} onChange={(e) => setFirst(e.currentTarget.value)} />
          </label>
          <label>
            Last call <input type="number" min={1} inputMode="numeric" value={last} onChange={(e) => setLast(e.currentTarget.value)} />
          </label>
        </fieldset>
        <div className="export-actions">
          <button type="button" disabled={busy} onClick={() => void run('download')}>
            Download
          </button>
          <button type="button" disabled={busy} onClick={() => void run('copy')}>
            Copy
          </button>
          <button type="button" onClick={() => setOpen(false)}>
            Close
          </button>
        </div>
        <p className="export-status" role="status">
          {status}
        </p>
      </dialog>
    </>
  );
}
