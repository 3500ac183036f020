/** The banner: the open file's name, how to open another (Open… in the desktop app, the offered files over HTTP), theme and shortcuts. */
import { useShallow } from 'zustand/react/shallow';
import { useApp } from '../../store/storeContext';
import { effectiveTheme } from '../../store/uiSlice';
import { baseName } from '../../text/format';
import './appHeader.css';
import { nameText } from '../../text/nameText';

function FilePicker() {
  const files = useApp((s) => s.offeredFiles);
  const openOffered = useApp((s) => s.openOffered);
  // The offered file whose names are the open session's (the host names pairs `a + b`).
  const openNames = useApp(useShallow((s) => (s.session?.files ?? []).map((f) => baseName(f.path)).sort()));
  const current = files.find((f) => f.name.split(' + ').sort().join('\n') === openNames.join('\n'));
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
      <span className="app-file" title={fileNames ?? undefined}>
        {fileNames ?? 'No session open'}
      </span>
      <div className="app-header-actions">
        {host === 'electron' && (
          <button type="button" onClick={() => void openWithDialog()}>
            Open…
          </button>
        )}
        {host === 'http' && <FilePicker />}
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
