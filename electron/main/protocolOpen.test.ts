/** A protocol link from the OS, checked against the file system before anything opens (SPEC §12). */
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { win32 } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { parseProtocolUrl, protocolUrl } from '../../shared/links/protocolLink';
import { BIDI_LINKS, UNC_LINKS } from '../../shared/testing/hostileLinks';
import { RAW_INVISIBLE } from '../../shared/testing/invisible';
import { tempDir } from '../../tools/testing/files';
import { APP_INDEX_URL } from './appProtocol';
import { appUrlAt, canonicalFragment, resolveProtocolOpen } from './protocolOpen';

const dir = tempDir();
afterAll(() => dir.cleanup());

describe('resolveProtocolOpen', () => {
  it('opens existing regular files at the link’s place, as a canonical fragment', () => {
    const file = dir.path('s.sidecar.jsonl');
    writeFileSync(file, '');
    const url = protocolUrl([file], { q: 'tail -f', reduction: 'r4', call: 3 });
    expect(resolveProtocolOpen(url)).toEqual({ ok: true, files: [file], fragment: '#call=3&reduction=r4&q=tail%20-f', problems: [] });
    expect(resolveProtocolOpen(protocolUrl([file], {}))).toEqual({ ok: true, files: [file], fragment: '', problems: [] });
  });

  it('refuses a path that is missing or not a regular file (a folder), naming it', () => {
    const folder = dir.path('folder');
    mkdirSync(folder);
    for (const path of [dir.path('missing.jsonl'), folder]) {
      const opened = resolveProtocolOpen(protocolUrl([path], { call: 1 }));
      expect(opened).toEqual({ ok: false, message: `This Session Inspector link cannot be opened: ${JSON.stringify(path)} is not a file on this computer.` });
    }
    // The check is the one given: nothing else decides.
    expect(resolveProtocolOpen(protocolUrl(['/x/y.jsonl'], {}), () => true).ok).toBe(true);
  });

  it('follows a symbolic link to a regular file, as the command line does', () => {
    const target = dir.path('t.jsonl');
    writeFileSync(target, '');
    const link = dir.path('l.jsonl');
    symlinkSync(target, link);
    expect(resolveProtocolOpen(protocolUrl([link], {})).ok).toBe(true);
  });

  it('refuses what the pure parser refuses, before looking at the disk', () => {
    let looked = 0;
    const opened = resolveProtocolOpen('session-inspector://open?file=relative.jsonl', () => (looked++, true));
    expect(opened.ok).toBe(false);
    expect(looked).toBe(0);
  });
});

describe('resolveProtocolOpen: network shares, devices and hostile text', () => {
  /** By Windows rules (node:path's win32, so this runs on any OS): the root is a drive's or the current drive's. */
  const localOnWindows = (path: string) => /^([A-Za-z]:)?[\\/]$/.test(win32.parse(path).root) && !/^\\\?\?\\/.test(win32.normalize(path));

  it.each(UNC_LINKS)('refuses %s with a sentence, before looking at the disk', (_what, url) => {
    let looked = 0;
    const opened = resolveProtocolOpen(url, () => (looked++, true));
    expect(opened.ok).toBe(false);
    if (!opened.ok) expect(opened.message).toMatch(/^This Session Inspector link cannot be opened: the file ".+" is on a network share or a device; a link opens only a file on this computer's own drives\.$/);
    expect(looked).toBe(0);
    // Each really is one by Windows rules: the corpus holds no path Windows would open locally.
    const files = new URL(url.replace(/\\/g, '%5C')).searchParams.getAll('file');
    expect(files.some((f) => !localOnWindows(f))).toBe(true);
  });

  it('opens only what Windows reads as a path on a local drive (fast-check over separators, dots, drives and prefixes)', () => {
    const piece = fc.constantFrom('\\', '/', '?', '??', '.', '..', 'host', 'share', 'C:', 'c:', 'UNC', 'GLOBALROOT', 'pipe', ' ', 's.jsonl');
    fc.assert(
      fc.property(fc.array(piece, { minLength: 1, maxLength: 10 }), (pieces) => {
        const path = pieces.join('');
        const opened = resolveProtocolOpen(protocolUrl([path], {}), () => true);
        if (opened.ok) expect(localOnWindows(path), path).toBe(true);
        if (!opened.ok) expect(opened.message).toMatch(/network share or a device|not an absolute path/);
      }),
      { numRuns: 3000 },
    );
  });

  it.each(['/../??\\C:\\s.jsonl', '/./??/C:/s.jsonl', '/.s.jsonl share/../??\\C:\\s.jsonl'])('refuses %s: Windows resolves its dot segments to an NT object path (\\??\\), a device', (path) => {
    expect(win32.normalize(path).startsWith('\\??\\')).toBe(true);
    const opened = resolveProtocolOpen(protocolUrl([path], {}), () => true);
    expect(opened.ok).toBe(false);
    if (!opened.ok) expect(opened.message).toMatch(/network share or a device/);
  });

  it.each(BIDI_LINKS)('refuses %s, the character shown as a visible symbol', (_what, url) => {
    const opened = resolveProtocolOpen(url, () => true);
    expect(opened.ok).toBe(false);
    if (!opened.ok) expect(opened.message).not.toMatch(RAW_INVISIBLE);
    if (!opened.ok) expect(opened.message).toMatch(/[\u2400-\u2421]|\u27e8U\+/);
  });

  it('names a missing file with a bidi override or an escape visibly', () => {
    for (const name of ['invoice\u202Efdp.jsonl', 'a\u001b]52;c;cm0gLXJmIH4=\u0007.jsonl', 'z\u200bw\u2028.jsonl']) {
      const opened = resolveProtocolOpen(protocolUrl([dir.path(name)], {}));
      expect(opened.ok).toBe(false);
      if (!opened.ok) expect(opened.message).not.toMatch(RAW_INVISIBLE);
      if (!opened.ok) expect(opened.message).toMatch(/[\u2400-\u2421]|\u27e8U\+.* is not a file on this computer\.$/);
    }
    expect(parseProtocolUrl(protocolUrl([dir.path('invoice\u202Efdp.jsonl')], {})).ok).toBe(true);
  });
});

describe('canonicalFragment and appUrlAt', () => {
  it('writes a --link value canonically, with or without its #; empty for none', () => {
    expect(canonicalFragment('q=x&call=2')).toBe('#call=2&q=x');
    expect(canonicalFragment('#')).toBe('');
    expect(canonicalFragment(undefined)).toBe('');
    expect(canonicalFragment('#call=zero')).toBe('');
    expect(appUrlAt('#call=2')).toBe(`${APP_INDEX_URL}#call=2`);
    expect(appUrlAt('')).toBe(APP_INDEX_URL);
  });
});
