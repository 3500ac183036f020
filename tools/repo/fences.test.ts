/**
 * Fences the tree keeps. Development tools stay out of what ships: the repository's ESLint
 * configuration refuses an import of tools/ (the sample generator, the test helpers) from the
 * shipped code of electron/, shared/ and renderer/, and lets their tests and test helpers import it
 * (checked with the rule options the configuration gives each file, applied to an import of each
 * kind). And the loader's formats sit side by side: a format's folder takes what it shares with
 * others from electron/loader/common/ and content/, never from another format's folder.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { ESLint, Linter } from 'eslint';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const eslint = new ESLint({ cwd: root });

/** The messages of the repository's `no-restricted-imports` options for `file` on `source`. */
async function restrictedImports(file: string, source: string): Promise<string[]> {
  const config = (await eslint.calculateConfigForFile(file)) as { rules?: Record<string, unknown> };
  const rule = config.rules?.['no-restricted-imports'];
  if (rule === undefined) return [];
  const linter = new Linter({ configType: 'flat' });
  const messages = linter.verify(source, [{ files: ['**/*.ts', '**/*.tsx'], rules: { 'no-restricted-imports': rule as Linter.RuleEntry } }], { filename: join(root, file) });
  return messages.map((m) => m.message);
}

const SHIPPED = ['electron/loader/session.ts', 'electron/cli/main.ts', 'shared/resolver/expand.ts', 'renderer/app.tsx'];
const TESTS = ['electron/loader/session.test.ts', 'electron/cli/testing/runCli.ts', 'shared/resolver/expand.test.ts', 'renderer/store/store.test.ts', 'electron/worker/buildWorker.setup.ts'];

/** An import of tools/ written from `file`'s folder. */
function importOfTools(file: string): string {
  const up = '../'.repeat(file.split('/').length - 1);
  return `import { tempDir } from '${up}tools/testing/files';\nvoid tempDir;\n`;
}

describe('tools/ is fenced off from shipped code', () => {
  it.each(SHIPPED)('%s may not import from tools/', async (file) => {
    expect(await restrictedImports(file, importOfTools(file))).toEqual([expect.stringMatching(/Shipped code imports nothing from tools\//)]);
  });

  it.each(TESTS)('%s (a test or test helper) may', async (file) => {
    expect(await restrictedImports(file, importOfTools(file))).toEqual([]);
  });

  it('the other fences still hold for tests (shared/ stays pure in its tests too)', async () => {
    expect(await restrictedImports('shared/resolver/expand.test.ts', "import { readFileSync } from 'node:fs';\nvoid readFileSync;\n")).toEqual([expect.stringMatching(/Node built-ins belong in electron/)]);
  });
});

const LOADER = join(root, 'electron/loader');
const FORMATS = readdirSync(LOADER, { withFileTypes: true })
  .filter((e) => e.isDirectory() && !['common', 'content', 'testing'].includes(e.name))
  .map((e) => e.name);

/** A folder's shipped TypeScript files (no tests, no testing/ helpers), recursively. */
function shippedFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'testing' ? [] : shippedFiles(path);
    return e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') ? [path] : [];
  });
}

describe('the loader\'s formats sit side by side', () => {
  it('names the six formats', () => {
    expect(FORMATS.sort()).toEqual(['claudeCode', 'codex', 'inspect', 'native', 'openhands', 'sweAgent']);
  });

  it('no format imports from another format\'s folder (shared helpers live in common/ or content/)', () => {
    const borrowed: string[] = [];
    for (const format of FORMATS) {
      for (const file of shippedFiles(join(LOADER, format))) {
        for (const m of readFileSync(file, 'utf8').matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']*)'/g)) {
          const target = relative(LOADER, resolve(dirname(file), m[1] as string));
          const top = target.split('/')[0] as string;
          if (FORMATS.includes(top) && top !== format) borrowed.push(`${relative(root, file)} imports ${m[1]}`);
        }
      }
    }
    expect(borrowed).toEqual([]);
  });
});
