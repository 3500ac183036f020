/** What `Copy link` and `Download range` name: the shared address (no token over HTTP) and the file. */
import { describe, expect, it } from 'vitest';
import { parseLink } from '../../../shared/links/link';
import { parseProtocolUrl } from '../../../shared/links/protocolLink';
import { utf8Length } from '../../../shared/format/utf8';
import { copiedText, rangeBytes, rangeFileName } from '../reduction/copyRange';
import { shareableUrl } from './shareableUrl';

const PAGE = { origin: 'http://127.0.0.1:4321', pathname: '/' };

describe('shareableUrl', () => {
  it('over HTTP: the page address and the place, never the query (the token)', () => {
    const url = shareableUrl('http', PAGE, ['/a/s.jsonl'], { call: 2, reduction: 'r4', range: [100, 300], q: 'x y' });
    expect(url).toBe('http://127.0.0.1:4321/#call=2&reduction=r4&range=100:300&q=x%20y');
    expect(parseLink(new URL(url).hash).link).toEqual({ call: 2, reduction: 'r4', range: [100, 300], q: 'x y' });
    expect(shareableUrl('http', PAGE, [], {})).toBe('http://127.0.0.1:4321/');
  });

  it('over HTTP: names the session file relative to its root first, slashes readable', () => {
    const url = shareableUrl('http', PAGE, ['/srv/logs/p/s.jsonl'], { file: 'p/s 1.jsonl', root: 'logs', call: 4 });
    expect(url).toBe('http://127.0.0.1:4321/#file=p/s%201.jsonl&root=logs&call=4');
    expect(parseLink(new URL(url).hash).link).toEqual({ file: 'p/s 1.jsonl', root: 'logs', call: 4 });
  });

  it('in the desktop app: the protocol link names the files by path, with no root-relative name in its place', () => {
    const url = shareableUrl('electron', { origin: 'app://session-inspector', pathname: '/index.html' }, ['/a/s.jsonl'], { file: 's.jsonl', call: 2 });
    expect(parseProtocolUrl(url)).toEqual({ ok: true, files: ['/a/s.jsonl'], link: { call: 2 }, problems: [] });
  });

  it('in the desktop app: a session-inspector:// link that opens the same files at the same place', () => {
    const url = shareableUrl('electron', { origin: 'app://session-inspector', pathname: '/index.html' }, ['/a/s.sidecar.jsonl', '/a/s.session.json'], { reduction: 'r 1' });
    expect(parseProtocolUrl(url)).toEqual({ ok: true, files: ['/a/s.sidecar.jsonl', '/a/s.session.json'], link: { reduction: 'r 1' }, problems: [] });
  });
});

describe('rangeFileName', () => {
  it('is <id>-<start>-<end>.bin, the id cut to letters, digits and ._-', () => {
    expect(rangeFileName('r6', [1, 201])).toBe('r6-1-201.bin');
    expect(rangeFileName('../\u001b]52;evil\u0007', [0, 5])).toBe('..___52_evil_-0-5.bin');
    expect(rangeFileName('', [0, 0])).toBe('reduction-0-0.bin');
  });
});

describe('copiedText and rangeBytes', () => {
  it('copy the text as decoded, escapes and all, nothing added; a lone surrogate as U+FFFD, so the byte count is the range’s', () => {
    const text = '\u001b[31mred\u001b[0m\r\n\u0000é';
    expect(copiedText(text)).toBe(text);
    expect([...rangeBytes(text)]).toEqual([...new TextEncoder().encode(text)]);
    const lone = 'a\uD800b';
    expect(copiedText(lone)).toBe('a\uFFFDb');
    expect([...rangeBytes(lone)]).toEqual([0x61, 0xef, 0xbf, 0xbd, 0x62]);
    expect(rangeBytes(lone).length).toBe(utf8Length(lone));
  });
});
