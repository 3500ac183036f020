/** The contract over a running HTTP host, as the page calls it: `POST /api/<method>` with the token header. */
import { expect } from 'vitest';
import { TOKEN_HEADER, apiPath } from '../../../shared/contract';
import type { Method, Reply } from '../../../shared/index';
import type { HttpHostOptions } from '../http';
import { startHttpHost } from '../http';
import { createSessionHost } from '../sessionHost';
import type { ResolverClient, SessionHostOptions } from '../types';
import { request } from './httpClient';

/** A function that calls `method` with `params` and returns the reply of its 200 answer. */
export function apiClient(port: number, token: string) {
  return async <M extends Method>(method: M, params: unknown = {}): Promise<Reply<M>> => {
    const answer = await request(port, {
      method: 'POST',
      path: apiPath(method),
      headers: { 'Content-Type': 'application/json', [TOKEN_HEADER]: token },
      body: JSON.stringify(params),
    });
    expect(answer.status).toBe(200);
    return JSON.parse(answer.body) as Reply<M>;
  };
}

/**
 * The HTTP host over a SessionHost over `client`, as `serve` builds them, on a free port; `stop`
 * closes all three (the caller runs it after the test). `api` calls the contract over HTTP.
 */
export async function startTestHost(client: ResolverClient, hostOptions: Omit<SessionHostOptions, 'host' | 'client'>, httpOptions: Omit<HttpHostOptions, 'host' | 'port'>) {
  const host = createSessionHost({ host: 'http', client, ...hostOptions });
  const http = await startHttpHost({ host, port: 0, ...httpOptions });
  const port = Number(new URL(http.url).port);
  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> =>
    (stopping ??= (async () => {
      await http.close();
      await host.dispose();
      await client.dispose();
    })());
  return { host, http, port, api: apiClient(port, http.token), stop };
}
