/**
 * A stub as the model saw it, made clickable: the reduction's kind, the bytes it hides, where its
 * bytes come from (`minted`/`recorded`) and whether they verified. It toggles the reduction's
 * content open under the row.
 */
import { useEffect } from 'react';
import { useApp } from '../../store/storeContext';
import { formatBytes, kindLabel } from '../../text/format';
import { stubHiddenBytes } from '../../text/stubText';
import './stubChip.css';
import { nameText } from '../../text/nameText';

interface Props {
  id: string;
  kind: string;
  /** The stub text the model saw, when the row holds it (shown as the chip's tooltip). */
  stub?: string;
}

function statusLabel(status: string | undefined): string {
  switch (status) {
    case undefined:
      return 'checking…';
    case 'verified':
      return 'verified';
    case 'hash_mismatch':
      return 'hash mismatch';
    case 'address_out_of_range':
      return 'address out of range';
    case 'unknown_reduction':
      return 'unknown reduction';
    default:
      return status;
  }
}

export function StubChip({ id, kind, stub }: Props) {
  const status = useApp((s) => s.statuses.get(id));
  const open = useApp((s) => s.openReduction?.id === id);
  const toggle = useApp((s) => s.toggleReduction);
  const requestStatuses = useApp((s) => s.requestStatuses);
  // Each chip asks for its own status while it is mounted (the store batches the asks): a row of
  // 100,000 reductions verifies the few chips on screen, not all of them.
  useEffect(() => requestStatuses([id]), [id, requestStatuses]);
  const hidden = status?.hidden_bytes ?? (stub !== undefined ? stubHiddenBytes(stub) : undefined);
  const hiddenText = hidden !== undefined ? `${formatBytes(hidden)} hidden` : 'size unknown';
  const state = statusLabel(status?.status);
  const ok = status?.status === 'verified';
  const symbol = ok ? '✓ ' : status ? '⚠ ' : '';
  // What the chip shows, word for word; its accessible name is SPEC §7.1's "Expand reduction" (or
  // "Collapse reduction") followed by exactly this text, so the name contains the visible label
  // (WCAG 2.5.3 Label in Name: speech input can say what it sees).
  const parts: { key: string; text: string; className: string }[] = [
    { key: 'id', text: nameText(id), className: 'stub-chip-id' },
    { key: 'kind', text: kindLabel(kind), className: 'stub-chip-kind' },
    { key: 'bytes', text: hiddenText, className: 'stub-chip-bytes' },
    ...(status?.source ? [{ key: 'source', text: status.source, className: 'stub-chip-source' }] : []),
    { key: 'status', text: `${symbol}${state}`, className: `stub-chip-status${ok ? ' is-ok' : status ? ' is-error' : ''}` },
  ];
  const label = `${open ? 'Collapse' : 'Expand'} reduction ${parts.map((p) => p.text).join(' ')}`;
  return (
    <button
      type="button"
      className={`stub-chip kind-${kind}${open ? ' is-open' : ''}${status && !ok ? ' is-bad' : ''}`}
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
  );
}
