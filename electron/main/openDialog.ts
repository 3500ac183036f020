/**
 * The desktop open dialog's options. Its `Sessions` filter offers every file format the loader
 * reads, from the endings each format declares in the contract (FILE_FORMAT_EXTENSIONS): a format
 * added there is offered here. Dialogs match one extension, the part after the last dot, so
 * `.sidecar.jsonl` is offered as `jsonl`.
 */
import type { OpenDialogOptions } from 'electron';
import { FILE_FORMAT_EXTENSIONS, SESSION_FILE_FORMATS } from '../../shared/contract';

/** The last extension of every file format's endings, without the dot, each once, in the contract's order. */
export function sessionExtensions(): string[] {
  const endings = SESSION_FILE_FORMATS.flatMap((format) => FILE_FORMAT_EXTENSIONS[format]);
  return [...new Set(endings.map((ending) => ending.slice(ending.lastIndexOf('.') + 1)))];
}

/** The session files the open dialog offers first; any file can still be chosen (detection reads content). */
export const OPEN_DIALOG_OPTIONS: OpenDialogOptions = {
  title: 'Open Session',
  properties: ['openFile', 'multiSelections'],
  filters: [
    { name: 'Sessions', extensions: sessionExtensions() },
    { name: 'All Files', extensions: ['*'] },
  ],
};
