/** Plain loopback HTTP for the host's tests: requests with any headers, raw request lines, event streams. */
import type { Agent, IncomingHttpHeaders } from 'node:http';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';

export interface HttpAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface RequestOptions {
  method?: string;
  path: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** A keep-alive agent to share connections (default: Node's global agent). */
  agent?: Agent;
}

/** One request to 127.0.0.1:`port`, headers exactly as given (a `Host` here replaces Node's own). */
export function request(port: number, options: RequestOptions): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        method: options.method ?? 'GET',
        path: options.path,
        headers: options.headers ?? {},
        setHost: options.headers?.Host === undefined,
        ...(options.agent ? { agent: options.agent } : {}),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    // The server may answer (413) and close before an oversized body is all sent: a write error
    // then counts only when no answer arrives.
    let failure: Error | undefined;
    req.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code === 'EPIPE' || e.code === 'ECONNRESET') failure = e;
      else reject(e);
    });
    req.on('close', () => {
      if (failure) reject(failure);
    });
    req.end(options.body);
  });
}

/**
 * Sends `head` (request line and headers, CRLF-separated, without the blank line) byte for byte
 * over a socket, so the request target reaches the server exactly as written (`/../x`, `%2e%2e`).
 * Resolves to the status code and the whole answer.
 */
export function rawRequest(port: number, head: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    // Written, not ended: a half-closed socket makes Node's server drop a request still being answered.
    const socket = connect(port, '127.0.0.1', () => socket.write(`${head}\r\nConnection: close\r\n\r\n`));
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0), text });
    });
  });
}

export interface EventStream {
  status: number;
  headers: IncomingHttpHeaders;
  /** Resolves with the next `data:` payload parsed as JSON (comments are skipped, but counted). */
  next(): Promise<unknown>;
  /** Resolves once `n` comment lines (`: …`) have arrived in all. */
  comments(n: number): Promise<string[]>;
  close(): void;
}

/** Opens a Server-Sent Events stream; resolves once the first comment (`: connected`) arrived. */
export function openEventStream(port: number, path: string, headers: Record<string, string> = {}): Promise<EventStream> {
  return new Promise((resolve, reject) => {
    const data: unknown[] = [];
    const comments: string[] = [];
    const waiters: (() => void)[] = [];
    let buffer = '';
    const wake = (): void => {
      for (const w of waiters.splice(0)) w();
    };
    const req = httpRequest({ host: '127.0.0.1', port, path, headers }, (res) => {
      res.setEncoding('utf8');
      const stream: EventStream = {
        status: res.statusCode ?? 0,
        headers: res.headers,
        next: () =>
          new Promise((resolveNext) => {
            const check = (): void => {
              if (data.length > 0) resolveNext(data.shift());
              else waiters.push(check);
            };
            check();
          }),
        comments: (n) =>
          new Promise((resolveComments) => {
            const check = (): void => {
              if (comments.length >= n) resolveComments(comments.slice(0, n));
              else waiters.push(check);
            };
            check();
          }),
        close: () => req.destroy(),
      };
      if (res.statusCode !== 200) {
        res.resume();
        resolve(stream);
        return;
      }
      let resolved = false;
      res.on('data', (chunk: string) => {
        buffer += chunk;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) !== -1) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) comments.push(line.slice(1).trim());
            else if (line.startsWith('data: ')) data.push(JSON.parse(line.slice(6)) as unknown);
          }
        }
        if (!resolved && comments.length > 0) {
          resolved = true;
          resolve(stream);
        }
        wake();
      });
    });
    req.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code !== 'ECONNRESET') reject(e);
    });
    req.end();
  });
}
