/**
 * The application menu as a pure template builder: given the platform, the recent files and the
 * actions, it returns the template `Menu.buildFromTemplate` takes. Nothing here touches Electron at
 * runtime, so menu.test.ts inspects the template directly.
 */
import { basename } from 'node:path';
import type { MenuItemConstructorOptions } from 'electron';
import type { EventPayload } from '../../shared/contract';

/** The renderer commands the menu sends (the contract's `command` event). */
export type CommandName = EventPayload<'command'>['name'];

export interface MenuActions {
  /** The native open dialog (through the host, which then opens the chosen files). */
  open(): void;
  /** A new window, with a session of its own (SPEC §14). */
  newWindow(): void;
  openRecent(path: string): void;
  clearRecent(): void;
  /** Flips nativeTheme.themeSource and sends the `toggleTheme` command. */
  toggleDarkMode(): void;
  /** Sends a `command` event to the renderer. */
  command(name: CommandName): void;
  about(): void;
}

export interface MenuOptions {
  appName: string;
  platform: NodeJS.Platform;
  /** Developer Tools are offered only when not packaged. */
  isPackaged: boolean;
  /** Most recent first. */
  recent: readonly string[];
  actions: MenuActions;
}

/** A recent file's menu label: its name, then its folder so two `session.sidecar.jsonl` differ. */
export function recentLabel(path: string): string {
  // `&` would be read as a mnemonic marker on Windows and Linux.
  return `${basename(path)} — ${path}`.replaceAll('&', '&&');
}

export function buildMenuTemplate(options: MenuOptions): MenuItemConstructorOptions[] {
  const { actions, appName } = options;
  const mac = options.platform === 'darwin';
  const about: MenuItemConstructorOptions = { id: 'about', label: `About ${appName}`, click: () => actions.about() };

  const recentItems: MenuItemConstructorOptions[] = options.recent.map((path, index) => ({
    id: `recent-${index}`,
    label: recentLabel(path),
    click: () => actions.openRecent(path),
  }));
  const openRecent: MenuItemConstructorOptions = {
    id: 'open-recent',
    label: 'Open Recent',
    submenu: [
      ...(recentItems.length > 0 ? recentItems : [{ id: 'no-recent', label: 'No Recent Files', enabled: false }]),
      { type: 'separator' },
      { id: 'clear-recent', label: 'Clear Recent', enabled: recentItems.length > 0, click: () => actions.clearRecent() },
    ],
  };

  const file: MenuItemConstructorOptions = {
    id: 'file',
    label: '&File',
    submenu: [
      { id: 'new-window', label: 'New Window', accelerator: 'CmdOrCtrl+Shift+N', click: () => actions.newWindow() },
      { id: 'open', label: 'Open…', accelerator: 'CmdOrCtrl+O', click: () => actions.open() },
      openRecent,
      { type: 'separator' },
      { id: 'close', label: 'Close', accelerator: 'CmdOrCtrl+W', role: 'close' },
      // On macOS Quit lives in the app menu.
      ...(mac ? [] : [{ type: 'separator' } as const, { id: 'quit', label: 'Quit', accelerator: 'Ctrl+Q', role: 'quit' } as const]),
    ],
  };

  // Without an Edit menu, copy and paste shortcuts do nothing on macOS.
  const edit: MenuItemConstructorOptions = {
    id: 'edit',
    label: '&Edit',
    submenu: [
      { role: 'undo' },
      { role: 'redo' },
      { type: 'separator' },
      { role: 'cut' },
      { role: 'copy' },
      { role: 'paste' },
      { role: 'selectAll' },
    ],
  };

  const view: MenuItemConstructorOptions = {
    id: 'view',
    label: '&View',
    submenu: [
      { id: 'reload', label: 'Reload', role: 'reload' },
      ...(options.isPackaged ? [] : [{ id: 'devtools', label: 'Toggle Developer Tools', role: 'toggleDevTools' } as const]),
      { type: 'separator' },
      { id: 'actual-size', label: 'Actual Size', role: 'resetZoom' },
      { id: 'zoom-in', label: 'Zoom In', role: 'zoomIn' },
      { id: 'zoom-out', label: 'Zoom Out', role: 'zoomOut' },
      { type: 'separator' },
      { id: 'toggle-dark-mode', label: 'Toggle Dark Mode', click: () => actions.toggleDarkMode() },
      { id: 'find', label: 'Find in Hidden Content', accelerator: 'CmdOrCtrl+F', click: () => actions.command('focusSearch') },
    ],
  };

  const help: MenuItemConstructorOptions = {
    id: 'help',
    label: '&Help',
    role: 'help',
    submenu: [
      { id: 'shortcuts', label: 'Keyboard Shortcuts', click: () => actions.command('showShortcuts') },
      ...(mac ? [] : [{ type: 'separator' } as const, about]),
    ],
  };

  if (!mac) return [file, edit, view, help];

  const appMenu: MenuItemConstructorOptions = {
    id: 'app',
    label: appName,
    submenu: [
      about,
      { type: 'separator' },
      { role: 'services' },
      { type: 'separator' },
      { role: 'hide' },
      { role: 'hideOthers' },
      { role: 'unhide' },
      { type: 'separator' },
      { id: 'quit', label: `Quit ${appName}`, accelerator: 'Cmd+Q', role: 'quit' },
    ],
  };
  const window: MenuItemConstructorOptions = { id: 'window', role: 'windowMenu' };
  return [appMenu, file, edit, view, window, help];
}
