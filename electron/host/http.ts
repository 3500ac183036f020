/**
 * The HTTP host: the contract over loopback HTTP for a browser (and Playwright), a thin adapter that
 * feeds untrusted requests to `SessionHost.handle` and streams its events.
 *
 * Security, in the order each request meets it:
 *  1. `Host` must name this server on a loopback name (or the bind address): a DNS-rebinding page
 *     that reaches us under its own name is refused with 421.
 *  2. Every request carries the per-run token — `?token=` (the page, the event stream), the
 *     `X-Session-Inspector-Token` header (API calls; `?token=` also works) — or, for the renderer's
 *     own static files only (`./assets/*` load by relative URL, without the query or a header), the
 *     HttpOnly, SameSite=Strict cookie set when the page was opened with the token. The cookie does
 *     NOT carry the token: browsers do not separate cookies by port, so every other server on
 *     127.0.0.1 the browser visits receives it. It carries a second random secret, drawn
 *     independently of the token (so knowing it tells nothing of the token), that opens static
 *     files and nothing else: never the API or the event stream, in any position. Secrets are
 *     compared in constant time.
 *  3. A POST with an `Origin` must come from this host's own origin.
 *  4. A request that carries a session handle (SESSION_HEADER, `?session=` on the event stream) is
 *     answered by that tab's session only (./sessionPool.ts); one the host does not hold answers
 *     `session_closed`. A request without one is the host's one session, as before handles existed.
 *  5. The host never reads a path taken from a request: the API opens files by the ids the
 *     SessionHost offers, and static files are resolved inside `rendererDir` (real paths checked, so
 *     neither `..` nor a symbolic link leads out).
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { realpath, stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { API_ROOT, EVENTS_PATH, HANDLE_PATH, SESSION_HEADER, SESSION_PARAM, TOKEN_HEADER, TOKEN_PARAM, UPLOAD_PATH } from '../../shared/contract';
import type { HostEvent } from '../../shared/index';
import type { SessionHost } from './types';
import type { SessionPool } from './sessionPool';
import { CONTENT_SECURITY_POLICY, contentTypeOf } from './renderer';
import { DEFAULT_MAX_UPLOAD_BYTES, receiveUpload } from './upload';

/** Largest API request body accepted. */
export const MAX_BODY_BYTES = 1024 * 1024;
/** Server-Sent Events comment interval, so proxies and the browser keep the stream open. */
export const HEARTBEAT_MS = 15_000;
/**
 * Slow-loris bounds. A client must send its whole request head within `headersMs` and its whole
 * request (a body is at most MAX_BODY_BYTES, on loopback) within `requestMs`, or it gets 408 and
 * is disconnected; Node checks every `checkIntervalMs` (its default, 30 s, would let a stalled
 * request hold its connection for up to that long past the bound). An event stream is not
 * affected: its request is complete once its head arrived.
 */
export const TIMEOUTS: Readonly<HttpTimeouts> = Object.freeze({ headersMs: 10_000, requestMs: 30_000, checkIntervalMs: 1_000 });

export interface HttpTimeouts {
  headersMs: number;
  requestMs: number;
  checkIntervalMs: number;
}
/**
 * Largest request head (request line and headers) accepted; larger gets 431. Node's default, set
 * explicitly so `--max-http-header-size` / NODE_OPTIONS cannot raise it.
 */
export const MAX_HEADER_BYTES = 16 * 1024;

export { CONTENT_SECURITY_POLICY };

export interface HttpHostOptions {
  /** The host's one session: what a request without a session handle means. */
  host: SessionHost;
  /**
   * One session per tab (SPEC §14): `POST /api/handle` draws a handle, and a request or event
   * stream carrying one is answered by its session. Without a pool, every request is `host`'s.
   */
  sessions?: SessionPool;
  /** Address to listen on (default 127.0.0.1). */
  bind?: string;
  /** Port to listen on; 0 (the default) picks a free one. */
  port?: number;
  /** The built renderer (default `dist/renderer` under the current directory). */
  rendererDir?: string;
  /** Heartbeat interval of the event stream (tests shorten it). */
  heartbeatMs?: number;
  /** The slow-loris bounds (default TIMEOUTS; tests shorten them). */
  timeouts?: Partial<HttpTimeouts>;
  /** The largest upload accepted (`POST /api/upload`; default DEFAULT_MAX_UPLOAD_BYTES). */
  maxUploadBytes?: number;
  /** Where uploads' private folders are made (default: the system temporary folder). */
  uploadTmpRoot?: string;
}

export interface HttpHost {
  /** `http://<loopback>:<port>/?token=<token>`: the page, with its access token. */
  url: string;
  token: string;
  port: number;
  /** Event streams open right now (a leak check for tests: it returns to 0 when clients go). */
  eventStreamCount(): number;
  close(): Promise<void>;
}


const LOOPBACK_NAMES = ['127.0.0.1', 'localhost', '[::1]'];

/** A host name as it appears in a URL or a `Host` header (IPv6 in brackets). */
function urlHostName(address: string): string {
  return address.includes(':') && !address.startsWith('[') ? `[${address}]` : address;
}

/** The name the printed URL uses: the bind address, unless it is a wildcard. */
function publicHostName(bind: string): string {
  if (bind === '0.0.0.0' || bind === '::' || bind === '') return '127.0.0.1';
  return urlHostName(bind);
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

function securityHeaders(res: ServerResponse): void {
  res.setHeader('Content-Security-Policy', CONTENT_SECURITY_POLICY);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('Cross-Origin-Opener-Policy', 'same-origin');
  res.setHeader('Cross-Origin-Resource-Policy', 'same-origin');
}

function sendText(res: ServerResponse, status: number, text: string, extra: Record<string, string> = {}): void {
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store', ...extra });
  res.end(`${text}\n`);
}

function sendJson(res: ServerResponse, status: number, value: unknown, extra: Record<string, string> = {}): void {
  const body = JSON.stringify(value);
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store', 'Content-Length': Buffer.byteLength(body), ...extra });
  res.end(body);
}

/**
 * What a request refused for its token is told (SPEC §12: a link with a wrong or expired token
 * says how to get a fresh one). Status 403 as ever, so scripts still see the refusal; the text
 * never repeats the token presented (nor any other secret), and is plain text, not a page.
 */
export function tokenRefusal(presented: boolean): string {
  const why = presented
    ? "Forbidden: this address's access token is not this host's: mistyped, or from an earlier run (each start draws a new token)."
    : 'Forbidden: this address carries no access token.';
  return `${why} The Session Inspector host prints its address, with a fresh token, when it starts: the line "Session Inspector listening on http://…/?token=…". Open that address; if the host has stopped, start it again (session-inspector serve FILE) and use the new one. A link to a place in a session keeps its part after #: add that to the new address.`;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** What `/` answers when the renderer is not built: honest, static, no session content. */
function notBuiltPage(apiBase: string): string {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Session Inspector</title></head>
<body>
<main>
<h1>Session Inspector</h1>
<p>The Session Inspector renderer is not built. Run <code>npm run build</code>.</p>
<p>The HTTP API is served at <code>${escapeHtml(apiBase)}</code>: <code>POST ${escapeHtml(apiBase)}&lt;method&gt;</code> with a JSON body and the
<code>${TOKEN_HEADER}</code> header, and <code>GET ${escapeHtml(EVENTS_PATH)}?${TOKEN_PARAM}=…</code> for events.</p>
</main>
</body>
</html>
`;
}

/** What a request naming a session the host no longer holds is told. */
export const CLOSED_SESSION = "This tab's session is no longer open on the host (it was closed after a while unused, or to make room for another tab's, or the host was restarted). The page starts again from its link.";

class BodyTooLarge extends Error {}

function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolveBody, reject) => {
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > limit) {
      reject(new BodyTooLarge());
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    req.on('data', (chunk: Buffer) => {
      if (done) return;
      size += chunk.length;
      if (size > limit) {
        done = true;
        reject(new BodyTooLarge());
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (done) return;
      done = true;
      resolveBody(Buffer.concat(chunks));
    });
    req.on('error', (e) => {
      if (done) return;
      done = true;
      reject(e);
    });
  });
}

/** Starts the HTTP host on loopback; resolves once it listens. */
export async function startHttpHost(options: HttpHostOptions): Promise<HttpHost> {
  const { host } = options;
  const bind = options.bind ?? '127.0.0.1';
  const rendererDir = resolve(options.rendererDir ?? join('dist', 'renderer'));
  const heartbeatMs = options.heartbeatMs ?? HEARTBEAT_MS;
  const token = randomBytes(24).toString('base64url');
  const tokenDigest = digest(token);
  // The cookie's secret (see the header comment): its own random bytes, not derived from the token.
  // Invariant: it neither equals nor contains the token (same length, so distinct suffices).
  let staticSecret: string;
  do staticSecret = randomBytes(24).toString('base64url');
  while (staticSecret === token);
  const staticSecretDigest = digest(staticSecret);
  const streams = new Set<ServerResponse>();
  let port = 0;
  let allowedHosts = new Set<string>();
  let cookieName = 'si-static';

  const tokenMatches = (candidate: string | undefined): boolean => candidate !== undefined && timingSafeEqual(digest(candidate), tokenDigest);
  const staticSecretMatches = (candidate: string | undefined): boolean => candidate !== undefined && timingSafeEqual(digest(candidate), staticSecretDigest);

  const cookieValue = (req: IncomingMessage): string | undefined => {
    for (const part of (req.headers.cookie ?? '').split(';')) {
      const eq = part.indexOf('=');
      if (eq !== -1 && part.slice(0, eq).trim() === cookieName) return part.slice(eq + 1).trim();
    }
    return undefined;
  };

  async function serveStatic(req: IncomingMessage, res: ServerResponse, pathname: string, viaQuery: boolean): Promise<void> {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      sendText(res, 405, 'Method Not Allowed', { Allow: 'GET, HEAD' });
      return;
    }
    let decoded: string;
    try {
      decoded = decodeURIComponent(pathname);
    } catch {
      sendText(res, 400, 'Bad Request');
      return;
    }
    const notFound = (): void => sendText(res, 404, 'Not Found');
    if (decoded.includes('\0') || decoded.includes('\\') || decoded.split('/').some((seg) => seg === '..')) {
      notFound();
      return;
    }
    const relativePath = decoded === '/' ? 'index.html' : decoded.replace(/^\/+/, '');
    const candidate = resolve(rendererDir, relativePath);
    const inside = (root: string, p: string): boolean => {
      const rel = relative(root, p);
      return rel !== '' && rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
    };
    if (!inside(rendererDir, candidate)) {
      notFound();
      return;
    }
    let real: string;
    let size: number;
    try {
      // The real path too: a symbolic link inside rendererDir must not lead out of it.
      const [realRoot, realFile] = await Promise.all([realpath(rendererDir), realpath(candidate)]);
      if (!inside(realRoot, realFile)) {
        notFound();
        return;
      }
      const s = await stat(realFile);
      if (!s.isFile()) {
        notFound();
        return;
      }
      real = realFile;
      size = s.size;
    } catch {
      if (decoded === '/') {
        // No renderer build yet: say so rather than pretend.
        const body = notBuiltPage(`${API_ROOT}/`);
        res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store', 'Content-Length': Buffer.byteLength(body), ...cookieHeader(viaQuery) });
        res.end(req.method === 'HEAD' ? undefined : body);
        return;
      }
      notFound();
      return;
    }
    const type = contentTypeOf(extname(real));
    res.writeHead(200, {
      'Content-Type': type,
      'Content-Length': size,
      'Cache-Control': type.startsWith('text/html') ? 'no-store' : 'no-cache',
      ...(type.startsWith('text/html') ? cookieHeader(viaQuery) : {}),
    });
    if (req.method === 'HEAD') {
      res.end();
      return;
    }
    const stream = createReadStream(real);
    stream.on('error', () => res.destroy());
    stream.pipe(res);
  }

  /** The page opened with `?token=` hands its static files the static-only secret as a cookie (never the token: see the header comment). */
  function cookieHeader(viaQuery: boolean): Record<string, string> {
    return viaQuery ? { 'Set-Cookie': `${cookieName}=${staticSecret}; Path=/; HttpOnly; SameSite=Strict` } : {};
  }

  async function serveApi(req: IncomingMessage, res: ServerResponse, method: string): Promise<void> {
    if (req.method !== 'POST') {
      sendText(res, 405, 'Method Not Allowed', { Allow: 'POST' });
      return;
    }
    const type = (req.headers['content-type'] ?? 'application/json').split(';')[0]?.trim().toLowerCase();
    if (type !== 'application/json') {
      sendJson(res, 415, { ok: false, error: { code: 'invalid_request', message: 'the body must be application/json' } });
      return;
    }
    let body: Buffer;
    try {
      body = await readBody(req, MAX_BODY_BYTES);
    } catch (e) {
      if (e instanceof BodyTooLarge) {
        // `Connection: close`: the rest of an oversized upload is not read.
        sendJson(res, 413, { ok: false, error: { code: 'invalid_request', message: `the request body is larger than ${MAX_BODY_BYTES} bytes` } }, { Connection: 'close' });
        return;
      }
      res.destroy();
      return;
    }
    let params: unknown = {};
    if (body.length > 0) {
      try {
        params = JSON.parse(body.toString('utf8')) as unknown;
      } catch {
        sendJson(res, 400, { ok: false, error: { code: 'invalid_request', message: 'the request body is not valid JSON' } });
        return;
      }
    }
    const session = sessionOf(req.headers[SESSION_HEADER]);
    if ('closed' in session) {
      sendJson(res, 200, session.closed);
      return;
    }
    try {
      // `handle` validates the method name and the params, and never throws.
      sendJson(res, 200, await session.host.handle(method, params));
    } finally {
      session.release();
    }
  }

  /**
   * The session a request names by its handle, held until `release` (so it is not closed while it
   * answers); the host's one session when it names none; a `session_closed` reply when the handle
   * names no open session.
   */
  function sessionOf(raw: string | string[] | undefined): { host: SessionHost; release(): void } | { closed: { ok: false; error: { code: 'session_closed'; message: string } } } {
    if (raw === undefined || !options.sessions) return { host, release: () => undefined };
    const held = typeof raw === 'string' ? options.sessions.acquire(raw) : undefined;
    if (held) return held;
    return { closed: { ok: false, error: { code: 'session_closed', message: CLOSED_SESSION } } };
  }

  /** `POST /api/handle`: a session of its own for a new tab. */
  function serveHandle(req: IncomingMessage, res: ServerResponse): void {
    if (req.method !== 'POST') return sendText(res, 405, 'Method Not Allowed', { Allow: 'POST' });
    // The body is not read: nothing in it is used.
    req.resume();
    if (!options.sessions) return sendJson(res, 404, { ok: false, error: { code: 'not_supported', message: 'this host keeps one session: send requests without a session handle' } });
    sendJson(res, 200, { ok: true, value: { handle: options.sessions.mint() } });
  }

  /**
   * `POST /api/upload`, a file's bytes as `application/octet-stream` with its length
   * declared: kept in a private temporary file (./upload.ts) and opened as the session; the reply
   * is `openFile`'s. Access (token, Host, Origin) was checked before, as for every API call.
   */
  async function serveUpload(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const refuse = (status: number, message: string): void =>
      sendJson(res, status, { ok: false, error: { code: 'invalid_request', message } }, { Connection: 'close' });
    if (req.method !== 'POST') return sendText(res, 405, 'Method Not Allowed', { Allow: 'POST' });
    const type = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
    if (type !== 'application/octet-stream') return refuse(415, 'an upload must be application/octet-stream');
    const session = sessionOf(req.headers[SESSION_HEADER]);
    if ('closed' in session) return sendJson(res, 200, session.closed, { Connection: 'close' });
    try {
      const target = session.host;
      if (!target.openUploaded) return refuse(404, 'this host takes no uploads');
      // Numbered as it arrives: a later upload that finishes arriving first still wins.
      const order = target.beginUpload?.();
      const received = await receiveUpload(req, { maxBytes: options.maxUploadBytes ?? DEFAULT_MAX_UPLOAD_BYTES, ...(options.uploadTmpRoot !== undefined ? { tmpRoot: options.uploadTmpRoot } : {}) });
      if (!received.ok) {
        if (!res.destroyed) refuse(received.status, received.message);
        return;
      }
      sendJson(res, 200, await target.openUploaded(received.file, order));
    } finally {
      session.release();
    }
  }

  function serveEvents(req: IncomingMessage, res: ServerResponse, handle: string | undefined): void {
    if (req.method !== 'GET') {
      sendText(res, 405, 'Method Not Allowed', { Allow: 'GET' });
      return;
    }
    res.writeHead(200, { 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-store', Connection: 'keep-alive', 'X-Accel-Buffering': 'no' });
    // The first comment tells the client the subscription is live: events from here on reach it.
    res.write(': connected\n\n');
    // A stream ends (its tab went, the host stops, its session closed) before every listener is
    // gone: what comes after is dropped, never written after the end (an unheard error would end the process).
    const write = (text: string): void => {
      if (!res.writableEnded && !res.destroyed) res.write(text);
    };
    const send = (event: HostEvent): void => write(`data: ${JSON.stringify({ name: event.name, payload: event.payload })}\n\n`);
    const session = sessionOf(handle);
    if ('closed' in session) {
      // The tab learns its session is gone (and starts again from its link), rather than reconnecting for ever.
      send({ name: 'handleClosed', payload: { reason: CLOSED_SESSION } });
      res.end();
      return;
    }
    streams.add(res);
    const unsubscribe = session.host.onEvent(send);
    const unwatch = handle !== undefined && options.sessions ? options.sessions.onClosed(handle, (reason) => {
      send({ name: 'handleClosed', payload: { reason } });
      res.end();
    }) : () => undefined;
    // What happened before this stream connected (an open that finished or failed between the
    // page's `state` request and now) would otherwise be missed: replay where the host stands.
    for (const event of session.host.current()) send(event);
    const heartbeat = setInterval(() => write(': heartbeat\n\n'), heartbeatMs);
    heartbeat.unref();
    let cleaned = false;
    const cleanUp = (): void => {
      if (cleaned) return;
      cleaned = true;
      clearInterval(heartbeat);
      unsubscribe();
      unwatch();
      session.release();
      streams.delete(res);
    };
    req.on('close', cleanUp);
    res.on('close', cleanUp);
    // A socket error ends this stream only.
    res.on('error', cleanUp);
  }

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    securityHeaders(res);
    const target = req.url ?? '';
    if (!target.startsWith('/')) {
      sendText(res, 400, 'Bad Request');
      return;
    }
    const hostHeader = (req.headers.host ?? '').toLowerCase();
    if (!allowedHosts.has(hostHeader)) {
      sendText(res, 421, 'Misdirected Request: this host answers only to its loopback address');
      return;
    }
    const q = target.indexOf('?');
    const pathname = q === -1 ? target : target.slice(0, q);
    const query = new URLSearchParams(q === -1 ? '' : target.slice(q + 1));
    const queryToken = query.get(TOKEN_PARAM) ?? undefined;
    const headerToken = req.headers[TOKEN_HEADER];
    const isApi = pathname === API_ROOT || pathname.startsWith(`${API_ROOT}/`);
    const viaQuery = tokenMatches(queryToken);
    // The token opens everything; the cookie's secret opens static files only.
    const authorized =
      viaQuery || (isApi && typeof headerToken === 'string' && tokenMatches(headerToken)) || (!isApi && staticSecretMatches(cookieValue(req)));
    if (!authorized) {
      const presented = (queryToken !== undefined && queryToken !== '') || (typeof headerToken === 'string' && headerToken !== '') || (!isApi && cookieValue(req) !== undefined);
      sendText(res, 403, tokenRefusal(presented));
      return;
    }
    if (req.method === 'POST' && req.headers.origin !== undefined && req.headers.origin.toLowerCase() !== `http://${hostHeader}`) {
      sendText(res, 403, 'Forbidden: cross-origin request');
      return;
    }
    if (pathname === EVENTS_PATH) {
      serveEvents(req, res, query.get(SESSION_PARAM) ?? undefined);
      return;
    }
    if (pathname === HANDLE_PATH) {
      serveHandle(req, res);
      return;
    }
    if (pathname === UPLOAD_PATH) {
      await serveUpload(req, res);
      return;
    }
    if (isApi) {
      const method = pathname.slice(API_ROOT.length + 1);
      if (!/^[A-Za-z]{1,64}$/.test(method)) {
        sendJson(res, 404, { ok: false, error: { code: 'invalid_request', message: 'unknown API path' } });
        return;
      }
      await serveApi(req, res, method);
      return;
    }
    await serveStatic(req, res, pathname, viaQuery);
  }

  const timeouts = { ...TIMEOUTS, ...options.timeouts };
  const server = createServer(
    {
      maxHeaderSize: MAX_HEADER_BYTES,
      headersTimeout: timeouts.headersMs,
      requestTimeout: timeouts.requestMs,
      connectionsCheckingInterval: timeouts.checkIntervalMs,
    },
    (req, res) => {
      route(req, res).catch(() => {
        if (!res.headersSent) sendText(res, 500, 'Internal Server Error');
        else res.destroy();
      });
    },
  );

  await new Promise<void>((resolveListen, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, bind, () => {
      server.off('error', reject);
      resolveListen();
    });
  });
  port = (server.address() as AddressInfo).port;
  allowedHosts = new Set([...LOOPBACK_NAMES, urlHostName(bind).toLowerCase()].map((name) => `${name}:${port}`));
  // One name per port, so two hosts on one machine do not overwrite each other's cookie.
  cookieName = `si-static-${port}`;
  const url = `http://${publicHostName(bind)}:${port}/?${TOKEN_PARAM}=${token}`;

  let closing: Promise<void> | undefined;
  return {
    url,
    token,
    port,
    eventStreamCount: () => streams.size,
    close() {
      closing ??= new Promise<void>((resolveClose) => {
        for (const res of streams) res.end();
        streams.clear();
        server.close(() => resolveClose());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
