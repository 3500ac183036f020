/**
 * The `Context map` chart (SPEC §11) — per model call, the bytes the model was
 * given and the bytes hidden from it (stacked bars), with reductions minted, rewinds and model
 * switches as marks; a click selects the call under the pointer (the slider follows).
 *
 * Plain SVG, no chart library: the chart is a few paths (calls aggregated into at most
 * MAP_BUCKETS buckets, contextMapModel.ts), so its DOM is constant at 40 calls or 100,000; its
 * colours are the theme's CSS variables (light and dark with nothing else to switch); it scales
 * with its box without a resize handler, and no dependency is added. Canvas would need its own
 * HiDPI and theme handling and gives nothing more at this size.
 *
 * Assistive technology gets an `img` with a one-sentence summary, and the figures themselves in
 * the `Context map figures` table (per call up to FIGURE_ROWS calls, else per bucket).
 *
 * The same map in tokens (SPEC §15) is tokensMap.tsx; the `Tokens`/`Bytes` switch chooses.
 */
import { useMemo } from 'react';
import { formatBytes, formatCount } from '../../text/format';
import { nameText } from '../../text/nameText';
import { useApp } from '../../store/storeContext';
import type { MapProps } from './contextMapModel';
import { FIGURE_ROWS, HEIGHT, MAP_BUCKETS, MARKS, bucketize, callAtX, mapSummary } from './contextMapModel';
import type { MapUnit } from './contextMapTokens';
import { TokensMap } from './tokensMap';
import { FiguresTable, MapKey, callsLabel } from './mapKey';

const LEGEND: [string, string][] = [
  ['context-map-given', 'given'],
  ['context-map-hidden', 'hidden'],
  ['context-map-minted', 'reductions minted'],
  ['context-map-rewind', 'rewind'],
  ['context-map-switch', 'model switch'],
];

/** The map in bytes (SPEC §11). */
function BytesMap({ map, shownCall, onSelect }: MapProps) {
  const buckets = useMemo(() => bucketize(map, MAP_BUCKETS), [map]);
  const summary = useMemo(() => mapSummary(map, formatBytes), [map]);
  const paths = useMemo(() => {
    const width = buckets.length;
    const peak = Math.max(1, ...buckets.map((b) => b.given + b.hidden));
    const scale = (v: number): number => (v / peak) * HEIGHT;
    let given = '';
    let hidden = '';
    let minted = '';
    buckets.forEach((b, x) => {
      const g = scale(b.given);
      const h = scale(b.hidden);
      if (g > 0) given += `M${x} ${HEIGHT}h1v${-g}h-1z`;
      if (h > 0) hidden += `M${x} ${HEIGHT - g}h1v${-h}h-1z`;
      if (b.minted > 0) minted += `M${x} ${HEIGHT + 1}h1v${MARKS / 3}h-1z`;
    });
    return { width, given, hidden, minted };
  }, [buckets]);
  const xOf = (call: number): number => ((call - 0.5) / map.calls) * paths.width;
  const figureBuckets = useMemo(() => (map.calls <= FIGURE_ROWS ? bucketize(map, map.calls) : bucketize(map, FIGURE_ROWS)), [map]);

  return (
    <div className="context-map">
      <svg
        className="context-map-chart"
        role="img"
        aria-label="Context map"
        aria-describedby="context-map-summary"
        viewBox={`0 0 ${Math.max(1, paths.width)} ${HEIGHT + MARKS}`}
        preserveAspectRatio="none"
        onClick={(e) => {
          const box = e.currentTarget.getBoundingClientRect();
          onSelect(callAtX(e.clientX - box.left, box.width, map.calls));
        }}
      >
        <path className="context-map-given" d={paths.given} />
        <path className="context-map-hidden" d={paths.hidden} />
        <path className="context-map-minted" d={paths.minted} data-mark="reductions" />
        {buckets.flatMap((b) =>
          b.rewinds.length > 0 ? [<rect key={`r${b.first}`} className="context-map-rewind" data-mark="rewind" data-call={b.rewinds[0]?.call} x={xOf(b.rewinds[0]?.call ?? b.first) - 0.5} y={HEIGHT + MARKS / 3 + 1} width={1} height={MARKS / 3} />] : [],
        )}
        {buckets.flatMap((b) =>
          b.switches.length > 0 ? [<rect key={`m${b.first}`} className="context-map-switch" data-mark="model-switch" data-call={b.switches[0]?.call} x={xOf(b.switches[0]?.call ?? b.first) - 0.5} y={HEIGHT + (2 * MARKS) / 3 + 1} width={1} height={MARKS / 3 - 1} />] : [],
        )}
        {shownCall !== null && <line className="context-map-shown" x1={xOf(shownCall)} x2={xOf(shownCall)} y1={0} y2={HEIGHT + MARKS} vectorEffect="non-scaling-stroke" />}
      </svg>
      <MapKey legend={LEGEND} summary={summary} />
      <FiguresTable columns={['Calls', 'Given', 'Hidden', 'Reductions minted', 'Events']} grouped={map.calls > FIGURE_ROWS}>
        {figureBuckets.map((b) => (
          <tr key={b.first}>
            <th scope="row">{callsLabel(b)}</th>
            <td>{formatBytes(b.given)}</td>
            <td>{formatBytes(b.hidden)}</td>
            <td>{formatCount(b.minted)}</td>
            <td>
              {[
                ...b.rewinds.map((r) => `rewind to message ${formatCount(r.to)} before call ${formatCount(r.call)}`),
                ...b.switches.map((s) => `model switch ${nameText(s.from)} → ${nameText(s.to)} before call ${formatCount(s.call)}`),
              ].join('; ')}
            </td>
          </tr>
        ))}
      </FiguresTable>
    </div>
  );
}

/**
 * The `Tokens`/`Bytes` switch (SPEC §15, §16.1): two toggle buttons, each named for the unit it
 * shows, the one shown pressed; the choice is kept for the window's life.
 */
function UnitSwitch({ unit, onUnit }: { unit: MapUnit; onUnit: (unit: MapUnit) => void }) {
  return (
    <span className="context-map-units" role="group" aria-label="Units of the context map">
      {(['tokens', 'bytes'] as const).map((u) => (
        <button key={u} type="button" className="context-map-unit" aria-pressed={unit === u} onClick={() => onUnit(u)}>
          {u === 'tokens' ? 'Tokens' : 'Bytes'}
        </button>
      ))}
    </span>
  );
}

/**
 * The `Context map`: in tokens or in bytes, as the switch says. Until the user chooses, tokens where
 * the file records usage and bytes elsewhere, so estimates (the worker's `tokenMap`, a pass over
 * every call) are counted only when asked for (docs/tokens.md).
 */
export function ContextMap(props: MapProps) {
  const chosen = useApp((s) => s.mapUnit);
  // The `calls` reply carries `recorded` only where some call records usage (shared/tokens/summary.ts recordedColumns).
  const recordsUsage = useApp((s) => s.contextMap?.recorded !== undefined);
  const unit: MapUnit = chosen ?? (recordsUsage ? 'tokens' : 'bytes');
  const setUnit = useApp((s) => s.setMapUnit);
  return (
    <div className="context-map-frame">
      <UnitSwitch unit={unit} onUnit={setUnit} />
      {unit === 'tokens' ? <TokensMap {...props} /> : <BytesMap {...props} />}
    </div>
  );
}
