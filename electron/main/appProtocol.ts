/**
 * The app's own origin, `app://session-inspector/`, and the protocol handler that serves the built
 * renderer (dist/renderer) under it. A custom standard+secure scheme instead of `file://` gives the
 * renderer a real origin of its own: `'self'` in the CSP then means exactly the renderer's files,
 * and an IPC sender can be recognised by origin (every `file://` page shares the one opaque
 * origin, so a file:// check would also trust any local HTML file the window was tricked into
 * loading). Nothing here imports Electron at runtime, so it is tested as plain Node.
 */
import { realpath, readFile, stat } from 'node:fs/promises';
import { extname, isAbsolute, relative, resolve, sep } from 'node:path';
import type { CustomScheme } from 'electron';
import { CONTENT_SECURITY_POLICY, contentTypeOf } from '../host/renderer';

export const APP_SCHEME = 'app';
export const APP_HOST = 'session-inspector';
export const APP_ORIGIN = `${APP_SCHEME}://${APP_HOST}`;
export const APP_INDEX_URL = `${APP_ORIGIN}/index.html`;

/**
 * `standard` (relative URLs, a real origin, web storage), `secure` (a secure context),
 * `supportFetchAPI` (the renderer's module scripts are fetched). Deliberately not `corsEnabled`
 * (would let other origins read app:// responses), not `bypassCSP`, not `allowServiceWorkers`.
 */
export const APP_SCHEME_PRIVILEGED: CustomScheme = {
  scheme: APP_SCHEME,
  privileges: { standard: true, secure: true, supportFetchAPI: true },
};

/** Sent on every app:// response (and on any http(s)/file response, see `withContentSecurityPolicy`). */
export { CONTENT_SECURITY_POLICY };

/** True for a URL of the app's own origin (any path), false for anything else or garbage. */
export function isAppUrl(url: string): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  // Node's URL reports origin "null" for non-special schemes, so compare scheme and host.
  return parsed.protocol === `${APP_SCHEME}:` && parsed.host === APP_HOST && parsed.username === '' && parsed.password === '';
}


/** Headers every response of the app protocol carries, errors included. */
function baseHeaders(contentType: string): Record<string, string> {
  return {
    'content-type': contentType,
    'content-security-policy': CONTENT_SECURITY_POLICY,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'cache-control': 'no-cache',
  };
}

function errorResponse(status: number, text: string): Response {
  return new Response(text, { status, headers: baseHeaders('text/plain; charset=utf-8') });
}

/** `child` is `root` itself or lies under it (both already resolved). */
function isInside(root: string, child: string): boolean {
  const rel = relative(root, child);
  return rel !== '' && !rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel);
}

/** What `protocol.handle` passes that the handler reads. */
export interface AppRequest {
  readonly url: string;
  readonly method: string;
}

/**
 * The `protocol.handle('app', …)` handler: serves only regular files under `rootDir`, for GET and
 * HEAD of `app://session-inspector/<path>`. Refused: another host (404), `..`/`.` segments,
 * backslashes, NUL or `:` in a decoded segment (403, so `%2e%2e%2f` and `..%5c` cannot climb out on
 * any platform), anything that resolves — symbolic links included — outside `rootDir` (403).
 */
export function createAppProtocolHandler(rootDir: string): (request: AppRequest) => Promise<Response> {
  const root = resolve(rootDir);
  return async (request) => {
    if (request.method !== 'GET' && request.method !== 'HEAD') return errorResponse(405, 'method not allowed');
    let url: URL;
    try {
      url = new URL(request.url);
    } catch {
      return errorResponse(400, 'bad url');
    }
    if (url.protocol !== `${APP_SCHEME}:` || url.host !== APP_HOST) return errorResponse(404, 'not found');

    const segments: string[] = [];
    for (const raw of url.pathname.split('/')) {
      if (raw === '') continue;
      let segment: string;
      try {
        segment = decodeURIComponent(raw);
      } catch {
        return errorResponse(400, 'bad url');
      }
      if (segment === '.' || segment === '..' || /[\\/:\0]/.test(segment)) return errorResponse(403, 'forbidden');
      segments.push(segment);
    }
    if (segments.length === 0) segments.push('index.html');

    const file = resolve(root, ...segments);
    if (!isInside(root, file)) return errorResponse(403, 'forbidden');
    let realFile: string;
    let realRoot: string;
    try {
      [realFile, realRoot] = await Promise.all([realpath(file), realpath(root)]);
      if (!isInside(realRoot, realFile)) return errorResponse(403, 'forbidden');
      if (!(await stat(realFile)).isFile()) return errorResponse(404, 'not found');
    } catch {
      return errorResponse(404, 'not found');
    }
    const headers = baseHeaders(contentTypeOf(extname(realFile)));
    if (request.method === 'HEAD') return new Response(null, { status: 200, headers });
    try {
      return new Response(await readFile(realFile), { status: 200, headers });
    } catch {
      return errorResponse(404, 'not found');
    }
  };
}

/**
 * For `session.webRequest.onHeadersReceived`: the response headers with our CSP in place of any
 * the response carried, for http(s) and file responses (the window loads none, so this only
 * matters if something slips through); `undefined` (leave untouched) for every other scheme —
 * webRequest does not see app:// responses (the handler sets the CSP there), and devtools:// must
 * keep its own policy.
 */
export function withContentSecurityPolicy(url: string, headers: Record<string, string[]> | undefined): Record<string, string[]> | undefined {
  let protocol: string;
  try {
    protocol = new URL(url).protocol;
  } catch {
    return undefined;
  }
  if (protocol !== 'http:' && protocol !== 'https:' && protocol !== 'file:' && protocol !== `${APP_SCHEME}:`) return undefined;
  const next: Record<string, string[]> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (name.toLowerCase() !== 'content-security-policy') next[name] = value;
  }
  next['Content-Security-Policy'] = [CONTENT_SECURITY_POLICY];
  return next;
}
