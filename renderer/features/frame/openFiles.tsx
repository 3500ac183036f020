/**
 * The HTTP host's ways to open a file: `Open file…` (a file input; the browser uploads
 * the file), a drop zone on the empty page (dropping works anywhere on the window: DropOverlay),
 * and, under `serve DIR`, the `Sessions in folder` table, also reachable from the header once a
 * session is open. Names from the folder are shown through nameText, as every name from disk.
 */
import { useEffect, useRef, useState } from 'react';
import { useApp } from '../../store/storeContext';
import { FORMAT_LABELS, countOf, formatBytes } from '../../text/format';
import { nameText } from '../../text/nameText';
import { useModalDialog } from '../../widgets/useModalDialog';
import './openFiles.css';
import '../../widgets/modalDialog.css';

/** `Open file…`: a button over a hidden file input (one file; the input refuses several). */
export function OpenFileButton() {
  const openFiles = useApp((s) => s.openFiles);
  const input = useRef<HTMLInputElement>(null);
  return (
    <>
      <button type="button" onClick={() => input.current?.click()}>
        Open file…
      </button>
      <input
        ref={input}
        type="file"
        hidden
        aria-label="Session file to open"
        onChange={(e) => {
          const files = Array.from(e.target.files ?? []);
          // Cleared, so picking the same file again opens it again.
          e.target.value = '';
          void openFiles(files);
        }}
      />
    </>
  );
}

/** While a file is being uploaded: its name, announced politely. */
export function UploadStatus() {
  const uploading = useApp((s) => s.uploading);
  if (uploading === null) return null;
  return (
    <span className="upload-status" role="status">
      {`Uploading ${nameText(uploading)}…`}
    </span>
  );
}

/** The empty page's invitation to drop a file (the drop itself is handled window-wide). */
export function DropZone() {
  return (
    <div className="drop-zone" role="region" aria-label="Drop zone">
      <p>Drop a session file here, or choose one with Open file…</p>
    </div>
  );
}

/** The served folder's session files (`serve DIR`), each opened by picking it; refused ones say why. */
export function FolderSessions() {
  const host = useApp((s) => s.host);
  const folder = useApp((s) => s.folder);
  const loadFolder = useApp((s) => s.loadFolder);
  const openEntry = useApp((s) => s.openFolderEntry);
  useEffect(() => {
    if (host === 'http') void loadFolder();
  }, [host, loadFolder]);
  if (!folder) return null;
  const openable = folder.entries.filter((e) => e.refused === undefined).length;
  return (
    <section className="folder-sessions" aria-labelledby="folder-sessions-title">
      <div className="folder-sessions-head">
        <h2 id="folder-sessions-title">{`Sessions in ${nameText(folder.name)}`}</h2>
        <button type="button" onClick={() => void loadFolder()}>
          Refresh
        </button>
      </div>
      {openable === 0 && <p>No session file in this folder yet: add one, then Refresh.</p>}
      {folder.truncated && <p>{`Only the first ${countOf(folder.scanned, 'entry', 'entries')} of the folder were read.`}</p>}
      {folder.entries.length > 0 && (
        <table aria-label="Sessions in folder">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Format</th>
              <th scope="col">Size</th>
            </tr>
          </thead>
          <tbody>
            {folder.entries.map((entry) => (
              <tr key={entry.id}>
                <td>
                  {entry.refused === undefined ? (
                    <button type="button" className="link-button" onClick={() => void openEntry(entry.id)}>
                      {nameText(entry.name)}
                    </button>
                  ) : (
                    nameText(entry.name)
                  )}
                </td>
                <td>{entry.format !== undefined ? FORMAT_LABELS[entry.format] : `Refused: ${entry.refused ?? ''}`}</td>
                <td>{entry.refused === undefined ? formatBytes(entry.bytes) : ''}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

/** With a session open under `serve DIR`: `Folder…` shows the folder's sessions in a dialog. */
export function FolderButton() {
  const folder = useApp((s) => s.folder);
  const session = useApp((s) => s.session);
  const [open, setOpen] = useState(false);
  const ref = useModalDialog(open);
  // Picking an entry opens another session: the dialog has done its job.
  useEffect(() => setOpen(false), [session?.generation]);
  if (!folder || !session) return null;
  return (
    <>
      <button type="button" onClick={() => setOpen(true)}>
        Folder…
      </button>
      <dialog ref={ref} className="modal-dialog folder-dialog" aria-label="Folder" onClose={() => setOpen(false)} onCancel={() => setOpen(false)}>
        {open && <FolderSessions />}
        <button type="button" onClick={() => setOpen(false)}>
          Close
        </button>
      </dialog>
    </>
  );
}
