/** The desktop app's protocol link: built by Copy link, read by the shell from an untrusted source. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Link } from './link';
import { parseProtocolUrl, protocolUrl } from './protocolLink';

describe('parseProtocolUrl', () => {
  it('reads the files and the place of a link it built (fast-check)', () => {
    const path = fc.oneof(
      fc.string({ unit: 'grapheme' }).map((s) => `/${s.replace(/\0/g, '')}`),
      fc.string({ unit: 'grapheme' }).map((s) => `C:\\${s.replace(/\0/g, '')}`),
    );
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

  it.each([
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
  ])('refuses %s with a sentence', (_what, url, message) => {
    const opened = parseProtocolUrl(url);
    expect(opened.ok).toBe(false);
    if (!opened.ok) expect(opened.message).toMatch(message);
    if (!opened.ok) expect(opened.message).toMatch(/^This Session Inspector link cannot be opened: /);
  });

  it('never throws on any string (fast-check)', () => {
    fc.assert(fc.property(fc.string({ unit: 'binary' }), (s) => void parseProtocolUrl(s)));
    fc.assert(fc.property(fc.string({ unit: 'binary' }), (s) => void parseProtocolUrl(`session-inspector://open?file=${s}`)));
  });
});
