/**
 * The command line with the in-process fake resolver client instead of the worker: the serve and
 * open tests spawn it to exercise a real process (signals, stdout) independently of the worker.
 */
import { createFakeResolverClient } from '../../host/testing/fakeClient';
import { main, processIo } from '../main';

void main(process.argv.slice(2), processIo, {}, { createClient: () => createFakeResolverClient() }).then((code) => {
  process.exitCode = code;
});
