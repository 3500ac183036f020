/**
 * The README and the Playwright spec of a repro bundle (SPEC §12). Pure text from the manifest:
 * the same bundle always gives the same bytes. Commands name the bundle's files relative to the
 * bundle folder; every name is shell-quoted where it is not plain. Every string that comes from a
 * session (ids, codes, file names) sits in the README only inside a code span or the commands'
 * fenced block (`shared/links/markdown.ts`), so it can add no heading, link, image, HTML or fence.
 */
import { codeBlock, codeSpan } from '../../shared/links/markdown';
import { utf8Encode, wellFormed } from '../../shared/format/utf8';
import { nameText, replaceInvisible } from '../../shared/format/visibleText';
import type { BundleManifest } from './manifest';

const SHELL_ESCAPES: Record<string, string> = { '\n': '\\n', '\t': '\\t', '\r': '\\r' };

/**
 * A word a POSIX shell reads back as itself, on one visible line: a plain word as it is, else in
 * single quotes; a word holding a control, bidi, zero-width or line-breaking character in ANSI-C
 * quotes (`$'…'`: POSIX.1-2024, bash, zsh, ksh) with each such character written as its UTF-8
 * bytes (`$'r\xE2\x80\xAE'`; newline, tab and carriage return as `\n`, `\t`, `\r`), so the
 * command shows what it runs and runs what it shows.
 */
export function shellQuote(word: string): string {
  if (/^[A-Za-z0-9._\-/=:@%+,]+$/.test(word)) return word;
  if (nameText(word) === word) return `'${word.replace(/'/g, `'\\''`)}'`;
  const bytes = (c: string): string => SHELL_ESCAPES[c] ?? Array.from(utf8Encode(wellFormed(c)), (b) => `\\x${b.toString(16).toUpperCase().padStart(2, '0')}`).join('');
  return `$'${replaceInvisible(word.replace(/[\\']/g, (c) => `\\${c}`), bytes)}'`;
}

/** How README names the units of each kind of file. */
const UNIT_WORDS: Record<BundleManifest['minimizer']['units'][number]['kind'], string> = {
  line: 'lines',
  record_group: 'records (grouped: a tool call with its result, a compaction)',
  snapshot_element: 'messages and reductions',
  document_part: 'parts of the document (a step with its observation, a tool call with its result, a condensation with what it forgets, another sample)',
  whole: 'kept whole',
};

function command(args: readonly string[]): string {
  return ['npx', 'session-inspector', ...args].map(shellQuote).join(' ');
}

/** The commands a reader runs inside the bundle folder, in README order. */
export function bundleCommands(manifest: BundleManifest, files: readonly string[]): string[] {
  const source = [...(manifest.options.session !== undefined ? ['--session', manifest.options.session] : []), ...(manifest.options.format !== undefined ? ['--format', manifest.options.format] : [])];
  return [command(['check', ...source, ...files]), ...manifest.ids.map((id) => command(['expand', '--id', id, ...source, ...files]))];
}

/** The `bundle` command line that makes the same bundle from the source files (shown by the app); from a manifest, or what a request names before one is made. */
export function bundleCommandLine(manifest: { ids: readonly string[]; codes: readonly string[]; options: BundleManifest['options']; sources: readonly { path: string }[] }, out: string): string {
  const args = ['bundle', '--out', out];
  for (const id of manifest.ids) args.push('--id', id);
  for (const code of manifest.codes) args.push('--finding', code);
  if (manifest.options.session !== undefined) args.push('--session', manifest.options.session);
  if (manifest.options.format !== undefined) args.push('--format', manifest.options.format);
  for (const s of manifest.sources) args.push(s.path);
  return command(args);
}

export function bundleReadme(manifest: BundleManifest, files: readonly string[]): string {
  const m = manifest.minimizer;
  const shows = [
    ...manifest.codes.map((c) => `- finding ${codeSpan(c)} (\`check\` reports it)`),
    ...manifest.expand.map((e) => `- reduction ${codeSpan(e.id)}: ${codeSpan(`expand --id ${shellQuote(e.id)}`)} prints ${e.total_bytes} bytes (${codeSpan(e.source)}), SHA-256 ${codeSpan(e.sha256)}`),
  ];
  return `# Repro bundle

Made by \`session-inspector bundle\` from ${manifest.sources.map((s) => `${codeSpan(s.path)} (${s.bytes} bytes, SHA-256 ${codeSpan(s.sha256)})`).join(' and ')}.
It reproduces on its own:

${shows.join('\n')}

## Commands (run in this folder)

${codeBlock(bundleCommands(manifest, files).join('\n'), 'sh')}

\`check\` exits 1 when a finding is an error; its JSON lists every finding.

## Playwright

\`bundle.spec.ts\` serves these files and asserts what the app shows. From a Session Inspector
checkout (after \`node scripts/build.mjs\`):

\`\`\`sh
REPRO_BUNDLE="$PWD" npx playwright test -c e2e/playwright.config.ts --project=bundle
\`\`\`

(\`REPRO_BUNDLE\` is this folder's absolute path; \`SESSION_INSPECTOR_CLI\` may name the launcher,
by default \`bin/session-inspector.cjs\` of the current directory.)

## How it was made

Delta debugging (ddmin) over the files' records (${m.units.map((u) => `${codeSpan(u.name)}: ${u.before} → ${u.after} ${UNIT_WORDS[u.kind]}`).join('; ')}),
${m.oracle_calls} oracle calls of at most ${m.max_oracle_calls} (stop: ${m.stop}); ${m.bytes_before} → ${m.bytes_after} bytes.
${m.stopped_early ? `Stopped early: ${m.stopped_early.message}.\n` : ''}${m.cut.removed_units > 0 ? `Cut: ${m.cut.by_kind.map((k) => `${k.units} ${codeSpan(k.kind)} (${k.bytes} bytes)`).join(', ')}; \`bundle.json\` lists each (\`minimizer.cut\`).\n` : ''}
A candidate passed when \`check\` reported every named code and no code the source lacks, and
\`expand\` of every named id gave the source's outcome. \`bundle.json\` holds the details.
`;
}

export function bundleSpec(manifest: BundleManifest, files: readonly string[]): string {
  const data = {
    files,
    codes: manifest.codes,
    reductions: manifest.expand.map((e) => ({ id: e.id, total_bytes: e.total_bytes, source: e.source })),
  };
  return `/**
 * Repro bundle spec, written by \`session-inspector bundle\`: it serves the session files beside it
 * and asserts that the app lists every named finding and expands every named reduction to the size
 * \`expand\` prints. From a Session Inspector checkout:
 *
 *   REPRO_BUNDLE=/absolute/path/to/this/folder npx playwright test -c e2e/playwright.config.ts --project=bundle
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type * as PlaywrightTest from '@playwright/test';

// The Playwright of the checkout this runs from: a bundle folder has no node_modules of its own.
const { expect, test } = createRequire(join(process.cwd(), 'package.json'))('@playwright/test') as typeof PlaywrightTest;

const BUNDLE: { files: string[]; codes: string[]; reductions: { id: string; total_bytes: number; source: string }[] } = ${JSON.stringify(data, null, 2)};

const CLI = process.env.SESSION_INSPECTOR_CLI ?? join(process.cwd(), 'bin', 'session-inspector.cjs');

test('the repro bundle shows its findings and reductions', async ({ page }) => {
  const dir = dirname(test.info().file);
  const server = spawn(process.execPath, [CLI, 'serve', ...BUNDLE.files.map((f) => join(dir, f))], { stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      server.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString('utf8');
        const m = /listening on (\\S+)/.exec(out);
        if (m?.[1]) resolve(m[1]);
      });
      server.on('exit', (code) => reject(new Error(\`serve exited with \${code}: \${out}\`)));
    });
    await page.goto(url);
    const panels = page.getByRole('tablist', { name: 'Panels', exact: true });
    const findingsTab = panels.getByRole('tab', { name: /^Findings \\(\\d+\\)$/ });
    await expect(async () => {
      if ((await findingsTab.getAttribute('aria-selected')) !== 'true') await findingsTab.click();
      await expect(findingsTab).toHaveAttribute('aria-selected', 'true', { timeout: 1_000 });
    }).toPass({ timeout: 15_000 });
    const items = page.getByRole('region', { name: 'Findings', exact: true }).getByRole('list', { name: 'Findings list', exact: true }).getByRole('listitem');
    for (const code of BUNDLE.codes) await expect(items.filter({ hasText: code }), code).not.toHaveCount(0);
    for (const r of BUNDLE.reductions) {
      const logTab = panels.getByRole('tab', { name: 'Log', exact: true });
      await logTab.click();
      await page.getByRole('table', { name: 'Reduction log', exact: true }).getByRole('button', { name: \`Go to \${r.id}\`, exact: true }).click();
      const region = page.getByRole('region', { name: \`Reduction \${r.id} content\`, exact: true });
      await expect(region).toHaveAttribute('data-total-bytes', String(r.total_bytes));
      await expect(region).toHaveAttribute('data-source', r.source);
    }
  } finally {
    server.kill();
  }
});
`;
}
