/**
 * The indexing pass of an imported JSONL file (a Claude Code transcript, a Codex rollout): its lines
 * are read in chunks, from where the previous pass stopped up to `end`, and handed one by one to the
 * format's `take`; the pass yields to the event loop every few milliseconds, and once at
 * PREVIEW_AFTER_BYTES when it owes a preview (the first pause from there offers it; every pause
 * honours cancellation). Resumable: a line is taken once, whole, and a last line without its
 * newline only by a `final` pass, so two passes take the same lines as one.
 */
import { readExactly } from './lines';
import type { OpenFile } from './openFile';
import { safeClose } from './openFile';
import type { IndexPass, IndexStop, SessionSource, SourceIndex } from './source';
import { LoadCancelled, PREVIEW_AFTER_BYTES } from './source';

/** How long a pass runs before it gives the event loop a turn (as the sidecar's pass does). */
const YIELD_MS = 16;
const LF = 0x0a;

export abstract class LineSource implements SessionSource {
  abstract readonly format: SessionSource['format'];
  readonly readsAfterIndexing = false;
  /** See SessionSource.appends: a line-based transcript grows by appended lines. */
  get appends(): boolean {
    return true;
  }
  /** The first byte not yet taken: always the start of a line. */
  private offset = 0;
  private lineNo = 1;
  private closed = false;

  constructor(readonly file: OpenFile) {}

  /**
   * One line (without its `\n`): `bytes` is undefined when the line is longer than `maxRecordBytes`
   * (its `length` is then the line's); `torn` when it is the file's last line and has no newline.
   */
  protected abstract take(line: number, bytes: Buffer | undefined, length: number, torn: boolean, pass: IndexPass): void;

  abstract indexed(): SourceIndex;

  async indexTo(end: number, pass: IndexPass): Promise<IndexStop> {
    let onFirstPause = pass.onFirstPause;
    let sliceStart = performance.now();
    // A pass owed a preview pauses as soon as it has taken PREVIEW_AFTER_BYTES, whatever the clock
    // says: a machine fast enough to index the whole file within a few slices still shows it (and
    // a load cancelled there stops).
    const due = () => (onFirstPause !== undefined && this.offset >= PREVIEW_AFTER_BYTES) || performance.now() - sliceStart >= YIELD_MS;
    const pause = async () => {
      if (onFirstPause && this.offset >= PREVIEW_AFTER_BYTES) {
        onFirstPause();
        onFirstPause = undefined;
      }
      await new Promise<void>((resolve) => setImmediate(resolve));
      if (pass.signal?.aborted) throw new LoadCancelled('the load was cancelled');
      sliceStart = performance.now();
    };
    if (pass.signal?.aborted) throw new LoadCancelled('the load was cancelled');

    // The line being read: its pieces so far (dropped once it is over the limit) and its length.
    let pieces: Buffer[] = [];
    let length = 0;
    let readAt = this.offset;
    const finish = (last: Buffer, torn: boolean) => {
      const total = length + last.length;
      const over = total > pass.maxRecordBytes;
      const bytes = over ? undefined : pieces.length === 0 ? last : Buffer.concat([...pieces, last], total);
      this.take(this.lineNo++, bytes, total, torn, pass);
      const consumed = total + (torn ? 0 : 1);
      this.offset += consumed;
      pass.progress.add(consumed);
      pieces = [];
      length = 0;
    };
    while (readAt < end) {
      const want = Math.min(end - readAt, Math.max(pass.chunkSize, 1));
      const chunk = readExactly(this.file.fd, readAt, want, pass.read);
      if (!chunk) break; // the file shrank: what was read stays indexed
      readAt += want;
      let start = 0;
      for (let nl = chunk.indexOf(LF); nl !== -1; nl = chunk.indexOf(LF, start)) {
        finish(chunk.subarray(start, nl), false);
        start = nl + 1;
        if (due()) await pause();
      }
      if (start < chunk.length) {
        const rest = chunk.subarray(start);
        if (length + rest.length <= pass.maxRecordBytes) pieces.push(rest);
        else pieces = [];
        length += rest.length;
      }
      if (due()) await pause();
    }
    // A last line without its newline: taken (torn) by a final pass that read up to `end`, else left for the next pass.
    if (length > 0 && pass.final && readAt >= end) finish(Buffer.alloc(0), true);
    return { offset: this.offset, line: this.lineNo };
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    safeClose(this.file.fd);
  }
}
