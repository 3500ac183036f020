/**
 * A session document as Markdown (SPEC §16). Session content is data, never markup: a text is a
 * fenced code block whose fence is longer than any backtick run inside, a name an inline code span
 * (shared/links/markdown.ts), so nothing in it can end its block, start a heading or a link, or
 * inject HTML. Everything outside code is written here.
 */
import { codeBlock, codeSpan } from '../links/markdown';
import type { DocMessage, DocReduction, DocSection, DocText, SessionDocument } from './document';
import { aboutWords, bytesWords, contextWords, cutWords, hiddenWords, placeWords, sectionTitle } from './document';

function block(t: DocText, capBytes: number): string[] {
  const note = cutWords(t, capBytes);
  return [codeBlock(t.text), ...(note ? ['', `*${note}*`] : []), ''];
}

function messageLines(m: DocMessage, heading: string, capBytes: number): string[] {
  const role = m.role ?? (m.reductions.length > 0 ? 'range' : 'unreadable');
  const answers = m.tool_call_id ? ` · result of ${m.tool_name ? `${codeSpan(m.tool_name.text)} ` : ''}${codeSpan(m.tool_call_id.text)}` : '';
  const lines = [`${heading} Message ${m.index} · ${role}${answers}`, ''];
  if (m.reductions.length > 0) lines.push(`Shown reduced by ${m.reductions.map((r) => codeSpan(r.text)).join(', ')}.`, '');
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

export function documentMarkdown(doc: SessionDocument): string {
  const lines = [`# Session export${doc.title ? `: ${codeSpan(doc.title.text)}` : ''}`, ''];
  lines.push(`- Format: ${codeSpan(doc.format)}`);
  for (const f of doc.files) lines.push(`- File: ${codeSpan(f.text)}`);
  for (const w of aboutWords(doc)) lines.push(`- ${w.replace('[REDACTED:kind]', '`[REDACTED:kind]`')}`);
  lines.push('');
  for (const s of doc.sections) lines.push(...sectionLines(s, doc.capBytes));
  return `${lines.join('\n').replace(/\n+$/, '')}\n`;
}
