/**
 * The Electron main process entry (bundled to dist/main.cjs, package.json "main"): the resolver
 * worker's client and the session host over it, handed to the app's life cycle in app.ts.
 */
import { createSessionHost } from '../host/sessionHost';
import { createResolverClient } from '../worker/client';
import { startApp } from './app';

startApp({
  createHost: (options) => createSessionHost({ ...options, client: createResolverClient() }),
});
