import type { MenuItemConstructorOptions } from 'electron';
import { describe, expect, it, vi } from 'vitest';
import type { CommandName, MenuActions, MenuOptions } from './menu';
import { buildMenuTemplate, recentLabel } from './menu';

function actions() {
  return {
    open: vi.fn<() => void>(),
    newWindow: vi.fn<() => void>(),
    openRecent: vi.fn<(path: string) => void>(),
    clearRecent: vi.fn<() => void>(),
    toggleDarkMode: vi.fn<() => void>(),
    command: vi.fn<(name: CommandName) => void>(),
    about: vi.fn<() => void>(),
  } satisfies MenuActions;
}

function build(overrides: Partial<MenuOptions> = {}) {
  const acts = actions();
  const template = buildMenuTemplate({ appName: 'Session Inspector', platform: 'linux', isPackaged: false, recent: [], actions: acts, ...overrides });
  return { template, acts };
}

function submenu(item: MenuItemConstructorOptions | undefined): MenuItemConstructorOptions[] {
  const items = item?.submenu;
  if (!Array.isArray(items)) throw new Error(`${item?.label ?? '(item)'} has no submenu`);
  return items;
}

/** Every item of the template, depth first. */
function all(template: MenuItemConstructorOptions[]): MenuItemConstructorOptions[] {
  return template.flatMap((item) => [item, ...(Array.isArray(item.submenu) ? all(item.submenu) : [])]);
}

function byId(template: MenuItemConstructorOptions[], id: string): MenuItemConstructorOptions {
  const item = all(template).find((i) => i.id === id);
  if (!item) throw new Error(`no menu item ${id}`);
  return item;
}

function click(item: MenuItemConstructorOptions): void {
  const handler = item.click as (() => void) | undefined;
  if (!handler) throw new Error(`${item.label ?? item.id ?? '(item)'} has no click`);
  handler();
}

describe('buildMenuTemplate (Windows and Linux)', () => {
  it('has File, Edit, View and Help', () => {
    expect(build().template.map((item) => item.label)).toEqual(['&File', '&Edit', '&View', '&Help']);
  });

  it('File: New Window (CmdOrCtrl+Shift+N), Open… (CmdOrCtrl+O), Open Recent, Close (CmdOrCtrl+W), Quit', () => {
    const { template, acts } = build();
    const labels = submenu(template[0]).filter((i) => i.type !== 'separator').map((i) => i.label);
    expect(labels).toEqual(['New Window', 'Open…', 'Open Recent', 'Close', 'Quit']);
    const newWindow = byId(template, 'new-window');
    expect(newWindow.accelerator).toBe('CmdOrCtrl+Shift+N');
    click(newWindow);
    expect(acts.newWindow).toHaveBeenCalledTimes(1);
    const open = byId(template, 'open');
    expect(open.accelerator).toBe('CmdOrCtrl+O');
    click(open);
    expect(acts.open).toHaveBeenCalledTimes(1);
    expect(byId(template, 'close')).toMatchObject({ accelerator: 'CmdOrCtrl+W', role: 'close' });
    expect(byId(template, 'quit')).toMatchObject({ role: 'quit' });
  });

  it('Open Recent lists the recent files, most recent first, and Clear Recent', () => {
    const { template, acts } = build({ recent: ['/a/one.sidecar.jsonl', '/b/two.session.json'] });
    const items = submenu(byId(template, 'open-recent'));
    expect(items.map((i) => i.label)).toEqual([recentLabel('/a/one.sidecar.jsonl'), recentLabel('/b/two.session.json'), undefined, 'Clear Recent']);
    click(items[1]!);
    expect(acts.openRecent).toHaveBeenCalledWith('/b/two.session.json');
    const clear = byId(template, 'clear-recent');
    expect(clear.enabled).toBe(true);
    click(clear);
    expect(acts.clearRecent).toHaveBeenCalledTimes(1);
  });

  it('Open Recent with nothing recent says so and disables Clear Recent', () => {
    const { template } = build();
    expect(byId(template, 'no-recent')).toMatchObject({ enabled: false });
    expect(byId(template, 'clear-recent').enabled).toBe(false);
  });

  it('recent labels escape & (a mnemonic marker) and show the folder', () => {
    expect(recentLabel('/tmp/R&D/s.sidecar.jsonl')).toBe('s.sidecar.jsonl — /tmp/R&&D/s.sidecar.jsonl');
  });

  it('View: Reload, Toggle Developer Tools, Actual Size, Zoom In, Zoom Out, Toggle Dark Mode, Find in Hidden Content', () => {
    const { template, acts } = build();
    const view = submenu(template[2]).filter((i) => i.type !== 'separator');
    expect(view.map((i) => i.label)).toEqual(['Reload', 'Toggle Developer Tools', 'Actual Size', 'Zoom In', 'Zoom Out', 'Toggle Dark Mode', 'Find in Hidden Content']);
    expect(view.map((i) => i.role)).toEqual(['reload', 'toggleDevTools', 'resetZoom', 'zoomIn', 'zoomOut', undefined, undefined]);
    click(byId(template, 'toggle-dark-mode'));
    expect(acts.toggleDarkMode).toHaveBeenCalledTimes(1);
    const find = byId(template, 'find');
    expect(find.accelerator).toBe('CmdOrCtrl+F');
    click(find);
    expect(acts.command).toHaveBeenCalledWith('focusSearch');
  });

  it('offers Developer Tools only when not packaged', () => {
    const packaged = all(build({ isPackaged: true }).template);
    expect(packaged.some((i) => i.role === 'toggleDevTools')).toBe(false);
    expect(all(build({ isPackaged: false }).template).some((i) => i.role === 'toggleDevTools')).toBe(true);
  });

  it('Help: Keyboard Shortcuts sends showShortcuts; About opens the about box', () => {
    const { template, acts } = build();
    click(byId(template, 'shortcuts'));
    expect(acts.command).toHaveBeenCalledWith('showShortcuts');
    const about = byId(template, 'about');
    expect(about.label).toBe('About Session Inspector');
    click(about);
    expect(acts.about).toHaveBeenCalledTimes(1);
  });

  it('gives every accelerator to one item only', () => {
    const accelerators = all(build({ recent: ['/a/x.jsonl'] }).template).flatMap((i) => (typeof i.accelerator === 'string' ? [i.accelerator] : []));
    expect(new Set(accelerators).size).toBe(accelerators.length);
  });
});

describe('buildMenuTemplate (macOS)', () => {
  it('starts with the app menu (About, Hide, Quit) and keeps Quit out of File', () => {
    const { template, acts } = build({ platform: 'darwin' });
    expect(template.map((i) => i.label ?? i.role)).toEqual(['Session Inspector', '&File', '&Edit', '&View', 'windowMenu', '&Help']);
    const appMenu = submenu(template[0]);
    expect(appMenu[0]?.label).toBe('About Session Inspector');
    click(appMenu[0]!);
    expect(acts.about).toHaveBeenCalledTimes(1);
    expect(appMenu.map((i) => i.role)).toEqual(expect.arrayContaining(['hide', 'hideOthers', 'unhide', 'quit']));
    expect(submenu(template[1]).some((i) => i.role === 'quit')).toBe(false);
    expect(all(template).filter((i) => i.role === 'quit')).toHaveLength(1);
    expect(all(template).filter((i) => i.id === 'about')).toHaveLength(1);
  });

  it('has an Edit menu with copy and paste, without which the shortcuts do nothing on macOS', () => {
    const roles = submenu(build({ platform: 'darwin' }).template[2]).map((i) => i.role);
    expect(roles).toEqual(expect.arrayContaining(['copy', 'paste', 'selectAll']));
  });
});
