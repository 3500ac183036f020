/** A session snapshot (SPEC §3.2) as a source: parsed whole when indexed, then closed. */
import { basename } from 'node:path';
import type { Finding } from '../../../shared/index';
import { arrayList, parseSnapshot } from '../../../shared/index';
import type { OpenFile } from '../openFile';
import { safeClose } from '../openFile';
import type { IndexPass, IndexStop, SessionSource, SourceIndex } from '../source';

export class SnapshotSource implements SessionSource {
  readonly format = 'supercode-snapshot' as const;
  readonly readsAfterIndexing = false;
  private result: SourceIndex | undefined;
  private closed = false;

  constructor(
    readonly file: OpenFile,
    private value: Record<string, unknown>,
    private readonly invalidUtf8: boolean,
  ) {}

  /** One document: the first pass parses it whole (whatever `end`), and closes the file. */
  indexTo(_end: number, pass: IndexPass): Promise<IndexStop> {
    if (!this.result) {
      const parsed = parseSnapshot(this.value);
      this.value = {};
      this.close();
      pass.progress.add(this.file.size);
      if (parsed.snapshot) {
        const snap = parsed.snapshot;
        const findings: Finding[] = [];
        if (this.invalidUtf8) {
          findings.push({ code: 'malformed_line', severity: 'error', message: `session snapshot ${basename(this.file.path)} holds bytes that are not valid UTF-8; they read as U+FFFD` });
        }
        for (const f of parsed.findings) findings.push(f);
        this.result = {
          snapshot: {
            session_id: snap.session_id,
            model: snap.model,
            messages: arrayList(snap.messages),
            ...(snap.reductions ? { reductions: snap.reductions } : {}),
            findings,
          },
        };
      } else {
        this.result = { stopped: parsed.findings };
      }
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
