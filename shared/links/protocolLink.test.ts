/** The desktop app's protocol link: built by Copy link, read by the shell from an untrusted source. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Link } from './link';
import { isNetworkOrDevicePath, parseProtocolUrl, protocolUrl } from './protocolLink';
import { BIDI_LINKS, UNC_LINKS } from '../testing/hostileLinks';
import { RAW_INVISIBLE } from '../testing/invisible';
import { wellFormed } from '../format/utf8';

describe('parseProtocolUrl', () => {
  it('reads the files and the place of a link it built (fast-check)', () => {
    const path = fc
      .oneof(
        fc.string({ unit: 'grapheme' }).map((s) => `/${s.replace(/\0/g, '')}`),
        fc.string({ unit: 'grapheme' }).map((s) => `C:\\${s.replace(/\0/g, '')}`),
      )
      .filter((p) => !isNetworkOrDevicePath(p));
    fc.assert(
      fc.property(fc.array(path, { minLength: 1, maxLength: 2 }), fc.option(fc.integer({ min: 1, max: 99 }), { nil: undefined }), fc.option(fc.string({ minLength: 1, unit: 'grapheme' }), { nil: undefined }), (files, call, reduction) => {
        const link: Link = { ...(call !== undefined ? { call } : {}), ...(reduction !== undefined ? { reduction } : {}) };
        expect(parseProtocolUrl(protocolUrl(files, link))).toEqual({ ok: true, files, link, problems: [] });
      }),
    );
  });

  it('takes //open, //open/ and any case of the scheme', () => {
    for (const url of ['session-inspector://open?file=%2Ftmp%2Fa.jsonl#call=2', 'Session-Inspector://open/?file=/tmp/a.jsonl#call=2', 'session-inspector:open?file=/tmp/a.jsonl&x=1#call=2']) {
      expect(parseProtocolUrl(url)).toEqual({ ok: true, files: ['/tmp/a.jsonl'], link: { call: 2 }, problems: [] });
    }
  });

  it('passes the fragment parser’s problems on', () => {
    const opened = parseProtocolUrl('session-inspector://open?file=/a#call=zero');
    expect(opened.ok && opened.problems).toEqual(['The link\'s call must be a model call number from 1, not "zero"; the latest view is shown.']);
  });

  it.each<readonly [string, string, RegExp]>([
    ['another scheme', 'file:///etc/passwd', /does not start with session-inspector/],
    ['an http URL', 'https://example.com/?file=/a', /does not start with session-inspector/],
    ['another action', 'session-inspector://run?file=/a', /the only action is open/],
    ['no file', 'session-inspector://open#call=1', /names no file/],
    ['a relative path', 'session-inspector://open?file=a.jsonl', /not an absolute path/],
    ['a parent-relative path', 'session-inspector://open?file=..%2Fa.jsonl', /not an absolute path/],
    ['a path of another scheme', 'session-inspector://open?file=file%3A%2F%2F%2Fetc%2Fpasswd', /not an absolute path/],
    ['a URL as the path', 'session-inspector://open?file=https%3A%2F%2Fexample.com%2Fa', /not an absolute path/],
    ['a NUL in the path', 'session-inspector://open?file=%2Fa%00b', /not an absolute path/],
    ['bad percent-encoding', 'session-inspector://open?file=%2Fa%E0%A4', /not valid percent-encoding/],
    ['three files', 'session-inspector://open?file=/a&file=/b&file=/c', /at most 2/],
    ['a huge URL', `session-inspector://open?file=/${'a'.repeat(70_000)}`, /longer than/],
    // Network shares and devices (Windows would connect to the host over SMB), however spelled.
    ...UNC_LINKS.map(([what, url]) => [what, url, /is on a network share or a device; a link opens only a file on this computer's own drives\.$/] as const),
  ])('refuses %s with a sentence', (_what, url, message) => {
    const opened = parseProtocolUrl(url);
    expect(opened.ok).toBe(false);
    if (!opened.ok) expect(opened.message).toMatch(message);
    if (!opened.ok) expect(opened.message).toMatch(/^This Session Inspector link cannot be opened: /);
  });

  it('quotes what it refuses visibly: no refusal holds a raw control, bidi or zero-width character (fast-check)', () => {
    const text = fc.oneof(fc.string({ unit: 'binary' }), fc.string({ unit: fc.constantFrom('a', '/', '\\', '\u202e', '\u2066', '\u200b', '\u2028', '\u001b', '\u009b', '\n', '\ud800', '%E2%80%AE', '%1B') }));
    fc.assert(
      fc.property(text, (s) => {
        const urls = [`session-inspector://${s.replace(/[?#]/g, '')}?file=/a`, `session-inspector://open?file=${encodeURIComponent(wellFormed(`x${s}`))}`, `session-inspector://open?file=${s.replace(/[&#]/g, '')}`, `session-inspector://open?file=%5C%5C${encodeURIComponent(wellFormed(s))}`];
        for (const url of urls) {
          const opened = parseProtocolUrl(url);
          if (!opened.ok) expect(opened.message).not.toMatch(RAW_INVISIBLE);
        }
        expect(parseProtocolUrl(urls[1] as string).ok).toBe(false);
      }),
      { numRuns: 1000 },
    );
    const opened = parseProtocolUrl('session-inspector://open?file=invoice%E2%80%AEfdp.exe');
    expect(opened).toEqual({ ok: false, message: 'This Session Inspector link cannot be opened: the file "invoice\u27e8U+202E\u27e9fdp.exe" is not an absolute path.' });
  });

  it.each(BIDI_LINKS)('refuses %s, showing the character as a visible symbol', (_what, url) => {
    const opened = parseProtocolUrl(url);
    expect(opened.ok).toBe(false);
    if (!opened.ok) expect(opened.message).not.toMatch(RAW_INVISIBLE);
    if (!opened.ok) expect(opened.message).toMatch(/[\u2400-\u2421]|\u27e8U\+/);
  });

  it('never throws on any string (fast-check)', () => {
    fc.assert(fc.property(fc.string({ unit: 'binary' }), (s) => void parseProtocolUrl(s)));
    fc.assert(fc.property(fc.string({ unit: 'binary' }), (s) => void parseProtocolUrl(`session-inspector://open?file=${s}`)));
  });
});
