/**
 * `exportDocument` (SPEC §16, docs/export-documents.md): the open session written as Markdown or
 * HTML by the command line's own writer (shared/export/sessionDocument.ts), for the renderer to
 * download or copy. A document past MAX_EXPORT_DOCUMENT_BYTES is `too_large`, naming the command,
 * as soon as its pieces pass it (the rest is not made).
 */
import { MAX_EXPORT_DOCUMENT_BYTES } from '../../../shared/index';
import { CallRangeError } from '../../../shared/export/document';
import { documentFileName, fileBaseName, sessionDocumentWithin } from '../../../shared/export/sessionDocument';
import { fail, ok } from '../replies';
import type { Handler } from './handler';
import { documentSourceWithTokens } from '../../tokens/documentTokens';

export const exportDocument: Handler<'exportDocument'> = (request, state) =>
  state.withSession('exportDocument', ({ session, info }) => {
    let written;
    try {
      written = sessionDocumentWithin(documentSourceWithTokens(session), {
        as: request.as,
        redact: request.redact,
        format: info.format,
        files: info.files.map((f) => state.labels.get(f.path) ?? fileBaseName(f.path)),
        title: session.sessions?.[0]?.title ?? null,
        ...(request.calls ? { range: request.calls } : {}),
      }, MAX_EXPORT_DOCUMENT_BYTES);
    } catch (e) {
      if (e instanceof CallRangeError) return fail('invalid_request', e.message);
      throw e;
    }
    if ('too_large' in written) {
      return fail('too_large', `The document is larger than the ${MAX_EXPORT_DOCUMENT_BYTES} bytes the app hands over: export fewer calls, or on the command line with session-inspector export --as ${request.as} --out FILE`);
    }
    const names = info.files.map((f) => state.labels.get(f.path) ?? f.path);
    return ok({ name: documentFileName(names, request.as), text: written.text, bytes: written.bytes, calls: session.calls.length, redacted: written.redacted });
  });
