/**
 * A session document as one HTML file (SPEC §16): no script, a Content-Security-Policy `<meta>`
 * that allows nothing to load or run (`default-src 'none'`, `script-src 'none'`; only the inline
 * style below), and every byte of session content escaped as text — never an attribute, never
 * markup. A text keeps its line breaks and tabs; every other control, bidirectional or invisible
 * character and every lone surrogate is shown as a visible symbol (`visibleHtmlText`), so the text
 * a reader sees is what the session holds. Originals sit in `<details>` blocks, closed.
 */
import { compactSummaryNote } from '../format/types';
import { htmlText } from '../links/markdown';
import { nameText, replaceInvisible, visibleSymbol } from '../format/visibleText';
import type { DocMessage, DocReduction, DocSection, DocText, DocumentWriter, SessionDocument } from './document';
import { aboutWords, bytesWords, contextWords, cutWords, documentText, hiddenWords, placeWords, sectionTitle } from './document';

/** The policy of the document's `<meta>`: nothing may load or run; only its own inline style applies. */
export const DOCUMENT_CSP = "default-src 'none'; script-src 'none'; style-src 'unsafe-inline'; img-src 'none'; font-src 'none'; connect-src 'none'; frame-src 'none'; object-src 'none'; base-uri 'none'; form-action 'none'";

const STYLE = `
:root { color-scheme: light dark; font-family: system-ui, sans-serif; line-height: 1.4; }
body { margin: 0 auto; max-width: 70rem; padding: 1rem 2rem; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; background: rgba(127,127,127,.1); padding: .5rem; border-radius: 4px; }
code { overflow-wrap: anywhere; }
section.call { border-top: 2px solid rgba(127,127,127,.4); margin-top: 2rem; }
.reduction { border-left: 4px solid #b26b00; padding-left: 1rem; margin: 1rem 0; }
.message { margin: 1rem 0; }
.note { font-style: italic; }
details > summary { cursor: pointer; }
`;

/** Session text for an element's content: tabs and line breaks kept, every other invisible character a visible symbol, then escaped. */
export function visibleHtmlText(text: string): string {
  return htmlText(replaceInvisible(text, (c) => (c === '\n' || c === '\t' ? c : visibleSymbol(c.codePointAt(0) ?? 0))));
}

/** A name (id, tool, file) on one line. */
function name(text: string): string {
  return `<code>${htmlText(nameText(text))}</code>`;
}

/** A text in a `<pre>`: the line feed after `<pre>` is the one the parser drops, so a leading line break of the text stays. */
function pre(t: DocText, capBytes: number): string {
  const note = cutWords(t, capBytes);
  return `<pre>\n${visibleHtmlText(t.text)}</pre>${note ? `<p class="note">${htmlText(note)}</p>` : ''}`;
}

function messageHtml(m: DocMessage, heading: string, capBytes: number): string {
  const role = m.role ?? (m.reductions.length > 0 ? 'range' : 'unreadable');
  const answers = m.tool_call_id ? ` · result of ${m.tool_name ? `${name(m.tool_name.text)} ` : ''}${name(m.tool_call_id.text)}` : '';
  const parts = [`<${heading}>${htmlText(heading === 'h3' ? 'Response: ' : '')}Message ${m.index} · ${role}${answers}</${heading}>`];
  if (m.reductions.length > 0) parts.push(`<p>Shown reduced by ${m.reductions.map((r) => name(r.text)).join(', ')}.</p>`);
  if (m.compact_summary === true) parts.push(`<p>${htmlText(compactSummaryNote(m.role))}</p>`);
  parts.push(pre(m.content, capBytes));
  for (const c of m.tool_calls ?? []) parts.push(`<p>Tool call ${name(c.name.text)} ${name(c.id.text)}:</p>`, pre(c.arguments, capBytes));
  return `<div class="message">${parts.join('\n')}</div>`;
}

function reductionHtml(r: DocReduction, capBytes: number): string {
  const parts = [`<h4>${name(r.kind)} ${name(r.id.text)}: ${placeWords(r.index, r.end)}, ${htmlText(hiddenWords(r))}</h4>`];
  if (r.shown) parts.push('<p>Shown to the model instead:</p>', pre(r.shown, capBytes));
  if ('unavailable' in r.original) parts.push(`<p>Original not shown: ${name(r.original.unavailable)}</p>`);
  else parts.push(`<details><summary>Original (${bytesWords(r.original.bytes)})</summary>${pre(r.original, capBytes)}</details>`);
  return `<div class="reduction">${parts.join('\n')}</div>`;
}

function sectionHtml(s: DocSection, capBytes: number): string {
  const id = s.call === null ? 'after' : `call-${s.call}`;
  const parts = [`<h2>${sectionTitle(s)}</h2>`];
  const context = contextWords(s);
  if (context !== '') parts.push(`<p>${htmlText(context)}</p>`);
  if (s.reduced.length > 0) parts.push('<h3>Context reduced since the previous call</h3>', ...s.reduced.map((r) => reductionHtml(r, capBytes)));
  if (s.restored.length > 0) {
    const items = s.restored.map((r) => `<li>${name(r.kind)} ${name(r.id.text)}: ${placeWords(r.index, r.end)}${r.by ? ` (${r.by})` : ''}</li>`);
    parts.push('<h3>Restored since the previous call</h3>', `<ul>${items.join('')}</ul>`);
  }
  if (s.messages.length > 0) parts.push(`<h3>${s.call === null ? 'Messages after the last call' : 'Input: new messages'}</h3>`, ...s.messages.map((m) => messageHtml(m, 'h4', capBytes)));
  if (s.response) parts.push(messageHtml(s.response, 'h3', capBytes));
  return `<section class="call" id="${id}">\n${parts.join('\n')}\n</section>`;
}

/** The document as HTML, whole. */
export function documentHtml(doc: SessionDocument): string {
  return documentText(doc, htmlWriter);
}

/** The document as HTML handed to `write` a piece at a time: the head, one piece per section, the end. Joined, they are `documentHtml`'s text. */
export function htmlWriter(write: (piece: string) => void): DocumentWriter {
  let capBytes = 0;
  return {
    head: (head) => {
      capBytes = head.capBytes;
      const title = `Session export${head.title ? `: ${nameText(head.title.text)}` : ''}`;
      const about = [`<li>Format: ${name(head.format)}</li>`, ...head.files.map((f) => `<li>File: ${name(f.text)}</li>`), ...aboutWords(head).map((w) => `<li>${htmlText(w)}</li>`)];
      write(
        [
          '<!DOCTYPE html>',
          '<html lang="en">',
          '<head>',
          '<meta charset="utf-8">',
          `<meta http-equiv="Content-Security-Policy" content="${htmlText(DOCUMENT_CSP)}">`,
          '<meta name="referrer" content="no-referrer">',
          '<meta name="viewport" content="width=device-width, initial-scale=1">',
          `<title>${htmlText(title)}</title>`,
          `<style>${STYLE}</style>`,
          '</head>',
          '<body>',
          '<main>',
          `<h1>${htmlText(title)}</h1>`,
          `<ul>${about.join('')}</ul>`,
        ].join('\n'),
      );
    },
    section: (s) => write(`\n${sectionHtml(s, capBytes)}`),
    end: () => write('\n</main>\n</body>\n</html>\n'),
  };
}
