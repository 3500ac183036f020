/**
 * The banner: the open file's name and format, its sessions when it holds several, how to open
 * another (Open… in the desktop app, the offered files over HTTP), theme and shortcuts.
 */
import { openOfferedFile } from '../../store/sessionSlice';
import { useApp } from '../../store/storeContext';
import { effectiveTheme } from '../../store/uiSlice';
import { FORMAT_LABELS, baseName, countOf, sessionLabel, sessionName, sessionNoun } from '../../text/format';
import './appHeader.css';
import { nameText } from '../../text/nameText';
import { FolderButton, OpenFileButton, UploadStatus } from './openFiles';
import { CopyLinkButton } from '../links/copyLinkButton';
import { ExportSessionButton } from '../export/exportSession';
import { LibraryLink } from '../library/libraryPage';

function FilePicker() {
  const files = useApp((s) => s.offeredFiles);
  const openOffered = useApp((s) => s.openOffered);
  const session = useApp((s) => s.session);
  const current = openOfferedFile(files, session);
  return (
    <span className="file-picker">
      <select aria-label="Session file" value={current?.id ?? ''} onChange={(e) => e.target.value && void openOffered(e.target.value)}>
        {!current && (
          <option value="" disabled>
            {files.length === 0 ? 'No files offered' : 'Choose a file…'}
          </option>
        )}
        {files.map((f) => (
          <option key={f.id} value={f.id}>
            {nameText(f.name)}
          </option>
        ))}
      </select>
    </span>
  );
}

/** The format the open file was read as (§10.1): its agent's name, named `Format: …` for assistive technology. */
function FormatBadge() {
  const format = useApp((s) => s.session?.format ?? null);
  if (format === null) return null;
  const label = FORMAT_LABELS[format];
  return (
    <span className="format-badge" role="note" aria-label={`Format: ${label}`} title={`Read as a ${label} session`}>
      {label}
    </span>
  );
}

/**
 * The sessions of the open file (§10.1: a Claude Code transcript and its subagents…), main first;
 * shown only when it holds more than one. Choosing one reopens the file on it. An option's value
 * is its position: ids come from the file and need not be unique or non-empty.
 */
function SessionPicker() {
  const sessions = useApp((s) => s.session?.sessions);
  const open = useApp((s) => s.session?.session ?? '');
  const omitted = useApp((s) => s.session?.sessions_omitted ?? 0);
  const openSession = useApp((s) => s.openSession);
  const noun = sessionNoun(useApp((s) => s.session?.format));
  if (!sessions || sessions.length + omitted < 2) return null;
  const selected = open === '' ? 0 : sessions.findIndex((e, k) => k > 0 && e.id === open);
  return (
    <span className="session-picker">
      <select
        aria-label="Session"
        value={selected === -1 ? '' : String(selected)}
        onChange={(e) => {
          const k = Number(e.target.value);
          if (e.target.value === '' || !sessions[k]) return;
          void openSession(k === 0 ? '' : sessions[k].id);
        }}
      >
        {selected === -1 && (
          <option value="" disabled>
            {sessionName(open, noun)}
          </option>
        )}
        {sessions.map((entry, k) => (
          <option key={k} value={String(k)}>
            {sessionLabel(entry, k === 0, noun)}
          </option>
        ))}
        {omitted > 0 && (
          <option value="" disabled>
            {`${countOf(omitted, `more ${noun}`)} not listed (open one with --session ID)`}
          </option>
        )}
      </select>
    </span>
  );
}

/** Whether the open session's files are followed as they grow (the host's setting, for later opens too). */
function FollowToggle() {
  const session = useApp((s) => s.session);
  const setFollow = useApp((s) => s.setFollow);
  if (!session || session.provisional) return null;
  return (
    <label className="app-follow" title="Show what an agent appends to the file as it writes it">
      <input type="checkbox" checked={session.following === true} onChange={(e) => void setFollow(e.currentTarget.checked)} />
      Follow file
    </label>
  );
}

export function AppHeader() {
  const host = useApp((s) => s.host);
  const fileNames = useApp((s) => s.session?.files.map((f) => baseName(f.path)).join(' + ') ?? null);
  const theme = useApp((s) => effectiveTheme(s));
  const toggleTheme = useApp((s) => s.toggleTheme);
  const openWithDialog = useApp((s) => s.openWithDialog);
  const showShortcuts = useApp((s) => s.setShortcutsOpen);
  return (
    <header className="app-header">
      <h1 className="app-title">Session Inspector</h1>
      <LibraryLink />
      <span className="app-file" title={fileNames ?? undefined}>
        {fileNames ?? 'No session open'}
      </span>
      <FormatBadge />
      <SessionPicker />
      <div className="app-header-actions">
        {host === 'electron' && (
          <button type="button" onClick={() => void openWithDialog()}>
            Open…
          </button>
        )}
        {host === 'http' && <FilePicker />}
        <CopyLinkButton />
        <ExportSessionButton />
        {host === 'http' && <OpenFileButton />}
        {host === 'http' && <FolderButton />}
        {host === 'http' && <UploadStatus />}
        <FollowToggle />
        <button type="button" className="icon-button" aria-label="Toggle theme" title={`Switch to the ${theme === 'dark' ? 'light' : 'dark'} theme`} onClick={toggleTheme}>
          {theme === 'dark' ? '☀' : '☾'}
        </button>
        <button type="button" className="icon-button" aria-label="Show keyboard shortcuts" title="Keyboard shortcuts (?)" onClick={() => showShortcuts(true)}>
          ?
        </button>
      </div>
    </header>
  );
}
