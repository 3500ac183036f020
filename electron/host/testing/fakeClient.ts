/**
 * A ResolverClient for the host's tests that answers in-process from the worker's own
 * `SessionService`, so the SessionHost and the HTTP host are tested without a worker thread but
 * with exactly the worker's answers, through the worker's own handler table. It makes no attempt at
 * cancellation: a search runs in slices, as in the worker, to its end.
 */
import type { HostEvent, ParsedParams, Reply, WorkerSessionMethod } from '../../../shared/index';
import type { LoadOptions } from '../../loader/session';
import { SessionService } from '../../worker/service';
import type { ResolverClient } from '../types';

export interface FakeResolverClient extends ResolverClient {
  /** Every `open` and `request` call, in order (method name, or `open:<paths>`). */
  readonly calls: string[];
  /** Pushes an event as if the worker had sent it (e.g. `workerRestarted`). */
  emit(event: HostEvent): void;
  /** True once `dispose` ran. */
  readonly disposed: boolean;
}

export interface FakeResolverClientOptions {
  loadOptions?: Omit<LoadOptions, 'onProgress'>;
  /** Awaited at the start of every `open`: tests hold an open in flight with it. */
  beforeOpen?(paths: string[], generation: number): Promise<void>;
}

export function createFakeResolverClient(options: FakeResolverClientOptions = {}): FakeResolverClient {
  const listeners = new Set<(event: HostEvent) => void>();
  const calls: string[] = [];
  // A changed file and a followed session's updates reach the host as the worker's would.
  const service = new SessionService(options.loadOptions, (payload) => emit({ name: 'fileChanged', payload }), { onUpdated: (payload) => emit({ name: 'sessionUpdated', payload }) });
  let disposed = false;
  const emit = (event: HostEvent): void => {
    for (const l of [...listeners]) l(event);
  };

  return {
    calls,
    emit,
    get disposed() {
      return disposed;
    },
    async open(paths, generation, source = {}) {
      calls.push(`open:${paths.join(',')}`);
      service.close();
      await options.beforeOpen?.(paths, generation);
      return service.open(
        { paths, generation, ...source },
        (payload) => emit({ name: 'loadProgress', payload }),
        (payload) => emit({ name: 'sessionPreview', payload }),
      );
    },
    close() {
      calls.push('close');
      service.close();
      return Promise.resolve();
    },
    async request<M extends WorkerSessionMethod>(method: M, params: ParsedParams<M>): Promise<Reply<M>> {
      calls.push(method);
      // Now for most methods, later for a search or a bundle: the host awaits either.
      const reply: Reply<M> | Promise<Reply<M>> = service.handle(method, params);
      return reply;
    },
    cancelSearch() {
      return false;
    },
    cancelBundle() {
      return false;
    },
    onEvent(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    dispose() {
      disposed = true;
      service.close();
      listeners.clear();
      return Promise.resolve();
    },
  };
}
