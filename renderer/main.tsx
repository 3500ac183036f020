/** The renderer's entry: one store over the host bridge, rendered into #root. */
// First: zod must be jitless before any schema parses (the page's CSP, see zodJitless.ts).
import './zodJitless';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app';
import { createBridge, openDroppedFile, takeClosedNotice } from './bridge';
import { createAppStore } from './store/store';
import { StoreProvider } from './store/storeContext';

const store = createAppStore(createBridge(), { openDropped: openDroppedFile });
// This tab's session was closed by the host (unused, or to make room) and the page started again from its link.
const closedNotice = takeClosedNotice();
if (closedNotice !== null) store.getState().pushAlert(closedNotice, 'The page started again from its link: the file it names is opened again, at its place.');
// The first paint already follows the system theme.
store.getState().setSystemDark(window.matchMedia('(prefers-color-scheme: dark)').matches);
document.documentElement.dataset.theme = store.getState().systemDark ? 'dark' : 'light';

const root = document.getElementById('root');
if (!root) throw new Error('renderer/index.html has no #root element');
createRoot(root).render(
  <StrictMode>
    <StoreProvider store={store}>
      <App />
    </StoreProvider>
  </StrictMode>,
);
