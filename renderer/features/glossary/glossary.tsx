/**
 * A short glossary of the words the app shows, in SPEC's words (§2, §3.5, §5.5,
 * §10.1), reached from the help dialog as a disclosure (keyboard: Tab to `Glossary`, Enter).
 */
import './glossary.css';

/** Term → meaning. Exported so a test can hold every reduction kind to having its entry. */
export const GLOSSARY: readonly (readonly [string, string])[] = [
  ['tool_output_truncated (truncated)', 'The model saw the first kept_bytes of a tool output, then the stub; the rest is hidden.'],
  ['tool_output_elided (elided)', 'The model saw only the stub in place of the whole tool output.'],
  ['duplicate_output (duplicate)', 'An output byte-identical to an earlier one (its canonical) was replaced by a stub.'],
  ['turns_cleared (turns cleared)', 'A range of messages was replaced by one stub row; its original is the transcript of the range.'],
  ['summarized', 'A range of messages was replaced by a summary the model saw instead (an agent’s compaction); one compaction that kept some messages is several runs sharing one group.'],
  ['minted vs recorded', 'The minted view is the messages reductions were minted against; recorded copies are the recorder’s full-fidelity copy of each message. Under the gate they are identical; otherwise a capped minted copy is expanded from the recorded one.'],
  ['gate (TR-12)', 'A session recorded with both a recorder and a reduction policy installed: history is never capped, so minted and recorded bytes are identical.'],
  ['provenance', 'recorded: the file holds a record of the reduction itself (native sidecar reductions, a compaction event). derived: found by comparing the recorded input of a model call with the full history in the same file.'],
  ['hash_origin', 'Where a reduction’s hash came from: recorded in the file, or computed at import (“hashed at import”). Every expand re-verifies it; “verified” never claims more.'],
  ['why a duplicate can hide 0 bytes', 'A duplicate hides nothing while its canonical is fully visible (no other live reduction addresses it and no cleared range encloses it): the model still saw the same bytes there.'],
  ['original not recorded', 'The agent cut the output without keeping its bytes (ptr.hash is null): expand answers original_unavailable and says what the file does record; search skips it.'],
  ['model call', 'Call N produced the N-th assistant message; its input is the view just before that message, with every reduction recorded before it applied.'],
  ['model switch', 'The session moved to another model; reasoning artifacts (REASONING_METADATA_KEYS, reasoning content parts) of the messages before it were stripped, and reasoning_artifacts_filtered counts them.'],
  ['rewind', 'The view was cut back to a shorter length: the messages past it were abandoned (the sidecar keeps them) and reductions addressing them left the log.'],
];

export function Glossary() {
  return (
    <details className="glossary">
      <summary>Glossary</summary>
      <dl className="glossary-list">
        {GLOSSARY.map(([term, meaning]) => (
          <div key={term} className="glossary-item">
            <dt>{term}</dt>
            <dd>{meaning}</dd>
          </div>
        ))}
      </dl>
    </details>
  );
}
