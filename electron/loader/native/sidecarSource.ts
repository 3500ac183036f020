/** A sidecar (SPEC §3.1) as a source: indexed in resumable passes, read back by range. */
import type { ChatMessage } from '../../../shared/index';
import { lazyList } from '../../../shared/index';
import type { ContentServices } from '../contentServices';
import { createContentServices } from '../contentServices';
import type { FileContent, FileContentList } from '../fileContent';
import type { ReadSync } from '../lines';
import { MessageCache } from '../messageCache';
import type { OpenFile } from '../openFile';
import { safeClose } from '../openFile';
import type { IndexPass, IndexStop, SessionSource, SourceIndex } from '../source';
import { SidecarIndexer } from './sidecarIndex';
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
  ) {
    this.indexer = new SidecarIndexer(file, { scratch: services.scratch });
    this.reader = new SidecarReader(file.fd, read, new MessageCache<ChatMessage>(cacheBytes), services);
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
            // Issue 16: an uncapped message's content kept in the file, without reading its record.
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
