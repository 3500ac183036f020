/**
 * How the app words an estimated token figure (SPEC §15, §16.1): `<n> tokens est.`, `approx.` where
 * the model is a Claude model (no public offline tokenizer exists for it), `sampled` where only
 * chunks of a large original were counted.
 */
import { countOf } from './format';

export interface EstimateFigure {
  tokens: number;
  approximate?: true | undefined;
  sampled?: true | undefined;
}

/** `1,234 tokens est.`, `1,234 tokens est. approx.`, `30,400,000 tokens est. sampled`. */
export function tokensText(e: EstimateFigure): string {
  return `${countOf(e.tokens, 'token')} est.${e.approximate ? ' approx.' : ''}${e.sampled ? ' sampled' : ''}`;
}

/** What a figure's tooltip says of how it was made. */
export function tokensNote(e: EstimateFigure): string {
  const how = 'Estimated with the o200k_base tokenizer';
  const approx = e.approximate ? '; approximate: no offline tokenizer exists for Claude models' : '';
  const sampled = e.sampled ? '; sampled: evenly spaced chunks of the original counted and scaled to its length' : '';
  return `${how}${approx}${sampled}.`;
}
