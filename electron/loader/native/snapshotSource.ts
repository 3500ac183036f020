/** A session snapshot (SPEC §3.2) as a source: parsed whole when indexed, then closed. */
import { basename } from 'node:path';
import type { Finding } from '../../../shared/index';
import { arrayList, parseSnapshot } from '../../../shared/index';
import type { OpenFile, SourceIndex } from '../common/source';
import { WholeFileSource } from '../common/wholeFileSource';

export class SnapshotSource extends WholeFileSource {
  readonly format = 'supercode-snapshot' as const;

  constructor(
    file: OpenFile,
    private value: Record<string, unknown>,
    private readonly invalidUtf8: boolean,
  ) {
    super(file);
  }

  protected parseWhole(): SourceIndex {
    const parsed = parseSnapshot(this.value);
    this.value = {};
    if (!parsed.snapshot) return { stopped: parsed.findings };
    const snap = parsed.snapshot;
    const findings: Finding[] = [];
    if (this.invalidUtf8) {
      findings.push({ code: 'malformed_line', severity: 'error', message: `session snapshot ${basename(this.file.path)} holds bytes that are not valid UTF-8; they read as U+FFFD` });
    }
    for (const f of parsed.findings) findings.push(f);
    return {
      snapshot: {
        session_id: snap.session_id,
        model: snap.model,
        messages: arrayList(snap.messages),
        ...(snap.reductions ? { reductions: snap.reductions } : {}),
        findings,
      },
    };
  }
}
