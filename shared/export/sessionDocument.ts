/**
 * A session written as a document (SPEC §16 `export --as markdown|html`): what the command line
 * prints and what the worker answers `exportDocument` with — one function, so both say the same.
 */
import { buildDocument, type DocumentOptions, type DocumentSource } from './document';
import { documentHtml } from './html';
import { documentMarkdown } from './markdown';
import { redactor, type RedactionCounts } from './redact';

export type DocumentFormat = 'markdown' | 'html';

export interface SessionDocumentRequest extends Pick<DocumentOptions, 'format' | 'files' | 'title' | 'range'> {
  as: DocumentFormat;
  redact: boolean;
}

/** The document's text and what redaction replaced in it (empty without `redact`). Throws CallRangeError for a range that is none of the session's. */
export function writeSessionDocument(source: DocumentSource, request: SessionDocumentRequest): { text: string; redacted: RedactionCounts } {
  const redaction = request.redact ? redactor() : undefined;
  const { as, redact: _redact, ...options } = request;
  const doc = buildDocument(source, { ...options, ...(redaction ? { transform: redaction.redact, redacted: true } : {}) });
  return { text: as === 'html' ? documentHtml(doc) : documentMarkdown(doc), redacted: redaction?.counts ?? {} };
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
