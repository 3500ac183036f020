/**
 * The window: banner, load progress and alerts, the projected view beside the side panel, the
 * status bar. Wires the theme to `prefers-color-scheme` (until toggled) and the window-wide
 * keyboard and drop handlers.
 */
import { useEffect } from 'react';
import { CallsBar } from './features/calls/callsBar';
import { AppHeader } from './features/frame/appHeader';
import { DropOverlay } from './features/frame/dropOverlay';
import { AlertList, LoadProgress } from './features/frame/notices';
import { ShortcutsDialog } from './features/frame/shortcutsDialog';
import { StatusBar } from './features/frame/statusBar';
import { useGlobalKeys } from './features/frame/useGlobalKeys';
import { LibraryPage, useLibraryShown } from './features/library/libraryPage';
import { useLinkSync } from './features/links/useLinkSync';
import { SidePanel } from './features/panels/sidePanel';
import { ProjectedView } from './features/view/projectedView';
import { useApp, useAppStore } from './store/storeContext';
import { effectiveTheme } from './store/uiSlice';
import './app.css';

function useTheme(): void {
  const theme = useApp((s) => effectiveTheme(s));
  const setSystemDark = useApp((s) => s.setSystemDark);
  useEffect(() => {
    const query = window.matchMedia('(prefers-color-scheme: dark)');
    setSystemDark(query.matches);
    const onChange = (e: MediaQueryListEvent): void => setSystemDark(e.matches);
    query.addEventListener('change', onChange);
    return () => query.removeEventListener('change', onChange);
  }, [setSystemDark]);
  useEffect(() => {
    document.documentElement.dataset.theme = theme;
  }, [theme]);
}

export function App() {
  const store = useAppStore();
  useTheme();
  useGlobalKeys(store);
  useLinkSync(store);
  useEffect(() => store.getState().start(), [store]);
  const libraryShown = useLibraryShown();
  return (
    <div className="app">
      <AppHeader />
      <div className="app-notices">
        <LoadProgress />
        <AlertList />
      </div>
      {libraryShown ? (
        <LibraryPage />
      ) : (
        <>
          <main className="app-main calls-main" aria-label="Session">
            <CallsBar />
            <div className="calls-view">
              <ProjectedView />
            </div>
          </main>
          <SidePanel />
        </>
      )}
      <StatusBar />
      <ShortcutsDialog />
      <DropOverlay store={store} />
    </div>
  );
}
