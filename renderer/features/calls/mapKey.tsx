import type { ReactNode } from 'react';
import { formatCount } from '../../text/format';

/** What both maps (bytes, tokens) show under the chart: the key, hidden from assistive technology, and the chart's sentence. */
export function MapKey({ legend, summary }: { legend: readonly (readonly [string, string])[]; summary: string }) {
  return (
    <>
      {/* The key repeats what the summary says in words: hidden from assistive technology. */}
      <p className="context-map-legend" aria-hidden="true">
        {legend.map(([cls, label]) => (
          <span key={cls} className="context-map-key">
            <span className={`context-map-swatch ${cls}`} />
            {label}
          </span>
        ))}
      </p>
      <p id="context-map-summary" className="context-map-summary">
        {summary}
      </p>
    </>
  );
}

/** A row's header in the figures table: one call, or a group of calls. */
export function callsLabel(b: { first: number; last: number }): string {
  return b.first === b.last ? `call ${formatCount(b.first)}` : `calls ${formatCount(b.first)}–${formatCount(b.last)}`;
}

/** The `Context map figures` table behind `Figures per call`, with its columns; `grouped` when a row stands for a group of calls. */
export function FiguresTable({ columns, grouped, children }: { columns: readonly string[]; grouped: boolean; children: ReactNode }) {
  return (
    <details className="context-map-details">
      <summary>Figures per call</summary>
      <table aria-label="Context map figures" className="context-map-table">
        <thead>
          <tr>
            {columns.map((c) => (
              <th key={c} scope="col">
                {c}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
      {grouped && <p className="context-map-note">Per group of calls, each figure the group’s largest.</p>}
    </details>
  );
}
