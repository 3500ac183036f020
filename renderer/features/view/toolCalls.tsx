/**
 * An assistant message's tool calls: each a `Tool call <name>` group with its arguments
 * (pretty-printed when they are JSON). Arguments can be megabytes: `rows` carries a prefix and the
 * whole size (`arguments_bytes`), and `Show more` pages through the rest, like a cut row's text.
 */
import type { ProjectedRowInfo } from '../../../shared/contract';
import { deeperThan } from '../../../shared/format/jsonDepth';
import { utf8Length } from '../../../shared/format/utf8';
import { argumentsKey } from '../../store/rowsSlice';
import { useApp } from '../../store/storeContext';
import { formatBytes } from '../../text/format';
import { TerminalText } from '../../widgets/terminalText';
import './toolCalls.css';
import { nameText } from '../../text/nameText';

type ToolCall = NonNullable<ProjectedRowInfo['tool_calls']>[number];

/** Deeper arguments are shown as written: indenting them would print a line per level (and stringifying recurses). */
const PRETTY_DEPTH = 64;

/** The arguments as the model wrote them, indented when they parse as JSON nested at most PRETTY_DEPTH levels. */
export function prettyArguments(args: string): string {
  try {
    const value: unknown = JSON.parse(args);
    return deeperThan(value, PRETTY_DEPTH) ? args : JSON.stringify(value, null, 2);
  } catch {
    return args;
  }
}

function ToolCallArguments({ call, row, index }: { call: ToolCall; row: number; index: number }) {
  const more = useApp((s) => s.argumentsMore.get(argumentsKey(row, index)));
  const showMore = useApp((s) => s.showMoreArguments);
  const shown = more ? call.arguments + more.text : call.arguments;
  const shownBytes = more?.shownBytes ?? (call.arguments.length < call.arguments_bytes ? utf8Length(call.arguments) : call.arguments_bytes);
  const whole = shownBytes >= call.arguments_bytes;
  return (
    <>
      {/* Focusable: long arguments scroll inside it (max-height), and a keyboard must be able to scroll them too. */}
      <pre className="tool-call-args" tabIndex={0}>
        {/* A prefix is not JSON: shown as it was written until it is whole. */}
        <TerminalText text={whole ? prettyArguments(shown) : shown} ansi={false} />
      </pre>
      {!whole && (
        <div className="tool-call-cut">
          <span className="tool-call-cut-note">
            showing {formatBytes(shownBytes)} of {formatBytes(call.arguments_bytes)}
          </span>{' '}
          <button
            type="button"
            aria-label={`Show more of the arguments of tool call ${nameText(call.name)}`}
            disabled={more?.loading}
            onClick={() => void showMore(row, index)}
          >
            Show more
          </button>
          {more?.error && <span className="tool-call-cut-error"> {more.error}</span>}
        </div>
      )}
    </>
  );
}

export function ToolCalls({ calls, row }: { calls: readonly ToolCall[]; row: number }) {
  return (
    <div className="tool-calls">
      {calls.map((call, k) => (
        <div key={`${call.id}-${k}`} className="tool-call" role="group" aria-label={`Tool call ${nameText(call.name)}`}>
          <div className="tool-call-head">
            <span className="tool-call-icon" aria-hidden="true">
              ⚙
            </span>
            <span className="tool-call-name">{nameText(call.name)}</span>
            <span className="tool-call-id">{nameText(call.id)}</span>
          </div>
          <ToolCallArguments call={call} row={row} index={k} />
        </div>
      ))}
    </div>
  );
}
