/**
 * A Codex rollout as a source: its lines are indexed in passes (LineSource: resumable, for live
 * tailing; a large rollout is previewed from its first pause) and kept parsed; `indexed()` rebuilds
 * the three inputs from them (build.ts), before the last pass over the lines read so far. The
 * rollout is read once: the view holds the messages themselves, so nothing is read back afterwards.
 */
import { arrayList } from '../../../shared/resolver/session';
import type { TakenLine } from '../common/lineSource';
import { LineSource, takeLineText } from '../common/lineSource';
import type { IndexPass, SourceIndex } from '../common/source';
import { parseCappedJson, stripBom } from '../common/json';
import type { RolloutLine } from './build';
import { buildRollout } from './build';

export class RolloutSource extends LineSource {
  readonly format = 'codex-rollout' as const;
  private readonly lines: RolloutLine[] = [];
  private cached: SourceIndex | undefined;

  /** One line, kept parsed (a record longer than the limit, or not JSON, is kept as its error). */
  protected take(line: number, raw: TakenLine, length: number, torn: boolean, pass: IndexPass): void {
    this.cached = undefined;
    const taken = takeLineText(raw);
    if (!taken) {
      this.lines.push({ line, error: `record of ${length} bytes is longer than the limit of ${pass.maxRecordBytes}` });
      return;
    }
    const text = stripBom(taken.text);
    if (text.trim().length === 0) return;
    const parsed = parseCappedJson(text);
    if (parsed.ok) this.lines.push({ line, value: parsed.value, ...(taken.utf8 ? {} : { notUtf8: true as const }), ...(parsed.cut ? { deep: parsed.cut } : {}) });
    else this.lines.push({ line, error: `not JSON (${parsed.reason})`, ...(torn ? { torn: true } : {}) });
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
        instructions: built.instructions,
      },
      // The session's id and model travel as a snapshot's: a rollout has no native header.
      snapshot: { session_id: built.sessionId ?? '', model: built.model ?? '', messages: view, findings: [] },
    };
    return this.cached;
  }
}
