/**
 * A source that is one document, not lines (a session snapshot): its first pass parses all of it,
 * whatever `end`, and closes the file (unless `keepsFileOpen`); later passes and `indexed()` answer from that one result. It
 * never pauses, so it offers no preview. (Line-based imports index in passes: lineSource.ts.)
 */
import { safeClose } from './openFile';
import type { IndexPass, IndexStop, OpenFile, SessionSource, SourceIndex } from './source';

export abstract class WholeFileSource implements SessionSource {
  abstract readonly format: SessionSource['format'];
  readonly readsAfterIndexing = false;
  private result: SourceIndex | undefined;
  private closed = false;

  constructor(readonly file: OpenFile) {}

  /** Reads and parses the whole file (the descriptor is still open; it is closed afterwards). */
  protected abstract parseWhole(pass: IndexPass): SourceIndex;

  /** True when the source still reads the file after its first pass (it then closes it itself, or at close). */
  protected keepsFileOpen(): boolean {
    return false;
  }

  indexTo(_end: number, pass: IndexPass): Promise<IndexStop> {
    if (!this.result) {
      this.result = this.parseWhole(pass);
      if (!this.keepsFileOpen()) this.close();
      pass.progress.add(this.file.size);
    }
    return Promise.resolve({ offset: this.file.size, line: 1 });
  }

  indexed(): SourceIndex {
    return this.result ?? {};
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    safeClose(this.file.fd);
  }
}
