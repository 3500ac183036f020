/**
 * The Electron main process entry (bundled to dist/main.cjs, package.json "main"): the resolver
 * worker's client and the session host over it, handed to the app's life cycle in app.ts.
 */
import { createSessionHost } from '../host/sessionHost';
import { DEFAULT_REQUEST_TIMEOUTS, createResolverClient } from '../worker/client';
import { startApp } from './app';
import { NO_FOLLOW_SWITCH } from './args';

startApp({
  // Both bounded: the client restarts a stuck worker, the host never leaves the window waiting.
  createHost: (options) =>
    createSessionHost({ ...options, client: createResolverClient({ requestTimeoutMs: DEFAULT_REQUEST_TIMEOUTS }), ...(process.argv.includes(NO_FOLLOW_SWITCH) ? { follow: false } : {}) }),
});
