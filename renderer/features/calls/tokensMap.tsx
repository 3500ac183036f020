/**
 * The `Context map` in tokens (SPEC §15, docs/tokens.md "In the app"): per model call the context
 * — recorded solid, estimated hatched and outlined (told apart by pattern, not colour alone) —
 * its cache reads shaded at the bar's foot, the estimated tokens hidden by reductions above it,
 * the window as a line, and in the lane below cache breaks, compactions and model switches.
 *
 * Hand-drawn SVG like the map in bytes (contextMap.tsx), not a chart library: the same few paths
 * over at most MAP_BUCKETS buckets whatever the number of calls, the theme's colours, no resize
 * handling, no dependency; a library would draw one node per call (100,000 calls) or need its own
 * aggregation, and its accessibility would be ours to add anyway. Assistive technology gets the
 * `img`'s sentence (naming tokens and the window), the `Context map figures` table and the list
 * of cache breaks, each a button to the call.
 *
 * The recorded figures come with the `calls` reply; the estimates (`tokenMap`) are asked for once
 * the map has drawn, a slice at a time, and drawn as they come (`estimating… N of M calls` until
 * the last), and the shown call's breakdown (`callTokens`) when a call is shown.
 */
import { memo, useEffect, useMemo, useState } from 'react';
import { countOf, formatCount } from '../../text/format';
import { useApp } from '../../store/storeContext';
import type { MapProps } from './contextMapModel';
import { FIGURE_ROWS, HEIGHT, MAP_BUCKETS, MARKS, callAtX } from './contextMapModel';
import type { TokenBucket, TokenCall } from './contextMapTokens';
import type { CacheBreakInfo } from './contextMapTokens';
import { BREAK_ROWS, breakCauseText, breakMarks, bucketBreaksText, calibrationText, compactionText, notInFileText, estimatingText, switchText, tokenBuckets, tokenCalls, tokenSummary, tokensText } from './contextMapTokens';
import { FiguresTable, MapKey, callsLabel } from './mapKey';

const LEGEND: [string, string][] = [
  ['context-map-recorded', 'recorded'],
  ['context-map-cached', 'cache read'],
  ['context-map-estimated', 'estimated'],
  ['context-map-hidden-tokens', 'hidden (est.)'],
  ['context-map-window', 'window'],
  ['context-map-break', 'cache break'],
  ['context-map-compaction', 'compaction'],
  ['context-map-switch', 'model switch'],
];

/** The bars, window line and marks as paths over `buckets` (one unit of width each). */
function chartPaths(buckets: readonly TokenBucket[]) {
  let top = 1;
  for (const b of buckets) top = Math.max(top, b.context + (b.hidden ?? 0), b.window ?? 0);
  const y = (v: number): number => (v / top) * HEIGHT;
  let recorded = '';
  let cached = '';
  let estimated = '';
  let hidden = '';
  let window = '';
  let compactions = '';
  buckets.forEach((b, x) => {
    const c = y(b.cached);
    const f = y(b.fresh);
    const h = y(b.hidden ?? 0);
    if (c > 0) cached += `M${x} ${HEIGHT}h1v${-c}h-1z`;
    if (f > 0) {
      const bar = `M${x} ${HEIGHT - c}h1v${-f}h-1z`;
      if (b.source === 'estimated') estimated += bar;
      else recorded += bar;
    }
    if (h > 0) hidden += `M${x} ${HEIGHT - c - f}h1v${-h}h-1z`;
    if (b.window !== null) window += `M${x} ${HEIGHT - y(b.window)}h1`;
    if (b.compactions.length > 0) compactions += `M${x} ${HEIGHT + MARKS / 3 + 1}h1v${MARKS / 3}h-1z`;
  });
  return { recorded, cached, estimated, hidden, window, compactions };
}

/** One figure of the table: the tokens with `est.` for an estimate, '–' for none. */
const figure = (n: number | null, source: TokenCall['source']): string => (n === null ? '–' : tokensText(n, source));

/**
 * What the call's context was made of (SPEC §15 context breakdown), from `callTokens`: asked once
 * the map's pass has ended (`ready`), since its calibration is the pass's own walk over every call,
 * which one `callTokens` request would otherwise do at once while the worker's other requests wait.
 */
function Breakdown({ call, ready }: { call: number; ready: boolean }) {
  const tokens = useApp((s) => s.callTokens);
  const load = useApp((s) => s.loadCallTokens);
  useEffect(() => {
    if (ready) void load(call);
  }, [call, load, ready]);
  if (!ready || tokens?.call !== call) return null;
  const b = tokens.breakdown;
  const parts: [string, number][] = [
    ['system', b.system],
    ['user', b.user],
    ['assistant', b.assistant],
    ['tool results', b.tool_results],
    ['summaries', b.summaries],
    ['other', b.other],
  ];
  const cal = tokens.calibration;
  return (
    <p className="context-map-note context-map-breakdown">
      {`Call ${formatCount(call)}, est. in the file: ${parts
        .filter(([, n]) => n > 0)
        .map(([name, n]) => `${name} ${formatCount(n)}`)
        .join(', ')}${b.not_in_file !== undefined ? `; ${notInFileText(b.not_in_file)}` : ''}${cal ? ` — ${calibrationText(cal)}` : ''}${b.approximate ? ', approximate' : ''}.`}
    </p>
  );
}

const NO_BREAKS: CacheBreakInfo[] = [];

/**
 * The cache breaks, each a button to its call (and to the message that changed): the first
 * BREAK_ROWS in call order, then as many more at each `Show … more`. Its own component, kept
 * while the estimates' replies redraw the chart: the breaks come with the `calls` reply and do not
 * change with them (docs/tokens.md "In the app").
 */
const BreakList = memo(function BreakList({ breaks }: { breaks: readonly CacheBreakInfo[] }) {
  const showCall = useApp((s) => s.showCall);
  const goToIndex = useApp((s) => s.goToIndex);
  const [shown, setShown] = useState(BREAK_ROWS);
  const goToBreak = async (b: CacheBreakInfo): Promise<void> => {
    await showCall(b.call);
    if (b.cause) await goToIndex(b.cause.message_index, b.cause.reduction !== undefined ? { reductionId: b.cause.reduction } : {});
  };
  const rest = breaks.length - shown;
  return (
    <>
      <ul className="context-map-breaks" aria-label="Cache breaks">
        {breaks.slice(0, shown).map((b) => (
          <li key={b.call}>
            <button type="button" className="context-map-break-go" onClick={() => void goToBreak(b)}>
              {`Cache break at call ${formatCount(b.call)}`}
            </button>
            {`: ${countOf(b.tokens_rewritten, 'token')} rewritten; ${breakCauseText(b)}`}
          </li>
        ))}
      </ul>
      {rest > 0 && (
        <button type="button" className="context-map-breaks-more" onClick={() => setShown(shown + BREAK_ROWS)}>
          {`Show ${formatCount(Math.min(BREAK_ROWS, rest))} more cache breaks (${formatCount(rest)} not shown)`}
        </button>
      )}
    </>
  );
});

export function TokensMap({ map, shownCall, onSelect }: MapProps) {
  const tokenMap = useApp((s) => s.tokenMap);
  const status = useApp((s) => s.tokenMapStatus);
  const loadTokenMap = useApp((s) => s.loadTokenMap);
  const stopTokenMap = useApp((s) => s.stopTokenMap);
  // After the map has drawn (an effect runs after paint): estimates never hold up the first rows.
  useEffect(() => {
    void loadTokenMap();
  }, [map, loadTokenMap]);
  // The map in tokens gone (the unit switched to bytes, the session closed): no further slice is asked for.
  useEffect(() => stopTokenMap, [stopTokenMap]);
  const calls = useMemo(() => tokenCalls(map, tokenMap), [map, tokenMap]);
  const buckets = useMemo(() => tokenBuckets(calls, map, MAP_BUCKETS), [calls, map]);
  const paths = useMemo(() => chartPaths(buckets), [buckets]);
  const pending = status === 'loading' || status === 'idle';
  const summary = useMemo(() => tokenSummary(map, calls, tokenMap, pending), [map, calls, tokenMap, pending]);
  const figureBuckets = useMemo(() => tokenBuckets(calls, map, Math.min(map.calls, FIGURE_ROWS)), [calls, map]);
  const width = Math.max(1, buckets.length);
  const xOf = (call: number): number => ((call - 0.5) / map.calls) * width;
  const breaks = map.cache_breaks ?? NO_BREAKS;
  const marks = useMemo(() => breakMarks(buckets), [buckets]);

  return (
    <div className="context-map context-map-tokens">
      <svg
        className="context-map-chart"
        role="img"
        aria-label="Context map"
        aria-describedby="context-map-summary"
        viewBox={`0 0 ${width} ${HEIGHT + MARKS}`}
        preserveAspectRatio="none"
        onClick={(e) => {
          const box = e.currentTarget.getBoundingClientRect();
          onSelect(callAtX(e.clientX - box.left, box.width, map.calls));
        }}
      >
        <defs>
          <pattern id="context-map-hatch" patternUnits="userSpaceOnUse" width="4" height="4" patternTransform="rotate(45)">
            <rect className="context-map-hatch-ground" width="4" height="4" />
            <line className="context-map-hatch-line" x1="0" y1="0" x2="0" y2="4" />
          </pattern>
        </defs>
        <path className="context-map-cached" d={paths.cached} />
        <path className="context-map-recorded" d={paths.recorded} />
        <path className="context-map-estimated" d={paths.estimated} fill="url(#context-map-hatch)" vectorEffect="non-scaling-stroke" />
        <path className="context-map-hidden-tokens" d={paths.hidden} />
        <path className="context-map-window" d={paths.window} vectorEffect="non-scaling-stroke" data-mark="window" />
        {marks.map((m) => (
          <rect key={`b${m.call}`} className="context-map-break" data-mark="cache-break" data-call={m.call} data-breaks={m.count} x={xOf(m.call) - 0.5} y={HEIGHT + 1} width={1} height={MARKS / 3} />
        ))}
        <path className="context-map-compaction" d={paths.compactions} data-mark="compactions" />
        {map.model_switches.map((s) => (
          <rect key={`m${s.call}`} className="context-map-switch" data-mark="model-switch" data-call={s.call} x={xOf(s.call) - 0.5} y={HEIGHT + (2 * MARKS) / 3 + 1} width={1} height={MARKS / 3 - 1} />
        ))}
        {shownCall !== null && <line className="context-map-shown" x1={xOf(shownCall)} x2={xOf(shownCall)} y1={0} y2={HEIGHT + MARKS} vectorEffect="non-scaling-stroke" />}
      </svg>
      <MapKey legend={LEGEND} summary={summary} />
      {/* What is known shows as it comes; the rest is marked pending, in words. */}
      <p className="context-map-note context-map-progress" role="status">
        {pending ? estimatingText(tokenMap) : ''}
      </p>
      <Breakdown call={shownCall ?? map.calls} ready={status === 'ready'} />
      {breaks.length > 0 && <BreakList breaks={breaks} />}
      <FiguresTable columns={['Calls', 'Context (tokens)', 'Cache read', 'Hidden (est.)', 'Window', 'Events']} grouped={map.calls > FIGURE_ROWS}>
        {figureBuckets.map((b) => (
          <tr key={b.first}>
            <th scope="row">{callsLabel(b)}</th>
            <td>{b.source === null ? (pending ? 'estimating…' : '–') : figure(b.context, b.source)}</td>
            <td>{b.source === 'recorded' ? formatCount(b.cached) : '–'}</td>
            <td>{b.hidden === null ? '–' : formatCount(b.hidden)}</td>
            <td>{b.window === null ? 'unknown' : formatCount(b.window)}</td>
            <td>
              {[
                ...bucketBreaksText(b.breaks),
                ...b.compactions.map(compactionText),
                ...map.model_switches.filter((s) => s.call >= b.first && s.call <= b.last).map((s) => switchText(s, calls)),
              ].join('; ')}
            </td>
          </tr>
        ))}
      </FiguresTable>
    </div>
  );
}
