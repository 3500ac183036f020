/**
 * The window's keyboard shortcuts (UI contract): j/k messages, n/N stubs, [/] model calls, `/` search, Enter
 * expand, Esc collapse, `?` help. Letter keys act only when focus is not in a text field; keys a
 * focused control uses itself (Enter on a button, arrows on a slider) are left to it.
 */
import { useEffect } from 'react';
import type { AppStore } from '../../store/store';

const TEXT_INPUT_TYPES = new Set(['text', 'search', 'number', 'email', 'password', 'url', 'tel']);

export function isTextField(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable) return true;
  if (target instanceof HTMLTextAreaElement || target instanceof HTMLSelectElement) return true;
  return target instanceof HTMLInputElement && TEXT_INPUT_TYPES.has(target.type);
}

function isControl(target: EventTarget | null): boolean {
  return target instanceof HTMLElement && (target.closest('button, a[href], input, select, textarea, [role="slider"], [role="tab"], summary') !== null);
}

export function useGlobalKeys(store: AppStore): void {
  useEffect(() => {
    const onKeyDown = (e: KeyboardEvent): void => {
      if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey || e.isComposing) return;
      const s = store.getState();
      if (s.shortcutsOpen) return;
      if (isTextField(e.target)) return;
      let handled = true;
      switch (e.key) {
        case 'j':
          s.moveSelection(1);
          break;
        case 'k':
          s.moveSelection(-1);
          break;
        case 'n':
          void s.stepStub(1);
          break;
        case 'N':
          void s.stepStub(-1);
          break;
        case '/':
          s.requestFocusSearch();
          break;
        // Previous / next model call.
        case '[':
          s.stepCall(-1);
          break;
        case ']':
          s.stepCall(1);
          break;
        case '?':
          s.setShortcutsOpen(true);
          break;
        case 'Enter':
          if (isControl(e.target)) handled = false;
          else s.expandSelected();
          break;
        case 'Escape':
          if (s.openReduction) s.collapse();
          else handled = false;
          break;
        default:
          handled = false;
      }
      if (handled) e.preventDefault();
    };
    window.addEventListener('keydown', onKeyDown);
    return () => window.removeEventListener('keydown', onKeyDown);
  }, [store]);
}
