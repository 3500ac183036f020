/**
 * The open reduction's content, under its stub: where the bytes come from and whether they
 * verified, the byte-range slider and inputs, the range the host actually returned, the content
 * itself (ANSI colours, visible control characters, the highlighted match) and `Load more`.
 */
import { useEffect, useMemo, useRef, useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { utf8Length } from '../../../shared/utf8';
import type { ByteRange, Expansion } from '../../store/reductionsSlice';
import { shownRange } from '../../store/reductionsSlice';
import { useApp } from '../../store/storeContext';
import { formatBytes } from '../../text/format';
import { byteRangeToIndices } from '../../text/utf8Offsets';
import { RangeSlider } from '../../widgets/rangeSlider';
import { TerminalText } from '../../widgets/terminalText';
import './reductionRegion.css';
import { nameText } from '../../text/nameText';

const NO_EXPANSIONS: (Expansion | undefined)[] = [];

function errorHint(code: string): string {
  switch (code) {
    case 'hash_mismatch':
      return 'The bytes at this address are not the ones the reduction recorded; the Findings tab lists the mismatch.';
    case 'address_out_of_range':
      return 'The reduction points past the end of the view; the Findings tab lists it.';
    case 'invalid_byte_range':
      return 'Choose a start at or below the end, within the content.';
    case 'original_unavailable':
      return 'The session file keeps only what the model was shown in its place; the original bytes were never recorded.';
    default:
      return 'Collapse and expand the reduction to try again.';
  }
}

function RangeInput({ label, value, max, onCommit }: { label: string; value: number; max: number; onCommit: (v: number) => void }) {
  const [draft, setDraft] = useState<string | null>(null);
  return (
    <label className="range-input">
      <span>{label === 'Range start' ? 'Start' : 'End'}</span>
      <input
        type="number"
        inputMode="numeric"
        aria-label={label}
        min={0}
        max={max}
        step={1}
        value={draft ?? String(value)}
        onChange={(e) => {
          setDraft(e.target.value);
          const v = Number(e.target.value);
          if (e.target.value.trim() !== '' && Number.isFinite(v)) onCommit(Math.max(0, Math.min(max, Math.floor(v))));
        }}
        onBlur={() => setDraft(null)}
      />
    </label>
  );
}

export function ReductionRegion({ id }: { id: string }) {
  const open = useApp((s) => (s.openReduction?.id === id ? s.openReduction : null));
  const status = useApp((s) => s.statuses.get(id));
  const requestStatuses = useApp((s) => s.requestStatuses);
  // Opened by navigation, its chip may not be mounted (virtualized): the header asks for itself.
  useEffect(() => requestStatuses([id]), [id, requestStatuses]);
  const expansions = useApp(useShallow((s) => (open ? open.chunks.map((k) => s.expansions.get(k)) : NO_EXPANSIONS)));
  const setShownRange = useApp((s) => s.setShownRange);
  const loadMore = useApp((s) => s.loadMore);

  const outcomes = useMemo(() => {
    const out = [];
    for (const e of expansions) {
      if (e?.status !== 'ready') break;
      out.push(e.outcome);
    }
    return out;
  }, [expansions]);
  const failed = expansions.find((e) => e?.status === 'error');
  const loading = expansions.some((e) => e === undefined || e.status === 'loading');
  const content = useMemo(() => outcomes.map((o) => o.content).join(''), [outcomes]);
  const shown = shownRange(outcomes);
  const latest = outcomes[outcomes.length - 1];
  const total = latest?.total_bytes ?? status?.total_bytes;
  const source = latest?.source ?? status?.source;

  const highlight = open?.highlight ?? null;
  const shownStart = shown?.[0];
  const marks = useMemo((): readonly (readonly [number, number])[] => {
    if (!highlight || shownStart === undefined) return [];
    const from = highlight.offset - shownStart;
    const to = from + highlight.length;
    if (to <= 0 || from >= utf8Length(content)) return [];
    return [byteRangeToIndices(content, [Math.max(0, from), to])];
  }, [highlight, shownStart, content]);

  // Scroll the highlighted match into sight once per navigation.
  const markRef = useRef<HTMLElement | null>(null);
  const scrolledSeq = useRef(0);
  useEffect(() => {
    if (!highlight || highlight.seq === scrolledSeq.current || !markRef.current) return;
    scrolledSeq.current = highlight.seq;
    const el = markRef.current;
    const frame = requestAnimationFrame(() => el.scrollIntoView({ block: 'center', inline: 'nearest' }));
    return () => cancelAnimationFrame(frame);
  });

  if (!open) return null;
  const requested: ByteRange = open.requested ?? shown ?? [0, 0];
  const max = total ?? 0;
  const error = failed?.status === 'error' ? failed.error : null;
  let hash: { text: string; tone: 'ok' | 'error' | '' };
  if (error?.code === 'original_unavailable') hash = { text: 'original not recorded', tone: '' };
  else if (error) hash = { text: `hash status: ${error.code.replace(/_/g, ' ')}`, tone: 'error' };
  // A hash an importer computed proves only that these are the bytes it hashed (SPEC §10.1).
  else if (latest) hash = status?.hash_origin === 'import' ? { text: '✓ hashed at import', tone: 'ok' } : { text: '✓ hash verified', tone: 'ok' };
  else if (status?.status === 'original_unavailable') hash = { text: 'original not recorded', tone: '' };
  else if (status && status.status !== 'verified') hash = { text: `hash status: ${status.status.replace(/_/g, ' ')}`, tone: 'error' };
  else hash = { text: 'hash: checking…', tone: '' };

  return (
    <section
      className="reduction-region"
      role="region"
      aria-label={`Reduction ${nameText(id)} content`}
      {...(source ? { 'data-source': source } : {})}
      {...(total !== undefined ? { 'data-total-bytes': String(total) } : {})}
      onClick={(e) => e.stopPropagation()}
    >
      <p className="reduction-region-header">
        <span className="reduction-region-source">{source ? `Source ${source}` : 'Source unknown'}</span>
        <span aria-hidden="true"> · </span>
        <span>{total !== undefined ? `${total} bytes total (${formatBytes(total)})` : 'size unknown'}</span>
        <span aria-hidden="true"> · </span>
        <span className={hash.tone ? `is-${hash.tone}` : undefined}>{hash.text}</span>
      </p>
      {total !== undefined && (
        <div className="reduction-range">
          <RangeSlider max={max} value={requested} onChange={setShownRange} startLabel="Range start" endLabel="Range end" unit="bytes" />
          <div className="reduction-range-inputs">
            <RangeInput label="Range start" value={requested[0]} max={max} onCommit={(v) => setShownRange([v, Math.max(v, requested[1])])} />
            <RangeInput label="Range end" value={requested[1]} max={max} onCommit={(v) => setShownRange([Math.min(requested[0], v), v])} />
            <output className="reduction-shown-range" aria-label="Shown range">
              {shown ? `Shown range: bytes ${shown[0]}–${shown[1]} of ${total}` : 'Shown range: loading…'}
            </output>
          </div>
        </div>
      )}
      {error && (
        <p className="reduction-error" role="alert">
          {error.message} {errorHint(error.code)}
        </p>
      )}
      {(outcomes.length > 0 || (!error && loading)) && (
        <pre className="reduction-content" role="code" aria-label={`Reduction ${nameText(id)} bytes`} aria-busy={loading || undefined} tabIndex={0}>
          <TerminalText text={content} marks={marks} markRef={markRef} />
          {loading && <span className="reduction-loading">{outcomes.length > 0 ? '\n' : ''}Loading…</span>}
        </pre>
      )}
      {shown && total !== undefined && shown[1] < total && !error && (
        <button type="button" className="reduction-load-more" onClick={loadMore} disabled={loading}>
          Load more
        </button>
      )}
    </section>
  );
}
