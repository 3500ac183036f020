/**
 * The open dialog's `Sessions` filter offers every session file the app reads: each committed
 * sample and fixture that the loader detects (by content) is offered, and its name ends as the
 * contract says its format's files end.
 */
import { extname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FILE_FORMAT_EXTENSIONS, SESSION_FILE_FORMATS } from '../../shared/contract';
import type { SessionFileFormat } from '../../shared/contract';
import { detectedFileFormat, filesUnder } from '../../tools/testing/files';
import { OPEN_DIALOG_OPTIONS, sessionExtensions } from './openDialog';

const ROOT = join(import.meta.dirname, '../..');

describe('the open dialog', () => {
  it('offers every committed session file under Sessions, and each is named as its format declares', () => {
    const offered = OPEN_DIALOG_OPTIONS.filters?.find((f) => f.name === 'Sessions')?.extensions ?? [];
    const sessions = [...filesUnder(join(ROOT, 'samples')), ...filesUnder(join(ROOT, 'e2e/fixtures'))]
      .map((path) => ({ file: relative(ROOT, path), format: detectedFileFormat(path) }))
      .filter((s): s is { file: string; format: SessionFileFormat } => s.format !== null);
    // Every file format the app reads is among them.
    expect(new Set(sessions.map((s) => s.format))).toEqual(new Set(SESSION_FILE_FORMATS));
    expect(sessions.filter((s) => !offered.includes(extname(s.file).slice(1)))).toEqual([]);
    expect(sessions.filter((s) => !FILE_FORMAT_EXTENSIONS[s.format].some((ending) => s.file.endsWith(ending)))).toEqual([]);
  }, 120_000);

  it('offers each extension once, without a dot, and All Files after Sessions', () => {
    const extensions = sessionExtensions();
    expect(new Set(extensions).size).toBe(extensions.length);
    for (const extension of extensions) expect(extension).toMatch(/^[a-z0-9]+$/);
    expect(OPEN_DIALOG_OPTIONS.filters).toEqual([
      { name: 'Sessions', extensions: sessionExtensions() },
      { name: 'All Files', extensions: ['*'] },
    ]);
  });
});
