/** A protocol link from the OS, checked against the file system before anything opens (SPEC §12). */
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { protocolUrl } from '../../shared/protocolLink';
import { tempDir } from '../testing/files';
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
