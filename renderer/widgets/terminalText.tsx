/**
 * Shows terminal text as styled text nodes (see text/terminalText.ts): ANSI colours as classes,
 * invisible and control characters as visible symbols, `marks` as <mark>. Never markup from content.
 */
import type { CSSProperties, Ref } from 'react';
import { memo, useMemo } from 'react';
import type { Segment, TermColor, TermStyle } from '../text/terminalText';
import { paletteColor, terminalSegments } from '../text/terminalText';
import './terminalText.css';

interface Props {
  text: string;
  /** String index ranges of `text` to mark (keep the array identity stable between renders). */
  marks?: readonly (readonly [number, number])[];
  /** Interpret ANSI colours (default true). */
  ansi?: boolean;
  /** Receives the first <mark>. */
  markRef?: Ref<HTMLElement>;
}

const NO_MARKS: readonly (readonly [number, number])[] = [];

function colorProps(color: TermColor | undefined, layer: 'fg' | 'bg'): { className?: string; style?: CSSProperties } {
  if (color === undefined) return {};
  if (typeof color === 'number' && color < 16) return { className: `t-${layer}-${color}` };
  const value = typeof color === 'number' ? paletteColor(color) : color;
  return { style: layer === 'fg' ? { color: value } : { backgroundColor: value } };
}

function styleProps(style: TermStyle | undefined, control: boolean): { className: string; style?: CSSProperties } {
  const classes: string[] = control ? ['t-ctl'] : [];
  let css: CSSProperties | undefined;
  if (style) {
    let { fg, bg } = style;
    if (style.inverse) {
      [fg, bg] = [bg, fg];
      if (fg === undefined) classes.push('t-inv-fg');
      if (bg === undefined) classes.push('t-inv-bg');
    }
    for (const [color, layer] of [
      [fg, 'fg'],
      [bg, 'bg'],
    ] as const) {
      const p = colorProps(color, layer);
      if (p.className) classes.push(p.className);
      if (p.style) css = { ...css, ...p.style };
    }
    if (style.bold) classes.push('t-b');
    if (style.dim) classes.push('t-d');
    if (style.italic) classes.push('t-i');
    if (style.underline) classes.push('t-u');
    if (style.strike) classes.push('t-s');
  }
  return css ? { className: classes.join(' '), style: css } : { className: classes.join(' ') };
}

function renderSegment(seg: Segment, key: number, markRef: Ref<HTMLElement> | undefined) {
  const control = seg.control !== undefined;
  const inner =
    seg.style || control ? (
      <span key={seg.mark ? undefined : key} {...styleProps(seg.style, control)} {...(control ? { title: seg.control?.code } : {})}>
        {seg.text}
      </span>
    ) : (
      seg.text
    );
  if (!seg.mark) return inner;
  return (
    <mark key={key} ref={markRef}>
      {inner}
    </mark>
  );
}

/** Already parsed segments (`terminalSegments`) as styled text; `markRef` receives the first <mark>. */
export function TerminalRuns({ segments, markRef }: { segments: readonly Segment[]; markRef?: Ref<HTMLElement> | undefined }) {
  let firstMark = true;
  return (
    <>
      {segments.map((seg, k) => {
        const ref = seg.mark && firstMark ? markRef : undefined;
        if (seg.mark) firstMark = false;
        return renderSegment(seg, k, ref);
      })}
    </>
  );
}

export const TerminalText = memo(function TerminalText({ text, marks = NO_MARKS, ansi = true, markRef }: Props) {
  const segments = useMemo(() => terminalSegments(text, { ansi, marks }), [text, ansi, marks]);
  return <TerminalRuns segments={segments} markRef={markRef} />;
});
