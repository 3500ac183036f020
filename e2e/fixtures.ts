/**
 * The `inspector` fixture: starts Session Inspector on the files a test names and hands the test a
 * page object over its window. One fixture, two ways in (the project's `target` option):
 *
 * - `http`: `session-inspector serve <files…> --port 0`, the URL read from its first stdout line
 *   (`Session Inspector listening on <url>`), a Chromium page on that URL; the host is stopped with
 *   SIGTERM after the test.
 * - `electron`: the desktop app through Playwright's Electron launcher, the files as its arguments,
 *   its first window. Where no Electron binary exists every test is skipped, saying why.
 *
 * Specs name their files with `test.use({ sessionFiles: [...] })` (default: the realistic sample).
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { _electron, expect, test as base } from '@playwright/test';
import type { Browser, BrowserContext, ConsoleMessage, Dialog, ElectronApplication, Frame, Page } from '@playwright/test';
import { generatedFile } from '../tools/testing/generatedCache';
import { InspectorPage } from './inspectorPage';
import { CLI, electronBinary, REPO_ROOT, SESSION_SIDECAR } from './paths';

export type Target = 'http' | 'electron';

/** How a test reached the app it drives. */
export interface InspectorApp {
  target: Target;
  /** The app's window: a Chromium page on the host URL, or Electron's first window. */
  page: Page;
  /** The HTTP host's URL (with its token); undefined in Electron. */
  url?: string;
  /** What the HTTP host wrote on stderr so far. */
  stderr: () => string;
  /** What the page did: over HTTP from before the app's URL was opened, in Electron from its first window. */
  events: PageEvents;
}

/**
 * Page events recorded from the page's creation, so a spec also sees what happened while the app
 * loaded: uncaught errors, console errors, dialogs (dismissed at once, so nothing blocks) and
 * main-frame navigations (the first is the app's own load).
 */
export interface PageEvents {
  pageErrors: string[];
  consoleErrors: string[];
  dialogs: string[];
  navigations: string[];
}

/** Records the page's events into a fresh `PageEvents` until `stop` (a reused page outlives its test). */
function recordEvents(page: Page): { events: PageEvents; stop: () => void } {
  const events: PageEvents = { pageErrors: [], consoleErrors: [], dialogs: [], navigations: [] };
  const onPageError = (error: Error): void => {
    events.pageErrors.push(`${error.name}: ${error.message}`);
  };
  const onConsole = (message: ConsoleMessage): void => {
    if (message.type() === 'error') events.consoleErrors.push(message.text());
  };
  const onDialog = (dialog: Dialog): void => {
    events.dialogs.push(`${dialog.type()}: ${dialog.message()}`);
    void dialog.dismiss().catch(() => undefined);
  };
  const onFrameNavigated = (frame: Frame): void => {
    if (frame === page.mainFrame()) events.navigations.push(frame.url());
  };
  page.on('pageerror', onPageError);
  page.on('console', onConsole);
  page.on('dialog', onDialog);
  page.on('framenavigated', onFrameNavigated);
  const stop = (): void => {
    page.off('pageerror', onPageError);
    page.off('console', onConsole);
    page.off('dialog', onDialog);
    page.off('framenavigated', onFrameNavigated);
  };
  return { events, stop };
}

export interface InspectorOptions {
  /** Which way in: the HTTP host in Chromium, or the desktop app. Set per project. */
  target: Target;
  /** The one or two files the app opens (a sidecar and/or a snapshot). */
  sessionFiles: string[];
  /** Environment the HTTP host starts with, over this process's (a temporary HOME for the session library). */
  serveEnv: Record<string, string>;
  /**
   * A script run in the page before any of the app's own (Playwright's init script): a spec that
   * must see a state the app passes through quickly records it from the start, never by racing it.
   */
  pageInitScript: string;
  /**
   * Over HTTP, drive the worker's one Chromium page instead of a new context and page per test
   * (default false). Each test still gets its own host (so its own origin: its own port, storage
   * and `si-static-<port>` cookie) and its own recorded events; the page is navigated to
   * `about:blank` after each test (closing the event stream before the host stops), and thrown
   * away after a failed one. For specs whose tests neither resize the page nor use its context
   * (downloads, permissions, history across tests): a new context and page cost about 0.7 s of CPU
   * and 1.5–2 s of wall time a test on the two-core machine (docs/testing.md).
   */
  reusePage: boolean;
  /**
   * Over HTTP, one host for every test of the worker that sets this with the same `sessionFiles` and
   * `serveEnv` (default false), driven through a page of its own that stays on the host between those
   * tests, its tab's session included. For tests that each open a file of a served folder through a
   * link (`#file=…`, docs/sessions-and-links.md), as a user goes from one session of a folder to the
   * next: a test then pays for neither a host's start, nor its resolver worker's (the tokenizer it
   * loads), nor a page load (docs/testing.md). Each test still records its own events. After a failed
   * test the host and its page are thrown away; the next test starts another. Ignored in Electron.
   */
  shareHost: boolean;
}

interface InspectorFixtures {
  inspector: InspectorPage;
  /** Details of the started app (the host URL, its stderr). */
  inspectorApp: InspectorApp;
  _electronGate: void;
}

interface WorkerFixtures {
  /**
   * A Chromium launched with the project's launchOptions on first use, shared by the worker. Not
   * the built-in `browser`/`page`: a fixture that depends on those launches Chromium even in the
   * Electron project. Traces and failure screenshots still cover its contexts.
   */
  _chromium: () => Promise<Browser>;
  /** The page `reusePage` tests drive, made on first use; `discard` closes it (the next use makes another). */
  _sharedPage: { page: () => Promise<Page>; discard: () => Promise<void> };
  /** The hosts `shareHost` tests drive, each with its page, started on first use; `discard` stops one. */
  _sharedHosts: { get: (files: readonly string[], env: Record<string, string>) => Promise<SharedHost>; discard: (host: SharedHost) => Promise<void> };
}

/** A host kept for the worker's `shareHost` tests, and the page that stays on it. */
interface SharedHost {
  /** What the worker keeps it under: its files and environment. */
  key: string;
  server: ServeProcess;
  context: BrowserContext;
  page: Page;
}

export const LISTENING_PREFIX = 'Session Inspector listening on ';

/** How long the host may take to print its address. */
const START_TIMEOUT_MS = 20_000;
/** How long a stopped host may take to exit before it is killed. */
const STOP_TIMEOUT_MS = 10_000;

interface ServeProcess {
  url: string;
  stderr: () => string;
  stop: () => Promise<void>;
}

function exited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

/**
 * Hosts started by this process and not yet exited. A test that times out while its host is still
 * starting (a large file on a loaded machine) can end its worker before the fixture's `finally`
 * runs; the host then outlived the run, loading its file on cores the rest of the suite needed.
 * The worker kills whatever is left as it exits.
 */
const liveHosts = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of liveHosts) child.kill('SIGKILL');
});

/** Starts `serve <files…> --port 0` and resolves with the URL of its first stdout line. */
export async function startServe(files: readonly string[], env: Record<string, string> = {}): Promise<ServeProcess> {
  const child = spawn(process.execPath, [CLI, 'serve', ...files, '--port', '0'], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  liveHosts.add(child);
  child.once('exit', () => liveHosts.delete(child));
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => (stderr += chunk));
  child.stdout.setEncoding('utf8');

  const stop = async (): Promise<void> => {
    if (exited(child)) return;
    const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    const killer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
    await gone;
    clearTimeout(killer);
  };

  const described = `session-inspector serve ${files.join(' ')} --port 0`;
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      const cleanUp = (): void => {
        clearTimeout(timer);
        child.stdout.off('data', onData);
        child.off('exit', onExit);
        child.off('error', onError);
      };
      const onData = (chunk: string): void => {
        out += chunk;
        const newline = out.indexOf('\n');
        if (newline < 0) return;
        cleanUp();
        const line = out.slice(0, newline).trim();
        if (line.startsWith(LISTENING_PREFIX)) resolve(line.slice(LISTENING_PREFIX.length));
        else reject(new Error(`${described}: the first stdout line is not "${LISTENING_PREFIX}<url>" but ${JSON.stringify(line)}; stderr: ${stderr.trim() || '(empty)'}`));
      };
      const onExit = (code: number | null, signal: NodeJS.Signals | null): void => {
        cleanUp();
        reject(new Error(`${described} exited (${code ?? signal}) before printing its address; stderr: ${stderr.trim() || '(empty)'}`));
      };
      const onError = (error: Error): void => {
        cleanUp();
        reject(new Error(`${described} could not start: ${error.message}`));
      };
      const timer = setTimeout(() => {
        cleanUp();
        reject(new Error(`${described} printed no address within ${START_TIMEOUT_MS} ms; stderr: ${stderr.trim() || '(empty)'}`));
      }, START_TIMEOUT_MS);
      child.stdout.on('data', onData);
      child.once('exit', onExit);
      child.once('error', onError);
    });
    // Keep reading stdout so the host never blocks on a full pipe.
    child.stdout.resume();
    return { url, stderr: () => stderr, stop };
  } catch (e) {
    await stop();
    throw e;
  }
}

const electron = electronBinary();

export const test = base.extend<InspectorFixtures & InspectorOptions, WorkerFixtures>({
  target: ['http', { option: true }],
  sessionFiles: [[SESSION_SIDECAR], { option: true }],
  serveEnv: [{}, { option: true }],
  pageInitScript: ['', { option: true }],
  reusePage: [false, { option: true }],
  shareHost: [false, { option: true }],

  _chromium: [
    async ({ playwright, launchOptions }, use) => {
      let browser: Promise<Browser> | undefined;
      await use(() => (browser ??= playwright.chromium.launch(launchOptions)));
      if (browser) await (await browser).close();
    },
    { scope: 'worker' },
  ],

  _sharedPage: [
    async ({ _chromium }, use) => {
      let context: Promise<BrowserContext> | undefined;
      let page: Promise<Page> | undefined;
      const discard = async (): Promise<void> => {
        const closing = context;
        context = undefined;
        page = undefined;
        if (closing) await (await closing).close();
      };
      await use({
        page: () => (page ??= (context ??= _chromium().then((browser) => browser.newContext())).then((c) => c.newPage())),
        discard,
      });
      await discard();
    },
    { scope: 'worker' },
  ],

  _sharedHosts: [
    async ({ _chromium }, use) => {
      const hosts = new Map<string, Promise<SharedHost>>();
      const stop = async (host: SharedHost): Promise<void> => {
        await host.context.close().catch(() => undefined);
        await host.server.stop();
      };
      const start = async (key: string, files: readonly string[], env: Record<string, string>): Promise<SharedHost> => {
        const server = await startServe(files, env);
        try {
          const context = await (await _chromium()).newContext();
          const page = await context.newPage();
          await page.goto(server.url);
          return { key, server, context, page };
        } catch (e) {
          await server.stop();
          throw e;
        }
      };
      await use({
        get: (files, env) => {
          const key = JSON.stringify([files, env]);
          let host = hosts.get(key);
          if (!host) {
            host = start(key, files, env);
            hosts.set(key, host);
            // A host that did not start is not kept: the next test tries again.
            host.catch(() => hosts.delete(key));
          }
          return host;
        },
        discard: async (host) => {
          hosts.delete(host.key);
          await stop(host);
        },
      });
      for (const host of hosts.values()) {
        const started = await host.catch(() => undefined);
        if (started) await stop(started);
      }
    },
    { scope: 'worker' },
  ],

  // Runs before any other fixture of the test, so a skipped Electron test starts nothing.
  _electronGate: [
    async ({ target }, use, testInfo) => {
      if (target === 'electron' && !electron.ok) testInfo.skip(true, electron.why);
      await use();
    },
    { auto: true },
  ],

  inspectorApp: [
    async ({ target, sessionFiles, serveEnv, pageInitScript, reusePage, shareHost, _chromium, _sharedPage, _sharedHosts }, use, testInfo) => {
      if (target === 'http' && shareHost) {
        const host = await _sharedHosts.get(sessionFiles, serveEnv);
        const recording = recordEvents(host.page);
        try {
          await use({ target, page: host.page, url: host.server.url, stderr: host.server.stderr, events: recording.events });
        } finally {
          recording.stop();
          if (testInfo.status !== testInfo.expectedStatus) {
            if (host.server.stderr()) await testInfo.attach('serve stderr', { body: host.server.stderr(), contentType: 'text/plain' });
            await _sharedHosts.discard(host);
          }
        }
        return;
      }
      if (target === 'http') {
        const server = await startServe(sessionFiles, serveEnv);
        let context: BrowserContext | undefined;
        let page: Page | undefined;
        let stopRecording = (): void => undefined;
        try {
          // A page given an init script is not shared: the script would run in every later test's page.
          if (reusePage && pageInitScript === '') {
            page = await _sharedPage.page();
          } else {
            // The context takes the project's `use` options (viewport…) like the built-in `page`.
            context = await (await _chromium()).newContext();
            if (pageInitScript !== '') await context.addInitScript({ content: pageInitScript });
            page = await context.newPage();
          }
          const recording = recordEvents(page);
          stopRecording = recording.stop;
          await page.goto(server.url);
          await use({ target, page, url: server.url, stderr: server.stderr, events: recording.events });
        } finally {
          stopRecording();
          if (context) await context.close();
          else if (reusePage) {
            // Leave the app before its host stops; a page a failed test leaves is not trusted again.
            // Its tab's session handle goes too: a later host can be given the same port (the same
            // origin, so the same sessionStorage), and the page would present it a handle it never
            // made ("This tab's session is no longer open", an alert more; docs/testing.md).
            const left =
              page !== undefined &&
              testInfo.status === testInfo.expectedStatus &&
              (await page.evaluate(() => (globalThis as unknown as { sessionStorage: { clear(): void } }).sessionStorage.clear()).then(() => true, () => false)) &&
              (await page.goto('about:blank').then(() => true, () => false));
            if (!left) await _sharedPage.discard();
          }
          await server.stop();
          if (testInfo.status !== testInfo.expectedStatus && server.stderr()) await testInfo.attach('serve stderr', { body: server.stderr(), contentType: 'text/plain' });
        }
        return;
      }
      if (!electron.ok) throw new Error(electron.why);
      // Its own settings folder: the app holds a single-instance lock per user-data folder, and
      // tests running side by side must not hand their files to each other's window.
      const config = mkdtempSync(join(tmpdir(), 'session-inspector-e2e-'));
      let app: ElectronApplication | undefined;
      // Set, it would make the binary a plain Node and the app would not start.
      const { ELECTRON_RUN_AS_NODE: _runAsNode, ...env } = process.env;
      try {
        app = await _electron.launch({
          executablePath: electron.path,
          args: [REPO_ROOT, ...sessionFiles, `--user-data-dir=${join(config, 'user-data')}`],
          cwd: REPO_ROOT,
          env: { ...env, XDG_CONFIG_HOME: config },
        });
        const page = await app.firstWindow();
        if (pageInitScript !== '') {
          // The first window loaded before the script could be added: it runs from a reload on.
          await app.context().addInitScript({ content: pageInitScript });
          await page.reload();
        }
        await use({ target, page, stderr: () => '', events: recordEvents(page).events });
      } finally {
        await app?.close();
        rmSync(config, { recursive: true, force: true });
      }
    },
    { box: true },
  ],

  inspector: async ({ inspectorApp }, use) => {
    await use(new InspectorPage(inspectorApp.page));
  },
});

export { expect };

/** How long writing a spec's generated session may take (worker-scoped, outside any test's time). */
const WRITE_TIMEOUT_MS = 5 * 60_000;

/**
 * `test` whose session is one file too large (or too particular) to commit, written by `write` as
 * `name` once for every worker and run that uses the same makers (under the OS temp folder,
 * tools/testing/generatedCache.ts): `stem` names the spec's file, unique among the specs.
 */
export function testWithWrittenFile(stem: string, name: string, write: (path: string) => void) {
  return test.extend<object, { writtenFile: string }>({
    writtenFile: [
      // Playwright reads the fixtures a fixture needs from this pattern: this one needs none.
      // eslint-disable-next-line no-empty-pattern
      async ({}, use) => {
        await use(generatedFile(`e2e-${stem}`, name, write));
      },
      // Its own time, not the first test's: making the file takes tens of seconds on a loaded machine.
      { scope: 'worker', timeout: WRITE_TIMEOUT_MS },
    ],
    sessionFiles: async ({ writtenFile }, use) => {
      await use([writtenFile]);
    },
  });
}

/** testWithWrittenFile for a native sidecar, written as `<stem>.sidecar.jsonl`. */
export function testWithWrittenSidecar(stem: string, write: (path: string) => void) {
  return testWithWrittenFile(stem, `${stem}.sidecar.jsonl`, write);
}
