/** What the window shows around the session: theme, the side panel's tab, dialogs, focus requests. */
import type { SliceCreator } from './appState';

export type Theme = 'light' | 'dark';
export type PanelTab = 'search' | 'log' | 'findings' | 'diff' | 'whatif';

export interface UiSlice {
  /** The user's choice; null follows the system (`prefers-color-scheme`). */
  themeChoice: Theme | null;
  systemDark: boolean;
  activeTab: PanelTab;
  shortcutsOpen: boolean;
  /** Bumps when something asks for the search box to take focus (`/`, the menu). */
  focusSearchSeq: number;
  setSystemDark: (dark: boolean) => void;
  toggleTheme: () => void;
  setActiveTab: (tab: PanelTab) => void;
  setShortcutsOpen: (open: boolean) => void;
  requestFocusSearch: () => void;
  /**
   * The model call the user chose (the `Model call` slider sets it), null for the latest
   * view. The Diff tab compares it with its previous call.
   */
  selectedCall: number | null;
  setSelectedCall: (call: number | null) => void;
  /**
   * The `N more reductions` lists the user opened, by row (OtherReductions' key). Kept here, not in
   * the row: a row is unmounted and mounted again as the view scrolls or its rows are fetched
   * again, and an open list stays open through that.
   */
  openReductionLists: ReadonlySet<string>;
  toggleReductionList: (key: string) => void;
}

export function effectiveTheme(state: Pick<UiSlice, 'themeChoice' | 'systemDark'>): Theme {
  return state.themeChoice ?? (state.systemDark ? 'dark' : 'light');
}

export const createUiSlice: SliceCreator<UiSlice> = () => (set, get) => ({
  themeChoice: null,
  systemDark: false,
  activeTab: 'search',
  shortcutsOpen: false,
  focusSearchSeq: 0,
  setSystemDark(dark) {
    set({ systemDark: dark });
  },
  toggleTheme() {
    set({ themeChoice: effectiveTheme(get()) === 'dark' ? 'light' : 'dark' });
  },
  setActiveTab(tab) {
    set({ activeTab: tab });
  },
  setShortcutsOpen(open) {
    set({ shortcutsOpen: open });
  },
  requestFocusSearch() {
    set({ activeTab: 'search', focusSearchSeq: get().focusSearchSeq + 1 });
  },
  selectedCall: null,
  setSelectedCall(call) {
    set({ selectedCall: call });
  },
  openReductionLists: new Set<string>(),
  toggleReductionList(key) {
    const open = new Set(get().openReductionLists);
    if (!open.delete(key)) open.add(key);
    set({ openReductionLists: open });
  },
});
