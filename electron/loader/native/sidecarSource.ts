/** A sidecar (SPEC §3.1) as a source: indexed in resumable passes, read back by range. */
import type { ChatMessage, LocatedRecord } from '../../../shared/index';
import { lazyList } from '../../../shared/index';
import type { ContentServices } from '../content/contentServices';
import { createContentServices } from '../content/contentServices';
import type { FileContent, FileContentList } from '../content/fileContent';
import type { ReadSync } from '../common/lines';
import { MessageCache } from './messageCache';
import type { CachePolicy } from './messageCache';
import { safeClose } from '../common/openFile';
import type { IndexPass, IndexStop, OpenFile, SessionSource, SourceIndex } from '../common/source';
import type { LocatedTimelineRecord } from './sidecarIndex';
import { SidecarIndexer } from './sidecarIndex';
import type { MessageHandle } from './sidecarReader';
import { SidecarReader } from './sidecarReader';

export class SidecarSource implements SessionSource {
  readonly format = 'supercode-sidecar' as const;
  readonly readsAfterIndexing = true;
  readonly appends = true;
  private readonly indexer: SidecarIndexer;
  private readonly reader: SidecarReader;
  private closed = false;

  constructor(
    readonly file: OpenFile,
    read: ReadSync,
    cacheBytes: number,
    /** The load's services (DetectContext.services); fresh ones when none are given. */
    services: ContentServices = createContentServices(),
    /** How the message cache takes a message once full (DetectContext.cachePolicy). */
    cachePolicy?: CachePolicy,
  ) {
    this.indexer = new SidecarIndexer(file, { scratch: services.scratch });
    this.reader = new SidecarReader(file.fd, read, new MessageCache<ChatMessage>(cacheBytes, cachePolicy), services, () => this.indexer.stop.offset);
  }

  indexTo(end: number, pass: IndexPass): Promise<IndexStop> {
    return this.indexer.indexTo(end, pass);
  }

  indexed(): SourceIndex {
    const index = this.indexer.index();
    if (index.stopped) return { stopped: [index.stopped] };
    const reader = this.reader;
    const system = index.system;
    return {
      records: {
        header: index.header,
        // A capped copy's length is known only once read; an uncapped one's is the handle's.
        view: Object.assign(
          lazyList(index.view, (e) => reader.message(e.value, e.cap), (e) => (e.cap ? undefined : e.value.contentBytes), index.viewLength),
          {
            // An uncapped message's content kept in the file, without reading its record.
            fileContent(i: number): FileContent | undefined {
              const e = i >= 0 && i < index.viewLength ? index.view[i] : undefined;
              return e && !e.cap && e.value.content ? reader.contentSource(e.value, e.value.content) : undefined;
            },
          } satisfies FileContentList,
        ),
        recorded: lazyList(index.recorded, (e) => reader.message(e.value), undefined, index.recordedLength),
        log: index.log,
        logLines: index.logLines,
        modelChanges: index.modelChanges,
        findings: index.findings,
        calls: index.calls,
        rewinds: index.rewinds.map((r) => ({ line: r.line, to: r.to, abandoned: lazyList(r.abandoned, (e) => reader.message(e.value, e.cap)) })),
        system: () => (system ? reader.message(system) : undefined),
        replayRecords: (maxRecordBytes) => replayRecords(index.trail, index.trailLength, reader, maxRecordBytes),
      },
    };
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.reader.close();
    safeClose(this.file.fd);
  }
}

/**
 * The records the index folded in, in file order, each message read whole (docs/policy-replay.md):
 * what reading the sidecar again and parsing every line gave, without reading the file again but
 * for the contents. A message record longer than `maxRecordBytes`, or one that can no longer be
 * read, is left out, as a line too long to parse was.
 */
function* replayRecords(trail: readonly LocatedTimelineRecord[], length: number, reader: SidecarReader, maxRecordBytes: number): Generator<LocatedRecord> {
  // A content indexed without decoding it stays in the file (unless history held a capped copy):
  // the passes read its byte count and hash, a kept prefix, and `view` copies it to its output.
  const whole = (handle: MessageHandle, capped: boolean) => (handle.length > maxRecordBytes ? undefined : ((capped ? undefined : reader.messageInFile(handle)) ?? reader.wholeMessage(handle)));
  for (let k = 0; k < length; k++) {
    const { record, line } = trail[k] as LocatedTimelineRecord;
    if (record.t === 'message' || record.t === 'system') {
      const msg = whole(record.msg, record.t === 'message' && record.cap !== undefined);
      // Measured natively here: a pass would measure it in JavaScript (a handle's count is the
      // file's bytes, which a content with bytes that are not UTF-8 does not decode to).
      // A long content's hash, when indexing computed it and found the bytes UTF-8: the hash of
      // what the content decodes to (docs/policy-replay.md).
      const content = record.msg.content;
      const sha256 = content?.validUtf8 === true ? content.sha256 : undefined;
      if (msg) yield { record: { ...record, msg }, line, contentBytes: msg.large ? msg.large.length : Buffer.byteLength(msg.content, 'utf8'), ...(sha256 !== undefined ? { contentSha256: sha256 } : {}) };
    } else {
      yield { record, line };
    }
  }
}
