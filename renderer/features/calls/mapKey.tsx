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
