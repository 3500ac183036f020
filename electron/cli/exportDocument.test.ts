/**
 * `export --as markdown|html` on real and planted sessions. The HTML is read back with a real HTML
 * parser (parse5) and every element and attribute walked; the Markdown is rendered by a CommonMark
 * parser (markdown-it, raw HTML on) and the result walked the same way.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import MarkdownIt from 'markdown-it';
import { parse } from 'parse5';
import { afterAll, describe, expect, it } from 'vitest';
import type { ChatMessage, ReductionPolicy } from '../../shared/index';
import { mintReductions } from '../../shared/resolver/mint';
import { hasSecret } from '../../shared/export/redact';
import { ALL_PLANTED, PLANTED_SECRETS } from '../../shared/export/testing/secrets';
import { makeHeader, messageRecord, reductionRecord, tempDir, writeSidecar } from '../../tools/testing/files';
import { rawClaudeCodeCalls, rawClaudeCodeUsage } from '../loader/testing/rawCalls';
import { rewriteInPlace } from '../../tools/testing/changingFile';
import { main } from './main';
import { runCli } from './testing/runCli';

const COMPACTION = join(import.meta.dirname, '../../e2e/fixtures/real/claude-code/cc-2.0.76-compact-boundary.jsonl');

/** Markup that would run or break out if it were written as HTML rather than text. */
const MARKUP = ['<script>alert(1)</script>', '<img src=x onerror=alert(1)>', '<a href="javascript:alert(1)">x</a>', '</details></pre><script>alert(2)</script>', '<!-- comment', ']]></style><svg onload=alert(3)>', '\u0000\u001b[2J\ud800\u202e'].join('\n');

const tmp = tempDir('session-inspector-export-doc-');
afterAll(() => tmp.cleanup());

/**
 * A native session with every planted secret and all the markup in a user prompt, a tool call's
 * name and arguments, a visible tool output and tool outputs reduced by two passes (so originals
 * hold them too), records in the order an agent writes them.
 */
function plantedSession(): { path: string; calls: number } {
  const payload = `${ALL_PLANTED}\n${MARKUP}\n`;
  const truncate: ReductionPolicy = { protect_last_n_tool_results: 0, max_tool_result_bytes: 256, kept_prefix_bytes: 24, dedupe: false, clear_turns_before: null };
  const elide: ReductionPolicy = { ...truncate, protect_last_n_tool_results: 1, kept_prefix_bytes: 0 };
  const view: ChatMessage[] = [
    { role: 'user', content: `Look at this: ${payload}` },
    { role: 'assistant', content: MARKUP, tool_calls: [{ id: `call_1 ${PLANTED_SECRETS[1]?.text}`, name: `<img src=x onerror=alert(1)> ${PLANTED_SECRETS[13]?.text}`, arguments: JSON.stringify({ cmd: payload }) }] },
    { role: 'tool', tool_call_id: `call_1 ${PLANTED_SECRETS[1]?.text}`, content: `page 1\n${payload}` },
  ];
  const records: object[] = [makeHeader({ session_id: `s-${PLANTED_SECRETS[5]?.text}` })];
  view.forEach((m, i) => records.push(messageRecord(i, m)));
  const first = mintReductions(view, truncate);
  for (const r of first) records.push(reductionRecord(r));
  const more: ChatMessage[] = [
    { role: 'assistant', content: '', tool_calls: [{ id: 'call_2', name: 'shell', arguments: '{"cmd":"cat page2"}' }] },
    { role: 'tool', tool_call_id: 'call_2', content: `page 2\n${payload}` },
    { role: 'assistant', content: '', tool_calls: [{ id: 'call_3', name: 'shell', arguments: '{"cmd":"cat page3"}' }] },
    { role: 'tool', tool_call_id: 'call_3', content: `page 3, still visible\n${payload}` },
  ];
  for (const m of more) {
    records.push(messageRecord(view.length, m));
    view.push(m);
  }
  for (const r of mintReductions(view, elide, first)) records.push(reductionRecord(r));
  const done: ChatMessage = { role: 'assistant', content: `Done. ${payload}` };
  records.push(messageRecord(view.length, done));
  view.push(done);
  return { path: writeSidecar(tmp.path('planted.sidecar.jsonl'), records), calls: view.filter((m) => m.role === 'assistant').length };
}

const planted = plantedSession();

interface HtmlNode {
  nodeName: string;
  tagName?: string;
  attrs?: { name: string; value: string }[];
  childNodes?: HtmlNode[];
  value?: string;
  data?: string;
}

function* walk(node: HtmlNode): Generator<HtmlNode> {
  yield node;
  for (const c of node.childNodes ?? []) yield* walk(c);
  // <template> content is a fragment of its own.
  const content = (node as { content?: HtmlNode }).content;
  if (content) yield* walk(content);
}

function textOf(node: HtmlNode): string {
  if (node.nodeName === '#text') return node.value ?? '';
  return (node.childNodes ?? []).map(textOf).join('');
}

/** The elements a document of ours is made of; anything else came from the session. */
const OUR_ELEMENTS = new Set(['html', 'head', 'body', 'meta', 'title', 'style', 'main', 'h1', 'h2', 'h3', 'h4', 'ul', 'li', 'p', 'code', 'pre', 'section', 'div', 'details', 'summary']);

function checkHtml(html: string): { root: HtmlNode; elements: HtmlNode[] } {
  const root = parse(html) as unknown as HtmlNode;
  const elements = [...walk(root)].filter((n) => n.tagName !== undefined);
  for (const e of elements) {
    expect(OUR_ELEMENTS, `element <${e.tagName}>`).toContain(e.tagName);
    for (const a of e.attrs ?? []) {
      expect(a.name.toLowerCase().startsWith('on'), `attribute ${a.name} on <${e.tagName}>`).toBe(false);
      expect(a.value.toLowerCase()).not.toContain('javascript:');
      expect(['http-equiv', 'content', 'charset', 'name', 'lang', 'class', 'id']).toContain(a.name);
    }
  }
  expect([...walk(root)].filter((n) => n.nodeName === '#comment')).toEqual([]);
  return { root, elements };
}

/** The CSP `<meta>`'s directives, by name. */
function cspOf(elements: HtmlNode[]): Map<string, string[]> {
  const metas = elements.filter((e) => e.tagName === 'meta' && e.attrs?.some((a) => a.name === 'http-equiv' && a.value.toLowerCase() === 'content-security-policy'));
  expect(metas).toHaveLength(1);
  const content = metas[0]?.attrs?.find((a) => a.name === 'content')?.value ?? '';
  return new Map(content.split(';').map((d) => d.trim().split(/\s+/)).filter((d) => d[0]).map(([name, ...values]) => [name as string, values]));
}

describe('export --as html', () => {
  it('with --redact: no secret anywhere, no script, no handler, no javascript: URL — read back by an HTML parser', async () => {
    const r = await runCli(['export', '--as', 'html', '--redact', planted.path]);
    expect(r.code).toBe(0);
    const { root, elements } = checkHtml(r.stdout);
    for (const s of PLANTED_SECRETS) expect(r.stdout, s.kind).not.toContain(s.tell);
    const text = textOf(root);
    expect(hasSecret(text)).toBe(false);
    for (const s of PLANTED_SECRETS) expect(text).toContain(`[REDACTED:${s.kind}]`);
    // The markup is there, as text: escaped, not dropped.
    expect(text).toContain('<script>alert(1)</script>');
    expect(text).toContain('</details></pre><script>alert(2)</script>');
    expect(text).toContain('␀␛[2J⟨U+D800⟩⟨U+202E⟩');
    const csp = cspOf(elements);
    for (const d of ['default-src', 'script-src']) for (const v of csp.get(d) ?? ['missing']) expect(["'none'", "'self'"]).toContain(v);
    // One section per call, each reduction's original in a closed <details> of our own.
    expect(elements.filter((e) => e.tagName === 'h2').map(textOf)).toEqual([...Array.from({ length: planted.calls }, (_, k) => `Call ${k + 1}`)]);
    const details = elements.filter((e) => e.tagName === 'details');
    expect(details.length).toBeGreaterThanOrEqual(2);
    for (const d of details) expect(d.attrs ?? []).toEqual([]);
    // The counts on stderr: a sentence, then JSON.
    const counts = JSON.parse(r.stderr.trim().split('\n').at(-1) ?? '') as { redacted: Record<string, number>; total: number };
    for (const s of PLANTED_SECRETS) expect(counts.redacted[s.kind], s.kind).toBeGreaterThan(0);
    expect(counts.total).toBe(Object.values(counts.redacted).reduce((a, b) => a + b, 0));
  });

  it('without --redact: the originals are in the document, as text', async () => {
    const r = await runCli(['export', '--as', 'html', planted.path]);
    expect(r.code).toBe(0);
    const { root } = checkHtml(r.stdout);
    const originals = [...walk(root)].filter((n) => n.tagName === 'details').map(textOf);
    expect(originals.some((t) => t.includes('page 2') && t.includes(PLANTED_SECRETS[0]?.text ?? '?'))).toBe(true);
    expect(r.stderr).toBe('');
  });
});

const md = new MarkdownIt({ html: true });

describe('export --as markdown', () => {
  it('a "## Call N" for each call; session content never leaves its code', async () => {
    const r = await runCli(['export', '--as', 'markdown', planted.path]);
    expect(r.code).toBe(0);
    const headings = r.stdout.split('\n').filter((l) => l.startsWith('## '));
    expect(headings).toEqual(Array.from({ length: planted.calls }, (_, k) => `## Call ${k + 1}`));
    const rendered = md.render(r.stdout);
    const root = parse(rendered) as unknown as HtmlNode;
    const tags = new Set([...walk(root)].flatMap((n) => (n.tagName ? [n.tagName] : [])));
    for (const t of tags) expect(['html', 'head', 'body', 'h1', 'h2', 'h3', 'h4', 'ul', 'li', 'p', 'code', 'pre', 'em']).toContain(t);
    // The originals are present when not redacted.
    expect(r.stdout).toContain(PLANTED_SECRETS[0]?.tell);
    expect(r.stdout.match(/^Original \(/gm)?.length).toBeGreaterThanOrEqual(2);
  });

  it('--redact: no secret in the Markdown either', async () => {
    const r = await runCli(['export', '--as', 'markdown', '--redact', planted.path]);
    expect(r.code).toBe(0);
    for (const s of PLANTED_SECRETS) expect(r.stdout, s.kind).not.toContain(s.tell);
    expect(hasSecret(r.stdout)).toBe(false);
  });

  it('a real Claude Code file with a compaction: the summary shown and the hidden range, at the call it applied to', async () => {
    const r = await runCli(['export', '--as', 'markdown', COMPACTION]);
    expect(r.code).toBe(0);
    const view = await runCli(['view', COMPACTION]);
    const calls = (JSON.parse(view.stdout) as { calls: number }).calls;
    const log = (JSON.parse((await runCli(['log', COMPACTION])).stdout) as { reductions: { id: string; kind: string; ptr: { index: number; bytes: number }; end: number; stub: string }[] }).reductions;
    const compaction = log.find((x) => x.kind === 'summarized');
    if (!compaction) throw new Error('the fixture has a compaction');
    expect(r.stdout.split('\n').filter((l) => /^## Call \d+$/.test(l))).toHaveLength(calls);
    const heading = `#### \`summarized\` \`${compaction.id}\`: messages ${compaction.ptr.index}–${compaction.end - 1}, hides ${compaction.ptr.bytes.toLocaleString('en-US')} bytes`;
    expect(r.stdout).toContain(heading);
    // Under the first call whose input holds the summary.
    const at = r.stdout.indexOf(heading);
    const section = r.stdout.lastIndexOf('\n## Call ', at);
    const callNumber = Number(/## Call (\d+)/.exec(r.stdout.slice(section))?.[1]);
    const input = JSON.parse((await runCli(['view', '--at', String(callNumber), COMPACTION])).stdout) as { messages: { reductions: string[] }[] };
    expect(input.messages[0]?.reductions).toContain(compaction.id);
    const before = JSON.parse((await runCli(['view', '--at', String(callNumber - 1), COMPACTION])).stdout) as { messages: { reductions: string[] }[] };
    expect(before.messages.flatMap((m) => m.reductions)).not.toContain(compaction.id);
    expect(r.stdout.slice(at)).toContain(compaction.stub.split('\n')[0]);
  });

  it('each call of a real Claude Code file states the context its record gives (SPEC §15), read from the raw usage', async () => {
    const r = await runCli(['export', '--as', 'markdown', COMPACTION]);
    expect(r.code).toBe(0);
    const usage = rawClaudeCodeUsage(COMPACTION);
    const raw = rawClaudeCodeCalls(COMPACTION).map((c) => usage.get(c.line)?.context);
    const stated = r.stdout.split('\n## Call ').slice(1).map((section) => {
      const context = /^Context: ([\d,]+) tokens \(recorded\)\.$/m.exec(section);
      return context ? Number(context[1]?.replaceAll(',', '')) : undefined;
    });
    expect(raw.filter((c) => c !== undefined).length).toBeGreaterThan(0);
    expect(stated).toEqual(raw);
  });

  it('each reduction of a real Claude Code file states the tokens it hides (est.), as `log` counts them', async () => {
    const file = join(import.meta.dirname, '../../e2e/fixtures/real/claude-code/cc-2.1.17-microcompactions-then-compact.jsonl');
    const r = await runCli(['export', '--as', 'markdown', file]);
    expect(r.code, r.stderr).toBe(0);
    const log = (JSON.parse((await runCli(['log', file])).stdout) as { reductions: { id: string; hidden_tokens_est: { tokens: number; approximate?: true } | null }[] }).reductions;
    const headings = r.stdout.split('\n').filter((l) => l.startsWith('#### '));
    let counted = 0;
    for (const { id, hidden_tokens_est: est } of log) {
      const heading = headings.find((h) => h.includes(`\`${id}\`:`));
      if (!heading || !est) continue;
      counted++;
      expect(heading).toContain(`, ${est.tokens.toLocaleString('en-US')} ${est.tokens === 1 ? 'token' : 'tokens'} est.${est.approximate ? ' (approximate' : ''}`);
    }
    // Microcompactions and a compaction: several reductions, each with its estimate.
    expect(counted).toBeGreaterThan(3);
  });

  it('each call of a file that records no usage (SWE-agent) states its estimated context, as `view --at N` counts it', async () => {
    const file = join(import.meta.dirname, '../../e2e/fixtures/real/swe-agent/sweagenttestrepo-1c2844.traj');
    const r = await runCli(['export', '--as', 'markdown', file]);
    expect(r.code, r.stderr).toBe(0);
    const sections = r.stdout.split('\n## Call ').slice(1);
    expect(sections.length).toBeGreaterThan(1);
    for (const [k, section] of sections.entries()) {
      const view = JSON.parse((await runCli(['view', '--at', String(k + 1), file])).stdout) as { tokens: unknown; tokens_est: { tokens: number } };
      expect(view.tokens).toBeNull();
      expect(section).toContain(`Context: ${view.tokens_est.tokens.toLocaleString('en-US')} tokens est. (the file records no usage for this call).`);
    }
  });

  it('--calls N:M keeps those calls; a range outside the session is a usage error', async () => {
    const r = await runCli(['export', '--as', 'markdown', '--calls', '2:3', planted.path]);
    expect(r.stdout.split('\n').filter((l) => l.startsWith('## '))).toEqual(['## Call 2', '## Call 3']);
    const bad = await runCli(['export', '--as', 'markdown', '--calls', `1:${planted.calls + 1}`, planted.path]);
    expect(bad.code).toBe(2);
    expect(JSON.parse(bad.stdout)).toMatchObject({ error: { code: 'usage' } });
    const none = await runCli(['export', planted.path]);
    expect(JSON.parse(none.stdout)).toMatchObject({ error: { code: 'usage' } });
  });

  it('cuts a huge text at the cap and says its size', async () => {
    const huge = `${'x'.repeat(200_000)}END-OF-HUGE`;
    const path = writeSidecar(tmp.path('huge.sidecar.jsonl'), [makeHeader(), messageRecord(0, { role: 'user', content: huge }), messageRecord(1, { role: 'assistant', content: 'ok' })]);
    const r = await runCli(['export', '--as', 'markdown', path]);
    expect(r.stdout).not.toContain('END-OF-HUGE');
    expect(r.stdout).toContain('Cut at 65,536 bytes: the whole text is 200,011 bytes.');
    expect(r.stdout.length).toBeLessThan(70_000);
  });
});

describe('export --out', () => {
  it('writes the named file, and never over a file of the session, by any name', async () => {
    const out = tmp.path('doc.html');
    const r = await runCli(['export', '--as', 'html', '--out', out, planted.path]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(readFileSync(out, 'utf8')).toMatch(/^<!DOCTYPE html>/);
    const before = readFileSync(planted.path);
    const link = tmp.path('link-to-session.html');
    symlinkSync(planted.path, link);
    for (const target of [planted.path, link]) {
      const refused = await runCli(['export', '--as', 'html', '--out', target, planted.path]);
      expect(refused.code).toBe(2);
      expect(JSON.parse(refused.stdout)).toMatchObject({ error: { code: 'usage' } });
    }
    expect(readFileSync(planted.path)).toEqual(before);
    expect(statSync(link).isFile()).toBe(true);
  });
});

/** A session whose document is several MiB: 80 messages of 60,000 characters (under the cap, so none is cut), each its own text. */
function severalMiB(): string {
  const records: object[] = [makeHeader()];
  for (let i = 0; i < 80; i++) {
    const line = `message ${i}: the build log of step ${i}, line after line\n`;
    records.push(messageRecord(i, { role: i % 2 === 0 ? 'user' : 'assistant', content: line.repeat(Math.ceil(60_000 / line.length)).slice(0, 60_000) }));
  }
  return writeSidecar(tmp.path(`several-mib-${records.length}.sidecar.jsonl`), records);
}

/** Runs the command line with each write to stdout kept apart; `onWrite` runs after each. */
async function runPieces(argv: string[], onWrite: (k: number) => void = () => undefined): Promise<{ code: number; pieces: string[] }> {
  const pieces: string[] = [];
  const code = await main(argv, {
    stdout: (s) => {
      pieces.push(s);
      onWrite(pieces.length);
    },
    stderr: () => undefined,
  });
  return { code, pieces };
}

describe('a document of several MiB', () => {
  it('goes out as it is made, about a MiB a write, and the same to stdout and to --out', async () => {
    const path = severalMiB();
    const { code, pieces } = await runPieces(['export', '--as', 'markdown', path]);
    expect(code).toBe(0);
    const text = pieces.join('');
    expect(text.length).toBeGreaterThan(4_500_000);
    // Never the whole document in one write: each but the last is a MiB gathered, and less than two.
    expect(pieces.length).toBeGreaterThanOrEqual(4);
    for (const piece of pieces.slice(0, -1)) {
      expect(piece.length).toBeGreaterThanOrEqual(1 << 20);
      expect(piece.length).toBeLessThan(2 << 20);
    }
    expect(text.split('\n').filter((l) => l.startsWith('## Call '))).toHaveLength(40);
    expect(text.endsWith('\n')).toBe(true);
    expect(text.endsWith('\n\n')).toBe(false);
    const out = tmp.path('several-mib.md');
    expect((await runCli(['export', '--as', 'markdown', '--out', out, path])).code).toBe(0);
    expect(readFileSync(out, 'utf8')).toBe(text);
  });

  it('a file changed while it is written: exit 2 with file_changed, and nothing written after the change', async () => {
    const path = severalMiB();
    const size = statSync(path).size;
    const { code, pieces } = await runPieces(['export', '--as', 'html', path], (k) => {
      if (k === 1) rewriteInPlace(path, Math.floor(size * 0.8), 64);
    });
    expect(code).toBe(2);
    // The first MiB, then the error: the next MiB was made after the change and is not written.
    expect(pieces).toHaveLength(2);
    expect(pieces[0]?.length).toBeGreaterThanOrEqual(1 << 20);
    expect(JSON.parse(pieces[1] ?? '')).toMatchObject({ error: { code: 'file_changed' } });
  });

  it('a file changed where the first MiB reads it: file_changed, not an error of ours, and nothing written', async () => {
    const path = severalMiB();
    const r = await runCli(['export', '--as', 'markdown', path], {
      onProgress: ({ bytesRead, totalBytes }) => {
        if (bytesRead === totalBytes) rewriteInPlace(path, Math.floor(totalBytes / 10), 64);
      },
    });
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stdout)).toMatchObject({ error: { code: 'file_changed' } });
  });

  it('--out: a file changed before the document is done leaves no file and no temporary file', async () => {
    const path = severalMiB();
    const dir = tmp.path('changed-out');
    const out = join(dir, 'doc.md');
    mkdirSync(dir);
    const r = await runCli(['export', '--as', 'markdown', '--out', out, path], {
      onProgress: ({ bytesRead, totalBytes }) => {
        if (bytesRead === totalBytes) rewriteInPlace(path, Math.floor(totalBytes / 2), 64);
      },
    });
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stdout)).toMatchObject({ error: { code: 'file_changed' } });
    expect(existsSync(out)).toBe(false);
    expect(readdirSync(dir)).toEqual([]);
  });
});
