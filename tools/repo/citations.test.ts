/**
 * What the code cites is in the repository: every section a comment or test names (`SPEC §N`, a
 * bare `§N`, `docs/FORMATS.md §N`, `SECURITY.md §N`) is a heading of that file, every `docs/…` file
 * named exists, and no comment or test names a ticket ("issue N"): a comment says what the code does
 * and cites docs/ (an upstream tracker is cited as owner/repo#N).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const sources = execFileSync('git', ['ls-files', '-co', '--exclude-standard', '*.ts', '*.tsx', '*.mjs', '*.cjs', '*.js'], { cwd: root, encoding: 'utf8' })
  .split('\n')
  // This file names what it looks for.
  .filter((f) => f !== '' && f !== 'tools/repo/citations.test.ts' && existsSync(join(root, f)));

/** The section numbers of a Markdown file's headings: `## 3. Files` and `### 3.1 Sidecar` give 3 and 3.1. */
function sectionsOf(file: string): Set<string> {
  const numbers = new Set<string>();
  for (const line of readFileSync(join(root, file), 'utf8').split('\n')) {
    const m = /^#{1,6}\s+(\d+(?:\.\d+)*)\.?\s/.exec(line);
    if (m) numbers.add(m[1] as string);
  }
  return numbers;
}

/** Every citation of `pattern` (group 1: the section) in the sources, as "file:line: citation". */
function citations(pattern: RegExp): { where: string; section: string }[] {
  const found: { where: string; section: string }[] = [];
  for (const file of sources) {
    readFileSync(join(root, file), 'utf8')
      .split('\n')
      .forEach((line, k) => {
        for (const m of line.matchAll(pattern)) found.push({ where: `${file}:${k + 1}`, section: (m[1] as string).replace(/\.$/, '') });
      });
  }
  return found;
}

const missing = (cited: { where: string; section: string }[], sections: Set<string>): string[] => cited.filter((c) => !sections.has(c.section)).map((c) => `${c.where}: §${c.section}`);

describe('what the code cites is in the repository', () => {
  it('every SPEC section cited (and every bare §N, which means SPEC) is a heading of docs/SPEC.md', () => {
    const spec = sectionsOf('docs/SPEC.md');
    // A bare § not preceded by another document's name (an RFC, CommonMark, FORMATS.md, SECURITY.md).
    const cited = citations(/(?<!(?:FORMATS\.md|SECURITY\.md|RFC \d+|CommonMark)\s?)§(\d+(?:\.\d+)*)/g);
    expect(cited.length).toBeGreaterThan(100);
    expect(missing(cited, spec)).toEqual([]);
  });

  it('every docs/FORMATS.md and SECURITY.md section cited is a heading there', () => {
    const formats = citations(/docs\/FORMATS\.md §(\d+(?:\.\d+)*)/g);
    const security = citations(/SECURITY\.md §(\d+(?:\.\d+)*)/g);
    expect(formats.length).toBeGreaterThan(10);
    expect(missing(formats, sectionsOf('docs/FORMATS.md'))).toEqual([]);
    expect(missing(security, sectionsOf('SECURITY.md'))).toEqual([]);
  });

  it('every docs/ file named in code exists, and no code cites a document outside the repository', () => {
    // `owner/repo docs/…` is an upstream file, not ours.
    const named = citations(/(?<![\w-]+\/[\w.-]+ )\b(docs\/[\w./-]+\.md)\b/g);
    expect(named.length).toBeGreaterThan(10);
    expect(named.filter((c) => !existsSync(join(root, c.section))).map((c) => `${c.where}: ${c.section}`)).toEqual([]);
    expect(citations(/(research\/[\w./-]*|FACTS\.md|STYLE\.md|seed\/[\w./-]*)/g).map((c) => `${c.where}: ${c.section}`)).toEqual([]);
  });

  it('no comment, name or string in code or tests names a ticket', () => {
    expect(citations(/\b([Ii]ssues? #?\d+)/g).map((c) => `${c.where}: ${c.section}`)).toEqual([]);
  });
});
