/**
 * `Copy bytes` and `Download range`: exactly the bytes of the range shown, as the CLI's
 * `expand --range` gives them — escape bytes included, nothing added (no newline). The text is the
 * one decoded from the verified original bytes; a lone surrogate (which has no UTF-8 bytes) is
 * written as U+FFFD, the character its counted bytes stand for, so the copy's UTF-8 length is the
 * range's length. The download is those UTF-8 bytes in a file named `<id>-<start>-<end>.bin`.
 */
import { useState } from 'react';
import { utf8Encode, wellFormed } from '../../../shared/format/utf8';
import { countOf } from '../../text/format';
import { copyText } from '../links/copyText';
import '../links/copy.css';

/** A download name from a reduction id (which comes from the file): letters, digits, `._-` only. */
export function rangeFileName(id: string, range: readonly [number, number]): string {
  const safe = id.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 100) || 'reduction';
  return `${safe}-${range[0]}-${range[1]}.bin`;
}

/** The text `Copy bytes` copies: the decoded range, a lone surrogate as U+FFFD (its 3 counted bytes). */
export function copiedText(text: string): string {
  return wellFormed(text);
}

/** The bytes `Download range` saves: the copied text's UTF-8, as many bytes as the range counts. */
export function rangeBytes(text: string): Uint8Array {
  return utf8Encode(copiedText(text));
}

function download(bytes: Uint8Array, name: string): void {
  const url = URL.createObjectURL(new Blob([bytes as Uint8Array<ArrayBuffer>], { type: 'application/octet-stream' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.rel = 'noopener';
  a.click();
  // The download has its own reference to the blob once started.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

/**
 * `text`: the range's text, or how to get it (the joined windows of a large expansion
 * are made on a click, not on every render). `disabled` while a window is on its way: the buttons
 * stay where they are (hiding them moved everything below them up, then down again, at each
 * `Load more`).
 */
export function CopyRange({ id, text, range, what, disabled = false }: { id: string; text: string | (() => string); range: readonly [number, number]; what?: string; disabled?: boolean }) {
  const [status, setStatus] = useState('');
  const textOf = (): string => (typeof text === 'string' ? text : text());
  const suffix = what ? ` ${what}` : '';
  const bytes = range[1] - range[0];
  return (
    <span className="copy-range">
      <button type="button" disabled={disabled} onClick={() => void copyText(copiedText(textOf()), countOf(bytes, 'byte')).then(setStatus)}>
        {`Copy bytes${suffix}`}
      </button>
      <button
        type="button"
        disabled={disabled}
        onClick={() => {
          download(rangeBytes(textOf()), rangeFileName(id, range));
          setStatus(`Downloading ${countOf(bytes, 'byte')} as ${rangeFileName(id, range)}.`);
        }}
      >
        {`Download range${suffix}`}
      </button>
      <span className="copy-status" role="status">
        {status}
      </span>
    </span>
  );
}
