/**
 * `exportDocument` (SPEC §16, docs/export-documents.md): the open session written as Markdown or
 * HTML by the command line's own writer (shared/export/sessionDocument.ts), for the renderer to
 * download or copy. A document past MAX_EXPORT_DOCUMENT_BYTES is `too_large`, naming the command.
 */
import { MAX_EXPORT_DOCUMENT_BYTES, utf8Length } from '../../../shared/index';
import { CallRangeError } from '../../../shared/export/document';
import { documentFileName, fileBaseName, writeSessionDocument } from '../../../shared/export/sessionDocument';
import { fail, ok } from '../replies';
import type { Handler } from './handler';
import { documentSourceWithTokens } from '../../tokens/documentTokens';

export const exportDocument: Handler<'exportDocument'> = (request, state) =>
  state.withSession('exportDocument', ({ session, info }) => {
    let written;
    try {
      written = writeSessionDocument(documentSourceWithTokens(session), {
        as: request.as,
        redact: request.redact,
        format: info.format,
        files: info.files.map((f) => state.labels.get(f.path) ?? fileBaseName(f.path)),
        title: session.sessions?.[0]?.title ?? null,
        ...(request.calls ? { range: request.calls } : {}),
      });
    } catch (e) {
      if (e instanceof CallRangeError) return fail('invalid_request', e.message);
      throw e;
    }
    const bytes = utf8Length(written.text);
    if (bytes > MAX_EXPORT_DOCUMENT_BYTES) {
      return fail('too_large', `The document would be ${bytes} bytes, more than the ${MAX_EXPORT_DOCUMENT_BYTES} the app hands over: export fewer calls, or on the command line with session-inspector export --as ${request.as} --out FILE`);
    }
    const names = info.files.map((f) => state.labels.get(f.path) ?? f.path);
    return ok({ name: documentFileName(names, request.as), text: written.text, bytes, calls: session.calls.length, redacted: written.redacted });
  });
