/**
 * A source that is one JSON document of an importer's format (a SWE-agent or mini-swe-agent
 * trajectory, an OpenHands V0 trajectory), parsed whole at detection and built once. A document
 * that does not parse is one `malformed_line` finding at the parser's line and no messages; bytes
 * that are not UTF-8 are a finding; the view is also the recorded copy (the file holds every
 * message in full).
 */
import { arrayList } from '../../../shared/resolver/session';
import type { RunEnd } from '../../../shared/resolver/session';
import type { DepthCut } from '../../../shared/format/jsonDepth';
import { depthCutMessage } from '../../../shared/format/jsonDepth';
import type { ChatMessage, Finding, Reduction } from '../../../shared/format/types';
import type { CallTokens } from '../../../shared/tokens/usage';
import type { RecordedRequest } from '../../../shared/export/providers';
import type { OpenFile, SourceIndex } from './source';
import { WholeFileSource } from './wholeFileSource';

/**
 * What detection found: the parsed document, or why the claimed file does not parse. `deep`: where
 * the document was cut at MAX_JSON_DEPTH (shared/format/jsonDepth.ts).
 */
export type DocumentParse<T> = { doc: T; notUtf8: boolean; deep?: DepthCut } | { error: string; line: number };

/** What an importer builds from a document (SPEC §3.2's inputs; §11's lines). */
export interface BuiltDocument {
  model: string | null;
  view: ChatMessage[];
  messageLines: number[];
  log: Reduction[];
  logLines: number[];
  findings: Finding[];
  /** How the run ended, where the document records it (not a message of the view). */
  end?: RunEnd;
  /** SPEC §15: the usage the document records per call, by the line of the message the call produced. */
  usage?: Map<number, CallTokens>;
  /** SPEC §16: request bodies the document records as sent, by the line of the message the call produced. */
  requests?: Map<number, RecordedRequest>;
}

/** The source index of a built document, its findings after `findings`. */
export function documentIndex(built: BuiltDocument, sessionId: string, findings: Finding[]): SourceIndex {
  for (const f of built.findings) findings.push(f);
  const view = arrayList(built.view);
  return {
    records: { header: null, view, recorded: view, log: built.log, logLines: built.logLines, messageLines: built.messageLines, modelChanges: [], findings, system: () => undefined, ...(built.usage ? { usage: built.usage } : {}), ...(built.requests ? { requests: built.requests } : {}) },
    snapshot: { session_id: sessionId, model: built.model ?? '', messages: view, findings: [], ...(built.end ? { sessions: [{ id: sessionId, messages: view.length, end: built.end }] } : {}) },
  };
}

export abstract class JsonDocumentSource<T> extends WholeFileSource {
  constructor(
    file: OpenFile,
    private parsed: DocumentParse<T>,
    private readonly sessionId: string,
  ) {
    super(file);
  }

  /** The importer's reading of the parsed document. Never throws. */
  protected abstract build(doc: T): BuiltDocument;

  protected parseWhole(): SourceIndex {
    const parsed = this.parsed;
    this.parsed = { error: 'already built', line: 1 };
    const findings: Finding[] = [];
    if ('error' in parsed) {
      findings.push({ code: 'malformed_line', severity: 'error', line: parsed.line, message: `line ${parsed.line}: the trajectory is not one JSON document (${parsed.error}); nothing is shown` });
      return { records: { header: null, view: arrayList([]), recorded: arrayList([]), log: [], logLines: [], messageLines: [], modelChanges: [], findings, system: () => undefined } };
    }
    if (parsed.notUtf8) findings.push({ code: 'malformed_line', severity: 'error', line: 1, message: 'the trajectory holds bytes that are not valid UTF-8; they read as U+FFFD' });
    if (parsed.deep) findings.push({ code: 'malformed_line', severity: 'error', message: depthCutMessage('the trajectory', parsed.deep) });
    return documentIndex(this.build(parsed.doc), this.sessionId, findings);
  }
}
