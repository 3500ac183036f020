/**
 * A session written as a document (SPEC §16 `export --as markdown|html`): what the command line
 * prints and what the worker answers `exportDocument` with — one function, so both say the same.
 */
import { utf8Length } from '../format/utf8';
import { writeDocument, type DocumentOptions, type DocumentSource } from './document';
import { htmlWriter } from './html';
import { markdownWriter } from './markdown';
import { redactor, type RedactionCounts } from './redact';

export type DocumentFormat = 'markdown' | 'html';

export interface SessionDocumentRequest extends Pick<DocumentOptions, 'format' | 'files' | 'title' | 'range'> {
  as: DocumentFormat;
  redact: boolean;
}

/** The document's text and what redaction replaced in it (empty without `redact`). Throws CallRangeError for a range that is none of the session's. */
export function writeSessionDocument(source: DocumentSource, request: SessionDocumentRequest): { text: string; redacted: RedactionCounts } {
  const pieces: string[] = [];
  const { redacted } = writeSessionDocumentPieces(source, request, (piece) => {
    pieces.push(piece);
  });
  return { text: pieces.join(''), redacted };
}

/**
 * The document handed to `write` a piece at a time as it is made (its head, then a section at a
 * time), so a long session's is never one string (docs/export-documents.md). `write` answering
 * false stops it: the rest is not made, and `complete` is false. Throws CallRangeError, before
 * any piece, for a range that is none of the session's.
 */
export function writeSessionDocumentPieces(source: DocumentSource, request: SessionDocumentRequest, write: (piece: string) => boolean | void): { redacted: RedactionCounts; complete: boolean } {
  const redaction = request.redact ? redactor() : undefined;
  const { as, redact: _redact, ...options } = request;
  let stopped = false;
  const writer = (as === 'html' ? htmlWriter : markdownWriter)((piece) => {
    if (!stopped && write(piece) === false) stopped = true;
  });
  const complete = writeDocument(source, { ...options, ...(redaction ? { transform: redaction.redact, redacted: true } : {}) }, {
    head: (head) => {
      writer.head(head);
      return !stopped;
    },
    section: (section) => {
      writer.section(section);
      return !stopped;
    },
  });
  if (complete && !stopped) writer.end();
  return { redacted: redaction?.counts ?? {}, complete: complete && !stopped };
}

/**
 * The document if it is at most `maxBytes` of UTF-8, else `too_large` with no more of it made than
 * the first pieces past the limit (the app's download: a document it would refuse is not built whole).
 */
export function sessionDocumentWithin(
  source: DocumentSource,
  request: SessionDocumentRequest,
  maxBytes: number,
): { text: string; bytes: number; redacted: RedactionCounts } | { too_large: true } {
  const pieces: string[] = [];
  let bytes = 0;
  const { redacted, complete } = writeSessionDocumentPieces(source, request, (piece) => {
    bytes += utf8Length(piece);
    if (bytes > maxBytes) return false;
    pieces.push(piece);
    return true;
  });
  return complete ? { text: pieces.join(''), bytes, redacted } : { too_large: true };
}

/** The last part of a path, `/` or `\` separated. */
export function fileBaseName(path: string): string {
  return path.split(/[\\/]/).pop() ?? path;
}

/** A download's name: the first file's name without its extensions (`.sidecar.jsonl`, `.jsonl`…), in safe characters, and `.md` or `.html`. */
export function documentFileName(paths: readonly string[], as: DocumentFormat): string {
  const base = fileBaseName(paths[0] ?? 'session').replace(/\.(sidecar\.jsonl|session\.json)$/, '').replace(/\.[^.]*$/, '');
  const stem = base.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^\.+/, '').slice(0, 80) || 'session';
  return `${stem}.${as === 'html' ? 'html' : 'md'}`;
}
