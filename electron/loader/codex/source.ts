/**
 * A Codex rollout as a source: its lines are indexed in passes (resumable, for live tailing) and
 * kept parsed; `indexed()` rebuilds the three inputs from them (build.ts). The rollout is read once:
 * the view holds the messages themselves, so nothing is read back after indexing.
 */
import { arrayList } from '../../../shared/session';
import { isUtf8 } from 'node:buffer';
import { readExactly } from '../lines';
import type { OpenFile } from '../openFile';
import { safeClose } from '../openFile';
import type { IndexPass, IndexStop, SessionSource, SourceIndex } from '../source';
import { LoadCancelled } from '../source';
import { parseJson, stripBom } from '../native/text';
import type { RolloutLine } from './build';
import { buildRollout } from './build';

export class RolloutSource implements SessionSource {
  readonly format = 'codex-rollout' as const;
  readonly readsAfterIndexing = false;
  private readonly lines: RolloutLine[] = [];
  private offset = 0;
  private lineNo = 1;
  private cached: SourceIndex | undefined;
  private closed = false;

  constructor(readonly file: OpenFile) {}

  indexTo(end: number, pass: IndexPass): Promise<IndexStop> {
    while (this.offset < end) {
      if (pass.signal?.aborted) throw new LoadCancelled();
      const want = Math.min(end - this.offset, Math.max(pass.chunkSize, 1));
      const chunk = readExactly(this.file.fd, this.offset, want, pass.read);
      if (!chunk) break;
      const nl = chunk.lastIndexOf(0x0a);
      const whole = this.offset + want >= end;
      if (nl < 0 && !whole) {
        // A line longer than the chunk: read up to the next newline (or the end) in one go.
        const rest = readExactly(this.file.fd, this.offset, end - this.offset, pass.read);
        if (!rest) break;
        const at = rest.indexOf(0x0a);
        this.take(rest.subarray(0, at < 0 ? rest.length : at + 1), pass, at < 0 && pass.final);
        if (at < 0) break;
        continue;
      }
      const upto = nl < 0 ? 0 : nl + 1;
      if (upto > 0) this.take(chunk.subarray(0, upto), pass, false);
      if (whole && upto < chunk.length) {
        if (pass.final) this.take(chunk.subarray(upto), pass, true);
        break;
      }
    }
    return Promise.resolve({ offset: this.offset, line: this.lineNo });
  }

  /** Indexes whole lines (each ending in a newline, or one torn last line). */
  private take(bytes: Buffer, pass: IndexPass, torn: boolean): void {
    let start = 0;
    while (start < bytes.length) {
      const nl = bytes.indexOf(0x0a, start);
      const stop = nl < 0 ? bytes.length : nl;
      const line = this.lineNo++;
      const raw = bytes.subarray(start, stop);
      const text = stripBom(raw.toString('utf8')).replace(/\r$/, '');
      if (text.trim().length > 0) {
        if (raw.length > pass.maxRecordBytes) this.lines.push({ line, error: `record of ${raw.length} bytes is longer than the limit of ${pass.maxRecordBytes}` });
        else {
          const parsed = parseJson(text);
          if (parsed.ok) this.lines.push({ line, value: parsed.value, ...(isUtf8(raw) ? {} : { notUtf8: true as const }) });
          else this.lines.push({ line, error: `not JSON (${parsed.reason})`, ...(torn && nl < 0 ? { torn: true } : {}) });
        }
      }
      start = stop + 1;
    }
    this.offset += bytes.length;
    pass.progress.add(bytes.length);
    this.cached = undefined;
  }

  indexed(): SourceIndex {
    if (this.cached) return this.cached;
    const built = buildRollout(this.lines);
    const view = arrayList(built.view);
    const system = built.system;
    this.cached = {
      records: {
        header: null,
        view,
        recorded: view,
        log: built.log,
        logLines: built.logLines,
        messageLines: built.messageLines,
        modelChanges: built.modelChanges,
        findings: built.findings,
        system: () => system,
      },
      // The session's id and model travel as a snapshot's: a rollout has no native header.
      snapshot: { session_id: built.sessionId ?? '', model: built.model ?? '', messages: view, findings: [] },
    };
    return this.cached;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    safeClose(this.file.fd);
  }
}
