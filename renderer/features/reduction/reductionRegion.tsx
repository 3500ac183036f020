/**
 * The open reduction's content, under its stub: where the bytes come from and whether they
 * verified, the byte-range slider and inputs, the range the host actually returned, the content
 * itself (ANSI colours, visible control characters, the highlighted match) and `Load more`.
 */
import type { Ref } from 'react';
import { Fragment, memo, useEffect, useMemo, useRef, useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import type { ByteRange, ExpandOutcome, Expansion, Highlight } from '../../store/reductionsSlice';
import { shownRange } from '../../store/reductionsSlice';
import { useApp } from '../../store/storeContext';
import type { SearchPaging } from '../../store/searchSlice';
import { countOf, formatBytes, sourceLabel } from '../../text/format';
import type { StorySegment } from './story';
import { mergedBoundaries, mergedHidden, storyMessages, storySegments } from './story';
import { RangeSlider } from '../../widgets/rangeSlider';
import { CopyRange } from './copyRange';
import { TerminalRuns, TerminalText } from '../../widgets/terminalText';
import { terminalSegments } from '../../text/terminalText';
import type { Piece } from './pieces';
import { cutPieces, parsedPieces, quickPieces } from './pieces';
import './reductionRegion.css';
import { nameText } from '../../text/nameText';
import { ReproBundleButton } from '../bundle/reproBundle';

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

/**
 * A range end typed as a number; each change is committed. While it has focus it shows what is
 * typed, or what it showed when focused: a window landing meanwhile (the first one, `Load more`)
 * does not rewrite the text under the caret, which would drop a selection and append what is typed
 * next to the new value. It shows the range again on blur.
 */
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
        onFocus={(e) => {
          const shown = e.currentTarget.value;
          setDraft((d) => d ?? shown);
        }}
        onBlur={() => setDraft(null)}
      />
    </label>
  );
}

/**
 * A byte offset to show the window at, read alone (not the range from the start to it).
 * Enter or `Show window` jumps; the range inputs and the slider then show the window.
 */
function JumpInput({ max, onJump }: { max: number; onJump: (offset: number) => void }) {
  const [draft, setDraft] = useState('');
  // Not a <form>: the hostile-content specs hold that no form element is ever on the page.
  const jump = (): void => {
    const v = Number(draft);
    if (draft.trim() !== '' && Number.isFinite(v)) onJump(Math.max(0, Math.min(max, Math.floor(v))));
  };
  return (
    <span className="range-jump">
      <label className="range-input">
        <span>Jump to byte</span>
        <input
          type="number"
          inputMode="numeric"
          aria-label="Jump to byte"
          min={0}
          max={max}
          step={1}
          value={draft}
          onChange={(e) => setDraft(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter') jump();
          }}
        />
      </label>
      <button type="button" className="range-jump-go" onClick={jump}>
        Show window
      </button>
    </span>
  );
}

/** The visible key to the two styles (the same names assistive technology hears). */
function StoryLegend() {
  return (
    <p className="reduction-legend" aria-hidden="true">
      <span className="reduction-legend-seen">Seen by the model</span> <span className="reduction-legend-hidden">Hidden from the model</span>
    </p>
  );
}

/** A line of the content, in pixels (12px/1.5): the height a block piece is thought to have before it is laid out. */
const LINE_PX = 18;

/** Block pieces styled from the start, besides the marked ones: those at the top of a window (in sight after a jump). */
const STYLED_AT_FIRST = 2;
/** How far beyond the content's scroll box a piece is styled before it comes into sight. */
const STYLE_MARGIN = '200% 0px';

/**
 * A run of an output's window as pieces (pieces.ts), parsed once. The browser lays out
 * only the pieces in sight of the content's scroll box (`content-visibility: auto`); a piece
 * shows its text plain (the same characters: escapes out, controls as symbols) until it comes near
 * it, then with its colours and marks. A marked piece is styled at once (its mark is scrolled to).
 */
const PiecedText = memo(function PiecedText({ text, marks, markRef }: { text: string; marks: readonly (readonly [number, number])[]; markRef?: Ref<HTMLElement> | undefined }) {
  // The characters first (a quick pass, when only colours are to interpret and nothing is marked),
  // the colours when the app is idle; else the whole parse at once.
  const quick = useMemo(() => (marks.length === 0 ? quickPieces(text) : undefined), [text, marks]);
  const full = useMemo(() => (quick ? null : cutPieces(terminalSegments(text, { marks }))), [text, marks, quick]);
  const [parsed, setParsed] = useState<{ text: string; pieces: Piece[] } | null>(null);
  useEffect(() => {
    if (!quick) return;
    const run = (): void => setParsed({ text, pieces: parsedPieces(text, quick) });
    if (typeof requestIdleCallback !== 'function') {
      const timer = setTimeout(run, 0);
      return () => clearTimeout(timer);
    }
    const idle = requestIdleCallback(run, { timeout: 500 });
    return () => cancelIdleCallback(idle);
  }, [text, quick]);
  const pieces = full ?? (parsed?.text === text ? parsed.pieces : null);
  const [near, setNear] = useState<ReadonlySet<number>>(() => new Set());
  const observer = useRef<IntersectionObserver | null>(null);
  useEffect(() => () => observer.current?.disconnect(), []);
  const observe = (el: HTMLElement | null): void => {
    if (!el) return;
    if (!observer.current) {
      observer.current = new IntersectionObserver(
        (entries) => {
          const came = entries.filter((e) => e.isIntersecting).map((e) => Number((e.target as HTMLElement).dataset.piece));
          if (came.length > 0) setNear((prev) => new Set([...prev, ...came]));
        },
        { root: el.closest('[role="code"]'), rootMargin: STYLE_MARGIN },
      );
    }
    observer.current.observe(el);
  };
  if (!pieces && quick) {
    return (
      <>
        {quick.shown.map((r, k) =>
          r.block ? (
            <span key={k} className="content-piece" data-piece={k} ref={observe} style={{ containIntrinsicBlockSize: `auto ${Math.max(1, countNewlines(quick.texts[k] ?? '')) * LINE_PX}px` }}>
              {quick.texts[k]}
            </span>
          ) : (
            <Fragment key={k}>{quick.texts[k]}</Fragment>
          ),
        )}
      </>
    );
  }
  const all = pieces ?? [];
  const withMark = markRef ? all.findIndex((p) => p.marked) : -1;
  let blocks = 0;
  return (
    <>
      {all.map((p, k) => {
        const ref = k === withMark ? markRef : undefined;
        if (!p.block) return <TerminalRuns key={k} segments={p.segments} markRef={ref} />;
        const styled = p.marked || blocks++ < STYLED_AT_FIRST || near.has(k);
        return (
          <span
            key={k}
            className="content-piece"
            data-piece={k}
            ref={styled ? undefined : observe}
            style={{ containIntrinsicBlockSize: `auto ${Math.max(1, p.lines) * LINE_PX}px` }}
          >
            {styled ? <TerminalRuns segments={p.segments} markRef={ref} /> : p.text}
          </span>
        );
      })}
    </>
  );
});

function countNewlines(text: string): number {
  let n = 0;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

/**
 * Seen runs inside the element named "Seen by the model"; hidden runs inside the one named "Hidden
 * from the model", unless `withinHidden` (a range's rows already sit inside one). `pieced`: an
 * output's window, cut into pieces (PiecedText).
 */
function Segments({ segments, markRef, withinHidden = false, pieced = false }: { segments: readonly StorySegment[]; markRef: Ref<HTMLElement>; withinHidden?: boolean; pieced?: boolean }) {
  const Text = pieced ? PiecedText : TerminalText;
  return (
    <>
      {segments.map((g) =>
        g.hidden && withinHidden ? (
          <Text key={g.bytes[0]} text={g.text} marks={g.marks} markRef={g.current ? markRef : undefined} />
        ) : g.hidden ? (
          <span key={g.bytes[0]} className="reduction-hidden" role="group" aria-label="Hidden from the model">
            <Text text={g.text} marks={g.marks} markRef={g.current ? markRef : undefined} />
          </span>
        ) : (
          <span key={g.bytes[0]} className="reduction-seen" role="group" aria-label="Seen by the model">
            <Text text={g.text} marks={g.marks} markRef={g.current ? markRef : undefined} />
          </span>
        ),
      )}
    </>
  );
}

type Span = readonly [number, number];

/**
 * One window of the open reduction's content: its seen and hidden runs, the marks that
 * fall in it, rendered once. `Load more` adds a chunk and leaves the others' props as they were
 * (the store's outcome objects, the highlight, the hits), so the earlier chunks are not parsed or
 * rendered again. The mark to scroll to (`markRef`) is the highlight's, in the chunk where it starts.
 */
const ContentChunk = memo(function ContentChunk({ outcome, highlight, hits, markRef }: { outcome: ExpandOutcome; highlight: Highlight | null; hits: readonly Span[]; markRef: Ref<HTMLElement> }) {
  const segments = useMemo(() => {
    const [s, e] = outcome.range;
    const meets = (h: Span): boolean => (h[1] > s && h[0] < e) || (h[0] === h[1] && h[0] >= s && h[0] <= e);
    const h: Span | null = highlight ? [highlight.offset, highlight.offset + highlight.length] : null;
    const marks = [...(h && meets(h) ? [h] : []), ...hits.filter(meets)];
    const segs = storySegments(outcome.content, [s, e], outcome.hidden ?? [], marks);
    // Without the highlight here, the first hit is not the one to scroll to.
    return h && meets(h) ? segs : segs.map((g) => (g.current ? { hidden: g.hidden, bytes: g.bytes, text: g.text, marks: g.marks } : g));
  }, [outcome, highlight, hits]);
  return <Segments segments={segments} markRef={markRef} pieced />;
});

/** Whether any shown window holds bytes hidden from the model (the legend is shown then). */
function showsHidden(outcomes: readonly ExpandOutcome[]): boolean {
  return outcomes.some((o) => (o.hidden ?? []).some(([a, b]) => b > o.range[0] && a < o.range[1]));
}

/**
 * The byte ranges (of what `expand` returns: the content, or a range's transcript) of every match
 * of the human view's fetched pages inside reduction `id`.
 */
export function searchHitsIn(paging: SearchPaging | null, id: string): [number, number][] {
  if (!paging || paging.scope !== 'hidden') return [];
  const hits: [number, number][] = [];
  for (const page of paging.pages.values()) {
    for (const m of page.matches) {
      if (m.reduction_id !== id) continue;
      const at = m.kind === 'turns_cleared' || m.kind === 'summarized' ? m.transcript_offset : m.offset;
      if (at !== undefined) hits.push([at, at + m.length]);
    }
  }
  return hits;
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
  const showEarlier = useApp((s) => s.showEarlier);
  const jumpTo = useApp((s) => s.jumpTo);

  const outcomes = useMemo(() => {
    const out = [];
    for (const e of expansions) {
      if (e?.status !== 'ready') break;
      out.push(e.outcome);
    }
    return out;
  }, [expansions]);
  const failed = expansions.find((e) => e?.status === 'error');
  const pending = open?.pending ?? null;
  const loading = pending !== null || expansions.some((e) => e === undefined || e.status === 'loading');
  const shown = shownRange(outcomes);
  const latest = outcomes[outcomes.length - 1];
  const total = latest?.total_bytes ?? status?.total_bytes;
  const source = latest?.source ?? status?.source;

  const highlight = open?.highlight ?? null;
  const shownStart = shown?.[0];
  const shownEnd = shown?.[1];
  // Every hit of the human view's pages fetched so far that falls in this reduction.
  const paging = useApp((s) => s.searchPaging);
  const hits = useMemo(() => searchHitsIn(paging, id), [paging, id]);
  // What the model saw and what was hidden from it, cut at the host's byte offsets (part C). A
  // range's messages are laid out over all its windows at once; an output's windows each by itself.
  const ranged = latest?.messages !== undefined;
  const story = useMemo(() => {
    if (!ranged || shownStart === undefined || shownEnd === undefined) return null;
    const mark: [number, number][] = highlight ? [[highlight.offset, highlight.offset + highlight.length], ...hits] : [...hits];
    return storyMessages(outcomes.map((o) => o.content).join(''), [shownStart, shownEnd], mergedBoundaries(outcomes), mergedHidden(outcomes), mark);
  }, [outcomes, shownStart, shownEnd, highlight, hits, ranged]);
  const copied = (): string => outcomes.map((o) => o.content).join('');

  // Scroll the highlighted match into sight once per navigation. The navigation counts as done when
  // the frame's scroll runs, not when it is asked for: a render before that frame cancels it, and
  // the next render asks again (marking it done first lost the scroll whenever the region rendered
  // twice in one frame — the match then stayed out of sight below the reduction's top).
  const markRef = useRef<HTMLElement | null>(null);
  const scrolledSeq = useRef(0);
  useEffect(() => {
    if (!highlight || highlight.seq === scrolledSeq.current || !markRef.current) return;
    const { seq } = highlight;
    const el = markRef.current;
    const frame = requestAnimationFrame(() => {
      scrolledSeq.current = seq;
      el.scrollIntoView({ block: 'center', inline: 'nearest' });
    });
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
        <span className="reduction-region-source">{sourceLabel({ source, original_from: status?.original_from })}</span>
        <span aria-hidden="true"> · </span>
        <span>{total !== undefined ? `${countOf(total, 'byte')} total (${formatBytes(total)})` : 'size unknown'}</span>
        <span aria-hidden="true"> · </span>
        <span className={hash.tone ? `is-${hash.tone}` : undefined}>{hash.text}</span>
      </p>
      {total !== undefined && (
        <div className="reduction-range">
          <RangeSlider max={max} value={requested} onChange={setShownRange} startLabel="Range start" endLabel="Range end" unit="bytes" />
          <div className="reduction-range-inputs">
            <RangeInput label="Range start" value={requested[0]} max={max} onCommit={(v) => setShownRange([v, Math.max(v, requested[1])])} />
            <RangeInput label="Range end" value={requested[1]} max={max} onCommit={(v) => setShownRange([Math.min(requested[0], v), v])} />
            <JumpInput max={max} onJump={jumpTo} />
            <output className="reduction-shown-range" aria-label="Shown range">
              {shown ? `Shown range: bytes ${shown[0]}–${shown[1]} of ${total}` : 'Shown range: loading…'}
            </output>
          </div>
        </div>
      )}
      {shown && outcomes.length > 0 && <CopyRange id={id} text={copied} range={shown} disabled={loading} />}
      {error && (
        <p className="reduction-error" role="alert">
          {error.message} {errorHint(error.code)}
        </p>
      )}
      {(ranged || showsHidden(outcomes)) && <StoryLegend />}
      {shown && shown[0] > 0 && !error && (
        <button type="button" className="reduction-load-more reduction-show-earlier" onClick={showEarlier} disabled={loading}>
          Show earlier
        </button>
      )}
      {ranged && story ? (
        <div className="reduction-hidden reduction-messages-hidden" role="group" aria-label="Hidden from the model">
          <ol className="reduction-messages" aria-label={`Messages of reduction ${nameText(id)}`} aria-busy={loading || undefined}>
            {story.map((m) => (
              <li key={m.boundary.start} className={`reduction-message role-${m.boundary.role}`} aria-label={`Message ${m.boundary.index} ${m.boundary.role}`}>
                <p className="reduction-message-head">
                  <span className={`role-badge role-badge-${m.boundary.role}`}>{m.boundary.role}</span> <span>message {m.boundary.index}</span>
                  {m.boundary.tool_call_id !== undefined && <span className="reduction-message-call"> {nameText(m.boundary.tool_call_id)}</span>}
                  <span className="reduction-message-bytes"> · {formatBytes(m.boundary.end - 1 - m.boundary.content_start)}</span>
                  <button
                    type="button"
                    className="reduction-message-slice"
                    onClick={() => setShownRange([m.boundary.content_start, m.boundary.end - 1])}
                  >
                    Show only message {m.boundary.index}
                  </button>
                  <CopyRange id={id} text={m.segments.map((g) => g.text).join('')} range={m.shown} what={`of message ${m.boundary.index}`} />
                </p>
                <pre className="reduction-content" role="code" aria-label={`Message ${m.boundary.index} bytes`} tabIndex={0}>
                  <Segments segments={m.segments} markRef={markRef} withinHidden />
                </pre>
              </li>
            ))}
          </ol>
          {loading && <p className="reduction-loading">Loading…</p>}
        </div>
      ) : (
        (outcomes.length > 0 || (!error && loading)) && (
          <pre className="reduction-content" role="code" aria-label={`Reduction ${nameText(id)} bytes`} aria-busy={loading || undefined} tabIndex={0}>
            {pending?.side === 'before' && <span className="reduction-loading">Loading…{'\n'}</span>}
            {outcomes.map((o, k) => (
              <ContentChunk key={open.chunks[k]} outcome={o} highlight={highlight} hits={hits} markRef={markRef} />
            ))}
            {loading && pending?.side !== 'before' && <span className="reduction-loading">{outcomes.length > 0 ? '\n' : ''}Loading…</span>}
          </pre>
        )
      )}
      {shown && total !== undefined && shown[1] < total && !error && (
        <button type="button" className="reduction-load-more" onClick={loadMore} disabled={loading}>
          Load more
        </button>
      )}
      <ReproBundleButton ids={[id]} />
    </section>
  );
}
