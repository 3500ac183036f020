/**
 * The context the shown call was given outside the view's messages (shared/resolver/instructions.ts):
 * Codex's base instructions, Claude Code's attachments. A collapsed block above the Projected
 * view, not a row of it — they are not messages of the view. Shown only when there are any; the
 * text is rendered as text, never as HTML.
 */
import { useEffect } from 'react';
import { utf8Length } from '../../../shared/format/utf8';
import { useApp } from '../../store/storeContext';
import { shownInstructionsKey } from '../../store/instructionsSlice';
import { instructionCut, instructionPlace, instructionTitle, instructionsSummary } from './instructionsModel';
import './instructionsBlock.css';

export function InstructionsBlock() {
  const epoch = useApp((s) => s.epoch);
  const shownCall = useApp((s) => s.shownCall);
  const session = useApp((s) => s.session);
  const entry = useApp((s) => s.instructions);
  const load = useApp((s) => s.loadInstructions);
  const open = useApp((s) => s.instructionsOpen);
  const setOpen = useApp((s) => s.setInstructionsOpen);
  const messages = session?.messages;
  const stopped = session?.stopped;
  useEffect(() => {
    if (messages !== undefined) void load();
  }, [epoch, shownCall, messages, stopped, load]);

  const key = shownInstructionsKey({ epoch, shownCall, session: session ?? null });
  const current = entry && key && entry.epoch === key.epoch && entry.call === key.call && entry.messages === key.messages ? entry : null;
  const result = current?.status === 'done' ? current.result : undefined;
  if (!result || result.total === 0) return null;
  const more = result.total - result.instructions.length;
  return (
    <section className="instructions-block" aria-label="Instructions">
      <details open={open} onToggle={(e) => setOpen(e.currentTarget.open)}>
        <summary>{instructionsSummary(result.instructions, result.total)}</summary>
        <ol className="instructions-list" aria-label={shownCall === null ? 'Instructions given at the latest view' : `Instructions given at call ${shownCall}`}>
          {result.instructions.map((i) => {
            const cut = instructionCut(i, utf8Length(i.text));
            return (
              <li key={`${i.line}/${i.source}`} className="instructions-item">
                <div className="instructions-head">
                  <strong>{instructionTitle(i)}</strong> <span className="instructions-place">{instructionPlace(i)}</span>
                </div>
                <pre className="instructions-text" tabIndex={0} aria-label={`${instructionTitle(i)}, line ${i.line}`}>
                  {i.text}
                </pre>
                {cut !== null && <p className="instructions-cut">{cut}</p>}
              </li>
            );
          })}
        </ol>
        {more > 0 && <p className="instructions-cut">{`${more.toLocaleString('en-US')} more not shown`}</p>}
      </details>
    </section>
  );
}
