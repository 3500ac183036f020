/** Number and size formatting for the UI (fixed locale, so tests and screenshots agree). */
import { nameText } from './nameText';

const integer = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

/** `1,234,567` */
export function formatCount(n: number): string {
  return integer.format(n);
}

/** `1,234 bytes`, `12.3 KiB`, `4.0 MiB`: exact below 10 KiB, binary units above. */
export function formatBytes(n: number): string {
  if (n < 10 * 1024) return `${formatCount(n)} ${n === 1 ? 'byte' : 'bytes'}`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let value = n / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}

/** A short label of a reduction kind: `truncated`, `elided`, `duplicate`, `turns cleared`. */
export function kindLabel(kind: string): string {
  switch (kind) {
    case 'tool_output_truncated':
      return 'truncated';
    case 'tool_output_elided':
      return 'elided';
    case 'duplicate_output':
      return 'duplicate';
    case 'turns_cleared':
      return 'turns cleared';
    default:
      return kind;
  }
}

/** The last path segment, for either separator. */
export function baseName(path: string): string {
  const parts = path.split(/[\\/]/);
  return nameText(parts[parts.length - 1] || path);
}
