/**
 * The HTML writer read back by a real HTML parser (parse5): whatever a message holds, the document
 * has the structure the writer gave it, and the text of the message's block decodes to the
 * message (line breaks and tabs as they are, every other invisible character a visible symbol),
 * or to its redaction.
 */
import fc from 'fast-check';
import MarkdownIt from 'markdown-it';
import { parse } from 'parse5';
import { describe, expect, it } from 'vitest';
import { arrayList } from '../resolver/session';
import { prefixList, type CallInput } from '../calls/calls';
import { replaceInvisible, visibleSymbol } from '../format/visibleText';
import { buildDocument, type DocumentSource } from './document';
import { documentHtml } from './html';
import { documentMarkdown } from './markdown';
import { hasSecret, redactor } from './redact';
import { PLANTED_SECRETS } from './testing/secrets';

interface Node {
  nodeName: string;
  tagName?: string;
  childNodes?: Node[];
  value?: string;
}

function* walk(node: Node): Generator<Node> {
  yield node;
  for (const c of node.childNodes ?? []) yield* walk(c);
}

const textOf = (node: Node): string => (node.nodeName === '#text' ? (node.value ?? '') : (node.childNodes ?? []).map(textOf).join(''));

/** A session of one user message holding `text`, and the response to it. */
function oneMessage(text: string): DocumentSource {
  const minted = arrayList([
    { role: 'user', content: text },
    { role: 'assistant', content: 'ok' },
  ]);
  const input: CallInput = { minted: prefixList(minted, 1), log: [] };
  return {
    calls: [{ call: 1, index: 1, line: 2 }],
    minted,
    callInput: (n) => (n === 1 ? input : { minted, log: [] }),
    expand: () => ({ ok: false, error: { code: 'unknown_reduction', message: 'none' } }),
  };
}

/** The text of every `<pre>` of the body, in order. */
function blocks(html: string): { blocks: string[]; tags: string[] } {
  const nodes = [...walk(parse(html))];
  return { blocks: nodes.filter((n) => n.tagName === 'pre').map(textOf), tags: nodes.flatMap((n) => (n.tagName ? [n.tagName] : [])) };
}

const visible = (s: string) => replaceInvisible(s, (c) => (c === '\n' || c === '\t' ? c : visibleSymbol(c.codePointAt(0) ?? 0)));

const markup = fc.constantFrom('<script>alert(1)</script>', '</pre>', '</details>', '<!--', '-->', '<![CDATA[', '&amp;', '&lt;', '&#0;', '"', "'", '<img src=x onerror=alert(1)>', 'javascript:alert(1)', '\n', '\r\n', '\t', '\u0000', '\u001b', '\ud800', '\udc00', '\u202e', '\u2028', '\ufeff', '\u0085');
const anyText = fc.oneof(fc.string({ unit: 'binary' }), fc.array(fc.oneof(markup, fc.string({ unit: 'binary', maxLength: 6 }), fc.constantFrom(...PLANTED_SECRETS.map((s) => s.text))), { maxLength: 10 }).map((p) => p.join('')));
/** Printable text and markup only: nothing for `visible` to change. */
const printable = fc.array(fc.oneof(fc.constantFrom('<script>', '</pre>', '&amp;', '<!--', '"', "'", '\n', '\t', 'é', '𝄞', '中'), fc.string({ unit: 'grapheme-ascii', maxLength: 8 })), { maxLength: 12 }).map((p) => p.join(''));

describe('documentHtml', () => {
  it('a message round-trips: the parsed text of its block is the message exactly, for printable text (property)', () => {
    fc.assert(
      fc.property(printable, (s) => {
        const { blocks: b, tags } = blocks(documentHtml(buildDocument(oneMessage(s), { format: 'supercode', files: ['x'] })));
        expect(b[0]).toBe(s);
        expect(tags).not.toContain('script');
      }),
      { numRuns: 300 },
    );
  });

  it('any message round-trips with invisible characters shown, and its redaction leaves no secret (property)', () => {
    fc.assert(
      fc.property(anyText, (s) => {
        const plain = blocks(documentHtml(buildDocument(oneMessage(s), { format: 'supercode', files: ['x'] })));
        expect(plain.blocks[0]).toBe(visible(s));
        const r = redactor();
        const doc = buildDocument(oneMessage(s), { format: 'supercode', files: ['x'], transform: r.redact, redacted: true });
        const redacted = blocks(documentHtml(doc));
        expect(redacted.blocks[0]).toBe(visible(r.redact(s)));
        expect(hasSecret(redacted.blocks[0] ?? '')).toBe(false);
        for (const t of [plain.tags, redacted.tags]) expect(new Set(t)).toEqual(new Set(['html', 'head', 'meta', 'title', 'style', 'body', 'main', 'h1', 'ul', 'li', 'code', 'section', 'h2', 'h3', 'h4', 'div', 'pre']));
      }),
      { numRuns: 300 },
    );
  });

  it('a session title is text in <title> and <h1>', () => {
    const html = documentHtml(buildDocument(oneMessage('x'), { format: 'supercode', files: ['</title><script>alert(1)</script>'], title: '</title><script>alert(1)</script>' }));
    const nodes = [...walk(parse(html))];
    expect(nodes.filter((n) => n.tagName === 'script')).toEqual([]);
    expect(textOf(nodes.find((n) => n.tagName === 'title') as Node)).toBe('Session export: </title><script>alert(1)</script>');
  });
});

describe('documentMarkdown', () => {
  it('a "## Call N" per call, and a heading in a message is no heading', () => {
    const doc = buildDocument(oneMessage('# not a heading\n## Call 99'), { format: 'supercode', files: ['x'] });
    const tokens = new MarkdownIt('commonmark').parse(documentMarkdown(doc), {});
    const h2 = tokens.flatMap((t, k) => (t.type === 'heading_open' && t.tag === 'h2' ? [tokens[k + 1]?.content] : []));
    expect(h2).toEqual(['Call 1']);
    // The title, the call, its input, the message, the response: none from the message's text.
    expect(tokens.filter((t) => t.type === 'heading_open').length).toBe(5);
  });
});
