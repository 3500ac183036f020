/**
 * A session document as Markdown (SPEC §16). Session content is data, never markup: a text is a
 * fenced code block whose fence is longer than any backtick run inside, a name an inline code span
 * (shared/links/markdown.ts), so nothing in it can end its block, start a heading or a link, or
 * inject HTML. Everything outside code is written here.
 */
import { compactSummaryNote } from '../format/types';
import { codeBlock, codeSpan } from '../links/markdown';
import type { DocMessage, DocReduction, DocSection, DocText, DocumentWriter, SessionDocument } from './document';
import { aboutWords, bytesWords, contextWords, cutWords, documentText, hiddenWords, placeWords, sectionTitle } from './document';

function block(t: DocText, capBytes: number): string[] {
  const note = cutWords(t, capBytes);
  return [codeBlock(t.text), ...(note ? ['', `*${note}*`] : []), ''];
}

function messageLines(m: DocMessage, heading: string, capBytes: number): string[] {
  const role = m.role ?? (m.reductions.length > 0 ? 'range' : 'unreadable');
  const answers = m.tool_call_id ? ` · result of ${m.tool_name ? `${codeSpan(m.tool_name.text)} ` : ''}${codeSpan(m.tool_call_id.text)}` : '';
  const lines = [`${heading} Message ${m.index} · ${role}${answers}`, ''];
  if (m.reductions.length > 0) lines.push(`Shown reduced by ${m.reductions.map((r) => codeSpan(r.text)).join(', ')}.`, '');
  if (m.compact_summary === true) lines.push(compactSummaryNote(m.role), '');
  lines.push(...block(m.content, capBytes));
  for (const c of m.tool_calls ?? []) {
    lines.push(`Tool call ${codeSpan(c.name.text)} ${codeSpan(c.id.text)}:`, '', ...block(c.arguments, capBytes));
  }
  return lines;
}

function reductionLines(r: DocReduction, capBytes: number): string[] {
  const lines = [`#### ${codeSpan(r.kind)} ${codeSpan(r.id.text)}: ${placeWords(r.index, r.end)}, ${hiddenWords(r)}`, ''];
  if (r.shown) lines.push('Shown to the model instead:', '', ...block(r.shown, capBytes));
  if ('unavailable' in r.original) lines.push(`Original not shown: ${codeSpan(r.original.unavailable)}`, '');
  else lines.push(`Original (${bytesWords(r.original.bytes)}):`, '', ...block(r.original, capBytes));
  return lines;
}

function sectionLines(s: DocSection, capBytes: number): string[] {
  const lines = [`## ${sectionTitle(s)}`, ''];
  const context = contextWords(s);
  if (context !== '') lines.push(context, '');
  if (s.reduced.length > 0) {
    lines.push('### Context reduced since the previous call', '');
    for (const r of s.reduced) lines.push(...reductionLines(r, capBytes));
  }
  if (s.restored.length > 0) {
    lines.push('### Restored since the previous call', '');
    for (const r of s.restored) lines.push(`- ${codeSpan(r.kind)} ${codeSpan(r.id.text)}: ${placeWords(r.index, r.end)}${r.by ? ` (${r.by})` : ''}`);
    lines.push('');
  }
  if (s.messages.length > 0) {
    lines.push(s.call === null ? '### Messages after the last call' : '### Input: new messages', '');
    for (const m of s.messages) lines.push(...messageLines(m, '####', capBytes));
  }
  if (s.response) lines.push(...messageLines(s.response, '### Response:', capBytes));
  return lines;
}

/** The document as Markdown, whole. */
export function documentMarkdown(doc: SessionDocument): string {
  return documentText(doc, markdownWriter);
}

/**
 * The document as Markdown handed to `write` a piece at a time: the head, one piece per section,
 * the end. The pieces joined are `documentMarkdown`'s text, which ends in one line feed however
 * many blank lines the last section leaves: the line feeds a piece ends in are held until a piece
 * with more text follows.
 */
export function markdownWriter(write: (piece: string) => void): DocumentWriter {
  let held = '';
  let capBytes = 0;
  const put = (piece: string) => {
    let end = piece.length;
    while (end > 0 && piece.charCodeAt(end - 1) === 0x0a) end--;
    if (end === 0) {
      held += piece;
      return;
    }
    write(held + piece.slice(0, end));
    held = piece.slice(end);
  };
  return {
    head: (head) => {
      capBytes = head.capBytes;
      const lines = [`# Session export${head.title ? `: ${codeSpan(head.title.text)}` : ''}`, ''];
      lines.push(`- Format: ${codeSpan(head.format)}`);
      for (const f of head.files) lines.push(`- File: ${codeSpan(f.text)}`);
      for (const w of aboutWords(head)) lines.push(`- ${w.replace('[REDACTED:kind]', '`[REDACTED:kind]`')}`);
      lines.push('');
      put(lines.join('\n'));
    },
    section: (s) => put(`\n${sectionLines(s, capBytes).join('\n')}`),
    end: () => write('\n'),
  };
}
