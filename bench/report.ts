/**
 * One row format and one table for every benchmark. A target is checked as a ratio against a
 * baseline measured in the same run (this machine is noisy, absolute times are only reported), or
 * as a bound on a measured quantity (DOM rows, heap, RSS).
 */
export interface BenchRow {
  /** The benchmark group: "indexing", "latency", "search", "memory", "renderer". */
  group: string;
  /** What was measured, in words ("index 1 GiB sidecar", "first rows (median of 5)"). */
  metric: string;
  value: number;
  /** "MB/s", "ms", "MiB", "rows"… */
  unit: string;
  /** The baseline measured in the same run, when the target is a ratio. */
  baseline?: { name: string; value: number };
  /** value / baseline.value (or baseline.value / value for times: always "higher is better"). */
  ratio?: number;
  /** The target in words ("≥ 0.8× baseline", "< 200"), when there is one. */
  target?: string;
  /** Whether the target holds; undefined when the row is only reported. */
  pass?: boolean;
  note?: string;
}

function fmt(n: number): string {
  if (!Number.isFinite(n)) return String(n);
  if (Math.abs(n) >= 100) return n.toFixed(0);
  if (Math.abs(n) >= 10) return n.toFixed(1);
  return n.toFixed(2);
}

/** The rows as one aligned plain-text table (also valid Markdown). */
export function formatTable(rows: readonly BenchRow[]): string {
  const header = ['group', 'metric', 'value', 'baseline', 'ratio', 'target', 'result'];
  const body = rows.map((r) => [
    r.group,
    r.metric,
    `${fmt(r.value)} ${r.unit}`,
    r.baseline ? `${r.baseline.name}: ${fmt(r.baseline.value)} ${r.unit}` : '',
    r.ratio !== undefined ? `${r.ratio.toFixed(2)}×` : '',
    r.target ?? '',
    r.pass === undefined ? 'reported' : r.pass ? 'PASS' : 'FAIL',
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((row) => (row[i] ?? '').length)));
  const line = (cells: readonly string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join(' | ')} |`;
  return [line(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...body.map(line)].join('\n');
}

/** Median of a non-empty list. */
export function median(values: readonly number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
}
