/** An assistant message's tool calls: each a `Tool call <name>` group with its arguments (pretty-printed when they are JSON). */
import type { ProjectedRowInfo } from '../../../shared/contract';
import { TerminalText } from '../../widgets/terminalText';
import './toolCalls.css';

type ToolCall = NonNullable<ProjectedRowInfo['tool_calls']>[number];

/** The arguments as the model wrote them, indented when they parse as JSON. */
export function prettyArguments(args: string): string {
  try {
    return JSON.stringify(JSON.parse(args), null, 2);
  } catch {
    return args;
  }
}

export function ToolCalls({ calls }: { calls: readonly ToolCall[] }) {
  return (
    <div className="tool-calls">
      {calls.map((call, k) => (
        <div key={`${call.id}-${k}`} className="tool-call" role="group" aria-label={`Tool call ${call.name}`}>
          <div className="tool-call-head">
            <span className="tool-call-icon" aria-hidden="true">
              ⚙
            </span>
            <span className="tool-call-name">{call.name}</span>
            <span className="tool-call-id">{call.id}</span>
          </div>
          <pre className="tool-call-args">
            <TerminalText text={prettyArguments(call.arguments)} ansi={false} />
          </pre>
        </div>
      ))}
    </div>
  );
}
