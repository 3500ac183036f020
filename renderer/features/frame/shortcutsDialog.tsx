/** The `Keyboard shortcuts` dialog (modal; Esc or Close closes it). */
import { useApp } from '../../store/storeContext';
import { useModalDialog } from '../../widgets/useModalDialog';
import { Glossary } from '../glossary/glossary';
import '../../widgets/modalDialog.css';
import './shortcutsDialog.css';

const SHORTCUTS: [string, string][] = [
  ['j / k', 'Next / previous message'],
  ['n / N', 'Next / previous stub'],
  ['[ / ]', 'Previous / next model call (after the last: the latest view)'],
  ['Enter', 'Expand the selected message’s stub'],
  ['Esc', 'Collapse the open reduction'],
  ['/', 'Search hidden content'],
  ['?', 'This list'],
  ['← → PageUp PageDown Home End', 'Move a range thumb (±1 byte, ±1/10 of the content, to its bounds)'],
];

export function ShortcutsDialog() {
  const open = useApp((s) => s.shortcutsOpen);
  const setOpen = useApp((s) => s.setShortcutsOpen);
  const ref = useModalDialog(open);

  return (
    <dialog ref={ref} className="modal-dialog shortcuts-dialog" aria-labelledby="shortcuts-title" onClose={() => setOpen(false)} onCancel={() => setOpen(false)}>
      <h2 id="shortcuts-title">Keyboard shortcuts</h2>
      <dl className="shortcuts-list">
        {SHORTCUTS.map(([keys, what]) => (
          <div key={keys} className="shortcuts-item">
            <dt>
              {keys.split(' ').map((k) => (k === '/' && keys !== '/' ? ' / ' : <kbd key={k}>{k}</kbd>))}
            </dt>
            <dd>{what}</dd>
          </div>
        ))}
      </dl>
      <p className="shortcuts-note">Letter keys work when focus is not in a text field.</p>
      <Glossary />
      <button type="button" onClick={() => setOpen(false)} autoFocus>
        Close
      </button>
    </dialog>
  );
}
