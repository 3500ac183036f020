/**
 * A two-thumb range slider over `[0, max]`: each thumb is a `slider` (aria-valuemin 0,
 * aria-valuemax `max`), dragged with the pointer or moved with the keyboard — arrows ±1, PageUp /
 * PageDown ±1/10 of `max`, Home / End to the thumb's bounds. The start never passes the end.
 */
import type { KeyboardEvent, PointerEvent } from 'react';
import { useRef } from 'react';
import './rangeSlider.css';

interface Props {
  max: number;
  value: readonly [number, number];
  onChange: (value: [number, number]) => void;
  startLabel: string;
  endLabel: string;
  /** Unit for aria-valuetext (`bytes`). */
  unit: string;
  disabled?: boolean;
}

type Thumb = 0 | 1;

export function RangeSlider({ max, value, onChange, startLabel, endLabel, unit, disabled = false }: Props) {
  const trackRef = useRef<HTMLDivElement>(null);
  const dragging = useRef<Thumb | null>(null);
  const [start, end] = value;
  const pct = (v: number): number => (max > 0 ? (Math.max(0, Math.min(v, max)) / max) * 100 : 0);

  const move = (thumb: Thumb, to: number): void => {
    const v = Math.max(0, Math.min(max, Math.round(to)));
    if (thumb === 0) onChange([Math.min(v, end), end]);
    else onChange([start, Math.max(v, start)]);
  };

  const valueAt = (clientX: number): number => {
    const rect = trackRef.current?.getBoundingClientRect();
    if (!rect || rect.width === 0) return 0;
    return ((clientX - rect.left) / rect.width) * max;
  };

  const onPointerDown = (e: PointerEvent<HTMLDivElement>): void => {
    if (disabled || e.button !== 0) return;
    const at = valueAt(e.clientX);
    // The nearer thumb follows the pointer; on a tie, the one that can move that way.
    const thumb: Thumb = Math.abs(at - start) < Math.abs(at - end) || (at < start && start === end) ? 0 : 1;
    dragging.current = thumb;
    e.currentTarget.setPointerCapture(e.pointerId);
    (e.currentTarget.querySelectorAll<HTMLElement>('[role="slider"]')[thumb])?.focus();
    move(thumb, at);
    e.preventDefault();
  };

  const onPointerMove = (e: PointerEvent<HTMLDivElement>): void => {
    if (dragging.current === null) return;
    move(dragging.current, valueAt(e.clientX));
  };

  const onPointerUp = (e: PointerEvent<HTMLDivElement>): void => {
    dragging.current = null;
    if (e.currentTarget.hasPointerCapture(e.pointerId)) e.currentTarget.releasePointerCapture(e.pointerId);
  };

  const onKeyDown = (thumb: Thumb) => (e: KeyboardEvent<HTMLDivElement>): void => {
    if (disabled) return;
    const current = thumb === 0 ? start : end;
    const page = Math.max(1, Math.round(max / 10));
    let to: number;
    switch (e.key) {
      case 'ArrowLeft':
      case 'ArrowDown':
        to = current - 1;
        break;
      case 'ArrowRight':
      case 'ArrowUp':
        to = current + 1;
        break;
      case 'PageDown':
        to = current - page;
        break;
      case 'PageUp':
        to = current + page;
        break;
      case 'Home':
        to = thumb === 0 ? 0 : start;
        break;
      case 'End':
        to = thumb === 0 ? end : max;
        break;
      default:
        return;
    }
    e.preventDefault();
    e.stopPropagation();
    move(thumb, to);
  };

  const thumb = (which: Thumb, label: string, v: number) => (
    <div
      role="slider"
      tabIndex={disabled ? -1 : 0}
      aria-label={label}
      aria-valuemin={0}
      aria-valuemax={max}
      aria-valuenow={v}
      aria-valuetext={`${v} ${unit}`}
      aria-disabled={disabled || undefined}
      aria-orientation="horizontal"
      className={`range-slider-thumb range-slider-thumb-${which === 0 ? 'start' : 'end'}`}
      style={{ left: `${pct(v)}%` }}
      onKeyDown={onKeyDown(which)}
    />
  );

  return (
    <div
      className={`range-slider${disabled ? ' is-disabled' : ''}`}
      ref={trackRef}
      onPointerDown={onPointerDown}
      onPointerMove={onPointerMove}
      onPointerUp={onPointerUp}
      onPointerCancel={onPointerUp}
    >
      <div className="range-slider-rail" />
      <div className="range-slider-fill" style={{ left: `${pct(start)}%`, width: `${Math.max(0, pct(end) - pct(start))}%` }} />
      {thumb(0, startLabel, start)}
      {thumb(1, endLabel, end)}
    </div>
  );
}
