import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../tools/testing/files';
import { defaultSampleFiles, filesOfSecondInstance, linkArgument, parseFileArguments, parseLinkArgument, parseSourceArguments, protocolUrlArgument, samplesDir, sourceArguments, sourceOfSecondInstance } from './args';

const CWD = resolve('/work/sessions');

describe('--session and --format on the desktop command line', () => {
  it('round-trips through sourceArguments and parseSourceArguments, values with = and spaces included, and are never files', () => {
    const source = { session: 'agent a=1', format: 'claude-code' };
    const argv = ['/opt/si', ...sourceArguments(source), 'x.jsonl'];
    expect(parseSourceArguments(argv)).toEqual(source);
    expect(parseFileArguments(argv, { defaultApp: false, cwd: CWD })).toEqual([join(CWD, 'x.jsonl')]);
    expect(sourceArguments({})).toEqual([]);
    expect(parseSourceArguments(['/opt/si', '--sessions=x', '--no-sandbox'])).toEqual({});
  });

  it("a second instance's source is its additionalData's when well formed, else its argv's", () => {
    expect(sourceOfSecondInstance(['/opt/si', '--session=from-argv'], { files: [], source: { session: 'from-data' } })).toEqual({ session: 'from-data' });
    expect(sourceOfSecondInstance(['/opt/si', '--session=from-argv'], { files: [], source: { session: 42 } })).toEqual({ session: 'from-argv' });
    expect(sourceOfSecondInstance(['/opt/si'], null)).toEqual({});
  });
});

describe('--link and protocol links on the desktop command line (SPEC §12)', () => {
  it('--link round-trips through linkArgument and parseLinkArgument and is never a file', () => {
    const argv = ['/opt/si', ...linkArgument('#reduction=r%204&q=a%3Db'), 'x.jsonl'];
    expect(parseLinkArgument(argv)).toBe('#reduction=r%204&q=a%3Db');
    expect(parseFileArguments(argv, { defaultApp: false, cwd: CWD })).toEqual([join(CWD, 'x.jsonl')]);
    expect(linkArgument(undefined)).toEqual([]);
    expect(parseLinkArgument(['/opt/si', 'x.jsonl'])).toBeUndefined();
  });

  it('a protocol link among the arguments is found, and is not taken for a file', () => {
    const url = 'session-inspector://open?file=%2Fa%2Fs.jsonl#call=2';
    const argv = ['/opt/si', '--allow-file-access-from-files', url];
    expect(protocolUrlArgument(argv)).toBe(url);
    expect(parseFileArguments(argv, { defaultApp: false, cwd: CWD })).toEqual([]);
    expect(protocolUrlArgument(['/opt/si', 'x.jsonl'])).toBeUndefined();
  });
});

describe('parseFileArguments', () => {
  it('packaged: skips the executable, resolves files against the working directory', () => {
    expect(parseFileArguments(['/opt/Session Inspector/session-inspector', 'a.sidecar.jsonl', '/abs/b.session.json'], { defaultApp: false, cwd: CWD })).toEqual([
      join(CWD, 'a.sidecar.jsonl'),
      resolve('/abs/b.session.json'),
    ]);
  });

  it('electron <app>: skips the executable and the app path', () => {
    expect(parseFileArguments(['/x/electron', '/repo', '../s.sidecar.jsonl'], { defaultApp: true, cwd: CWD })).toEqual([resolve(CWD, '../s.sidecar.jsonl')]);
    expect(parseFileArguments(['/x/electron', 'dist/main.cjs'], { defaultApp: true, cwd: CWD })).toEqual([]);
  });

  it("skips Electron's and Chromium's flags wherever they stand", () => {
    expect(
      parseFileArguments(['/x/electron', '.', '--inspect=9229', 's.sidecar.jsonl', '--no-sandbox', '-psn_0_12345', '--enable-logging', '', 't.session.json'], { defaultApp: true, cwd: CWD }),
    ).toEqual([join(CWD, 's.sidecar.jsonl'), join(CWD, 't.session.json')]);
  });

  it('gives nothing for a bare launch', () => {
    expect(parseFileArguments(['/opt/si'], { defaultApp: false, cwd: CWD })).toEqual([]);
    expect(parseFileArguments([], { defaultApp: false, cwd: CWD })).toEqual([]);
  });
});

describe('filesOfSecondInstance', () => {
  it("prefers the second instance's own resolved files", () => {
    expect(filesOfSecondInstance(['/x/electron', '.', '--flag', 'ignored'], '/elsewhere', { files: ['/a/s.sidecar.jsonl'] }, true)).toEqual(['/a/s.sidecar.jsonl']);
  });

  it('falls back to its argv, resolved against its working directory, when the data is missing or malformed', () => {
    const argv = ['/opt/si', 'rel.sidecar.jsonl'];
    const expected = [resolve('/their/cwd', 'rel.sidecar.jsonl')];
    for (const data of [undefined, null, {}, { files: 'x' }, { files: ['relative/path'] }, { files: [7] }]) {
      expect(filesOfSecondInstance(argv, '/their/cwd', data, false)).toEqual(expected);
    }
  });
});

describe('the bundled sample', () => {
  let dir: ReturnType<typeof tempDir>;
  beforeEach(() => {
    dir = tempDir();
  });
  afterEach(() => dir.cleanup());

  it('is <resources>/samples when packaged, <repo>/samples otherwise', () => {
    expect(samplesDir(true, '/opt/si/resources', '/opt/si/resources/app.asar/dist')).toBe(join('/opt/si/resources', 'samples'));
    expect(samplesDir(false, '/ignored', '/repo/dist')).toBe(join('/repo', 'samples'));
  });

  it('prefers session.sidecar.jsonl, falls back to demo.sidecar.jsonl, else nothing', () => {
    expect(defaultSampleFiles(dir.dir)).toEqual([]);
    writeFileSync(dir.path('demo.sidecar.jsonl'), '');
    expect(defaultSampleFiles(dir.dir)).toEqual([dir.path('demo.sidecar.jsonl')]);
    writeFileSync(dir.path('session.sidecar.jsonl'), '');
    expect(defaultSampleFiles(dir.dir)).toEqual([dir.path('session.sidecar.jsonl')]);
  });

  it("the repository's samples folder has one", () => {
    expect(defaultSampleFiles(resolve(import.meta.dirname, '../../samples'))).toHaveLength(1);
  });
});
