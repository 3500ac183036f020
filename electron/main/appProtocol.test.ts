import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../tools/testing/files';
import { APP_INDEX_URL, APP_ORIGIN, APP_SCHEME_PRIVILEGED, CONTENT_SECURITY_POLICY, createAppProtocolHandler, isAppUrl, withContentSecurityPolicy } from './appProtocol';

describe('CONTENT_SECURITY_POLICY', () => {
  it('is the strict policy, directive by directive', () => {
    expect(CONTENT_SECURITY_POLICY).toBe(
      "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'none'",
    );
    expect(CONTENT_SECURITY_POLICY).not.toContain('unsafe-eval');
  });
});

describe('APP_SCHEME_PRIVILEGED', () => {
  it('is standard and secure, and grants nothing that loosens the origin', () => {
    expect(APP_SCHEME_PRIVILEGED).toEqual({ scheme: 'app', privileges: { standard: true, secure: true, supportFetchAPI: true } });
  });
});

describe('isAppUrl', () => {
  it.each([APP_INDEX_URL, `${APP_ORIGIN}/`, `${APP_ORIGIN}/assets/index-abc.js`, `${APP_ORIGIN}/index.html?x=1#y`])('accepts %s', (url) => {
    expect(isAppUrl(url)).toBe(true);
  });
  it.each([
    'https://session-inspector/',
    'app://evil/index.html',
    'app://session-inspector.evil/index.html',
    'app://session-inspector:8080/index.html',
    'app://user@session-inspector/index.html',
    'file:///index.html',
    'about:blank',
    '',
    'not a url',
  ])('refuses %s', (url) => {
    expect(isAppUrl(url)).toBe(false);
  });
});

describe('createAppProtocolHandler', () => {
  let dir: ReturnType<typeof tempDir>;
  let handler: ReturnType<typeof createAppProtocolHandler>;
  const get = (url: string, method = 'GET') => handler({ url, method });

  beforeEach(() => {
    dir = tempDir();
    mkdirSync(dir.path('renderer/assets'), { recursive: true });
    writeFileSync(dir.path('renderer/index.html'), '<!doctype html><title>Session Inspector</title>');
    writeFileSync(dir.path('renderer/assets/app.js'), 'console.log(1);');
    writeFileSync(dir.path('renderer/assets/app.css'), 'body{}');
    writeFileSync(dir.path('secret.txt'), 'not for the renderer');
    handler = createAppProtocolHandler(dir.path('renderer'));
  });
  afterEach(() => dir.cleanup());

  it('serves files under the root with their content type, the CSP and nosniff', async () => {
    const page = await get(APP_INDEX_URL);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY);
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await page.text()).toContain('Session Inspector');
    const script = await get(`${APP_ORIGIN}/assets/app.js`);
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(script.headers.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY);
    expect((await get(`${APP_ORIGIN}/assets/app.css`)).headers.get('content-type')).toBe('text/css; charset=utf-8');
  });

  it('serves index.html for the bare origin, and answers HEAD without a body', async () => {
    expect(await (await get(`${APP_ORIGIN}/`)).text()).toContain('Session Inspector');
    const head = await get(APP_INDEX_URL, 'HEAD');
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
  });

  it('refuses path traversal in every spelling', async () => {
    for (const path of ['..%2fsecret.txt', '..%2F..%2Fsecret.txt', 'assets/..%2f..%2fsecret.txt', '..%5csecret.txt', '%5c..%5csecret.txt', 'a%00b', 'C%3a%5csecret.txt']) {
      const response = await get(`${APP_ORIGIN}/${path}`);
      expect(response.status, path).toBe(403);
      expect(response.headers.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY);
    }
    // The URL parser removes dot segments (also %2e%2e) before the handler sees them: still inside the root.
    for (const path of ['../secret.txt', '%2e%2e/secret.txt', 'assets/../../secret.txt']) {
      const response = await get(`${APP_ORIGIN}/${path}`);
      expect(response.status, path).toBe(404);
      expect(await response.text()).not.toContain('not for the renderer');
    }
  });

  it('refuses a symbolic link that leads out of the root', async () => {
    symlinkSync(dir.path('secret.txt'), dir.path('renderer/link.txt'));
    const response = await get(`${APP_ORIGIN}/link.txt`);
    expect(response.status).toBe(403);
  });

  it('answers 404 for another host, a missing file or a folder, 405 for other methods, 400 for bad escapes', async () => {
    expect((await get('app://other/index.html')).status).toBe(404);
    expect((await get(`${APP_ORIGIN}/missing.js`)).status).toBe(404);
    expect((await get(`${APP_ORIGIN}/assets`)).status).toBe(404);
    expect((await get(APP_INDEX_URL, 'POST')).status).toBe(405);
    expect((await get(`${APP_ORIGIN}/%E0%A4%A`)).status).toBe(400);
  });
});

describe('withContentSecurityPolicy', () => {
  it('sets the CSP on http, https and file responses, dropping theirs', () => {
    for (const url of ['http://localhost/', 'https://example.com/a.js', 'file:///tmp/x.html']) {
      expect(withContentSecurityPolicy(url, { 'Content-Security-Policy-Report-Only': ['x'], 'CONTENT-SECURITY-POLICY': ['script-src *'] })).toEqual({
        'Content-Security-Policy-Report-Only': ['x'],
        'Content-Security-Policy': [CONTENT_SECURITY_POLICY],
      });
    }
    expect(withContentSecurityPolicy('https://example.com/', undefined)).toEqual({ 'Content-Security-Policy': [CONTENT_SECURITY_POLICY] });
  });

  it('leaves devtools and other schemes alone', () => {
    expect(withContentSecurityPolicy('devtools://devtools/bundled/x.html', {})).toBeUndefined();
    expect(withContentSecurityPolicy('chrome-extension://abc/x.html', {})).toBeUndefined();
    expect(withContentSecurityPolicy('garbage', {})).toBeUndefined();
  });
});
