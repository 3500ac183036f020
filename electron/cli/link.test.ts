/** `serve --link` and `open --link` (SPEC §12): the host's printed URL and the desktop app start at the place. */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseLink } from '../../shared/links/link';
import { request } from '../host/testing/httpClient';
import { LISTENING_PREFIX, parseLinkOption } from './serve';
import { openLaunches } from './testing/openLaunches';
import { startServe } from './testing/inProcessServe';

const ROOT = join(import.meta.dirname, '../..');
const DEMO = join(ROOT, 'samples/demo.sidecar.jsonl');

describe('parseLinkOption', () => {
  it('takes the fragment with or without its #, and writes it canonically', () => {
    expect(parseLinkOption('q=a%20b&call=2')).toBe('#call=2&q=a%20b');
    expect(parseLinkOption('#reduction=r4&range=100:300')).toBe('#reduction=r4&range=100:300');
    expect(parseLinkOption('#')).toBeUndefined();
    expect(parseLinkOption('#unknown=1')).toBeUndefined();
  });
});

describe('serve --link', () => {
  it('prints the URL with the place after the token; the page at it is served with the token', async () => {
    const r = await startServe(['serve', DEMO, '--link', '#range=100:300&reduction=r4']);
    const m = new RegExp(`^${LISTENING_PREFIX}(http://127\\.0\\.0\\.1:(\\d+)/\\?token=[A-Za-z0-9_-]{32})(#.*)$`).exec(r.line);
    expect(m, r.line).not.toBeNull();
    expect(m?.[3]).toBe('#reduction=r4&range=100:300');
    expect(parseLink(m?.[3] as string)).toEqual({ link: { reduction: 'r4', range: [100, 300] }, problems: [] });
    // The fragment never reaches the server: the URL without it opens the page.
    const { pathname, search } = new URL(m?.[1] as string);
    expect((await request(Number(m?.[2]), { path: `${pathname}${search}` })).status).toBe(200);
    expect(await r.stop()).toBe(0);
  });

  it.each([
    ['a call that is no number', '#call=three', /--link: The link's call must be a model call number from 1, not "three"/],
    ['a reversed range', 'reduction=r1&range=9:1', /--link: The link's range starts after it ends \(9:1\)/],
    ['a bad flag', '#q=x&regex=yes', /--link: The link's regex must be 1 or 0/],
  ])('refuses %s with usage (exit 2) before listening', async (_what, link, message) => {
    const r = await startServe(['serve', DEMO, `--link=${link}`]);
    expect(await r.exit).toBe(2);
    expect(JSON.parse(r.stdout)).toMatchObject({ error: { code: 'usage', message: expect.stringMatching(message) as string } });
    expect(r.stdout).not.toContain(LISTENING_PREFIX);
  });
});

describe('open --link', () => {
  it('passes the canonical place on to the desktop app as --link=', async () => {
    const { code, launches } = await openLaunches(['open', DEMO, '--link', 'q=tail&call=2'], ROOT);
    expect(code).toBe(0);
    expect(launches.map(([, args]) => args)).toEqual([[ROOT, '--link=#call=2&q=tail', DEMO]]);
  });

  it('falls back to serve with the place in the printed URL', async () => {
    const r = await startServe(['open', DEMO, '--link=#call=1'], { findElectron: () => ({ ok: false, noBinary: true, reason: 'none here' }) });
    expect(r.line).toMatch(/\?token=[A-Za-z0-9_-]{32}#call=1$/);
    expect(await r.stop()).toBe(0);
  });
});
