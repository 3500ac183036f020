/**
 * Where a row's stub starts. The host sends each projected row's text exactly as the model saw it:
 * content, or a kept prefix followed by the stub, or the stub alone. The view shows the prefix as
 * text and puts the reduction's chip where its stub was.
 */
import { REDUCTION_SENTINEL } from '../../shared/constants';

/** Splits `text` at the stub of reduction `id`: `before` (the visible prefix) and the `stub`; null when the text holds no such stub (it may have been cut). */
export function splitAtStub(text: string, id: string): { before: string; stub: string } | null {
  // The stub is the row's tail: the last occurrence wins over a sentinel quoted in the prefix. The
  // id must end there (`r1` is not `r10`).
  const head = `${REDUCTION_SENTINEL} id=${id}`;
  for (let at = text.lastIndexOf(head); at !== -1; at = at === 0 ? -1 : text.lastIndexOf(head, at - 1)) {
    const next = text.charAt(at + head.length);
    if (next === '' || /\s/.test(next)) return { before: text.slice(0, at), stub: text.slice(at) };
  }
  return null;
}

/** `hidden_bytes=<n>` of a stub, when it says so (the chip's size before `verify` answers). */
export function stubHiddenBytes(stub: string): number | undefined {
  const m = /hidden_bytes=(\d{1,15})/.exec(stub);
  return m ? Number(m[1]) : undefined;
}
