/**
 * A stub as the model saw it, made clickable: the reduction's kind, the bytes it hides, where its
 * bytes come from (`minted`/`recorded`), its provenance when it is not a native one, and whether
 * they verified ("hashed at import" for a hash an importer computed, "original not recorded" when
 * the file does not hold the bytes). It toggles the reduction's content open under the row.
 */
import { useEffect } from 'react';
import { useApp } from '../../store/storeContext';
import { formatBytes, kindLabel, provenanceLabel, verificationLabel } from '../../text/format';
import { CanonicalLink } from '../reduction/canonicalLink';
import './stubChip.css';
import { nameText } from '../../text/nameText';
import { tokensText } from '../../text/tokens';
import { figuresOf } from '../../store/tokensSlice';

interface Props {
  id: string;
  kind: string;
  /** The stub text the model saw, when the row holds it (shown as the chip's tooltip). */
  stub?: string;
  /** The hidden bytes the stub states, as the host read them (shown until `verify` answers). */
  statedHidden?: number;
}

export function StubChip({ id, kind, stub, statedHidden }: Props) {
  const status = useApp((s) => s.statuses.get(id));
  const open = useApp((s) => s.openReduction?.id === id);
  const toggle = useApp((s) => s.toggleReduction);
  const requestStatuses = useApp((s) => s.requestStatuses);
  const hiddenTokens = useApp((s) => figuresOf(s, id)?.hidden);
  const requestHiddenTokens = useApp((s) => s.requestHiddenTokens);
  // Each chip asks for its own status while it is mounted (the store batches the asks): a row of
  // 100,000 reductions verifies the few chips on screen, not all of them. Its token figure is
  // asked after (SPEC §15: estimates never delay the rows) and filled in when it lands.
  useEffect(() => {
    requestStatuses([id]);
    requestHiddenTokens([id]);
  }, [id, requestStatuses, requestHiddenTokens]);
  const hidden = status?.hidden_bytes ?? statedHidden;
  const hiddenText = hidden !== undefined ? `${formatBytes(hidden)} hidden` : 'size unknown';
  const state = verificationLabel(status);
  const ok = status?.status === 'verified';
  // Not held by the file is what the file says, not a fault found in it: no warning sign.
  const unavailable = status?.status === 'original_unavailable';
  const bad = status !== undefined && !ok && !unavailable;
  const symbol = ok ? '✓ ' : bad ? '⚠ ' : '';
  const provenance = provenanceLabel(status);
  // What the chip shows, word for word; its accessible name is SPEC §7.1's "Expand reduction" (or
  // "Collapse reduction") followed by exactly this text, so the name contains the visible label
  // (WCAG 2.5.3 Label in Name: speech input can say what it sees).
  const parts: { key: string; text: string; className: string }[] = [
    { key: 'id', text: nameText(id), className: 'stub-chip-id' },
    { key: 'kind', text: kindLabel(kind), className: 'stub-chip-kind' },
    { key: 'bytes', text: hiddenText, className: 'stub-chip-bytes' },
    ...(hiddenTokens ? [{ key: 'tokens', text: tokensText(hiddenTokens), className: 'stub-chip-tokens' }] : []),
    // An import's `minted` names no view the user knows: the expanded region says where its bytes are.
    ...(status?.source && status.original_from === undefined ? [{ key: 'source', text: status.source, className: 'stub-chip-source' }] : []),
    ...(provenance ? [{ key: 'provenance', text: provenance, className: 'stub-chip-provenance' }] : []),
    { key: 'status', text: `${symbol}${state}`, className: `stub-chip-status${ok ? ' is-ok' : bad ? ' is-error' : ''}` },
  ];
  const label = `${open ? 'Collapse' : 'Expand'} reduction ${parts.map((p) => p.text).join(' ')}`;
  return (
    <>
    <button
      type="button"
      className={`stub-chip kind-${kind}${open ? ' is-open' : ''}${bad ? ' is-bad' : ''}`}
      aria-label={label}
      aria-expanded={open}
      title={stub}
      // The click also reaches the row, which selects it: Enter and Esc then act on this stub.
      onClick={() => toggle(id)}
    >
      <span className="stub-chip-caret" aria-hidden="true">
        {open ? '▾' : '▸'}
      </span>
      {parts.map((p, k) => (
        <span key={p.key} className={p.className}>
          {k > 0 ? ' ' : ''}
          {p.text}
        </span>
      ))}
    </button>
    {kind === 'duplicate_output' && <CanonicalLink id={id} />}
    </>
  );
}
