// The slowest test files and tests of a run, from its reports (docs/testing.md, "Finding the slow
// tests"). Reads any mix of:
//   - Vitest's JSON report:     npx vitest run --reporter=default --reporter=json --outputFile.json=/tmp/unit.json
//   - Playwright's JSON report: PLAYWRIGHT_JSON_OUTPUT_NAME=/tmp/e2e.json npx playwright test -c e2e/playwright.config.ts --reporter=list,json
//   - the text either printed (Vitest's default reporter, Playwright's list reporter), saved to a
//     file, when the run was stopped before its JSON report was written.
// Prints, per suite, the total time and the slowest files and tests (every attempt of a retried test
// counts: a retry is time the run spent).
//
// Usage: node tools/slowest.mjs [--top N] REPORT...   (npm run test:slowest -- REPORT...)
import { readFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';

const repoRoot = resolve(import.meta.dirname, '..');
const { values, positionals } = parseArgs({ options: { top: { type: 'string', default: '20' } }, allowPositionals: true });
const top = Number(values.top);
if (positionals.length === 0 || !Number.isInteger(top) || top < 1) {
  console.error('usage: node tools/slowest.mjs [--top N] REPORT...  (a Vitest or Playwright JSON report, or the text of either run)');
  process.exit(2);
}

const rel = (file) => (file.startsWith('/') ? relative(repoRoot, file) : file);
// eslint-disable-next-line no-control-regex
const plain = (text) => text.replace(/\u001b\[[0-9;]*m/g, '');

/** { suite, files: [{ file, ms }], tests: [{ file, title, ms, status }] } of one report. */
function readReport(path) {
  const text = readFileSync(path, 'utf8');
  let json;
  try {
    json = JSON.parse(text);
  } catch {
    return readText(plain(text), path);
  }
  if (Array.isArray(json.testResults)) return readVitest(json);
  if (Array.isArray(json.suites)) return readPlaywright(json);
  throw new Error(`${path}: neither a Vitest nor a Playwright JSON report`);
}

function readVitest(json) {
  const files = [];
  const tests = [];
  for (const result of json.testResults) {
    const file = rel(result.name);
    files.push({ file, ms: (result.endTime ?? 0) - (result.startTime ?? 0) });
    for (const t of result.assertionResults ?? []) tests.push({ file, title: t.fullName ?? t.title, ms: t.duration ?? 0, status: t.status });
  }
  return { suite: 'unit (vitest)', files, tests };
}

function readPlaywright(json) {
  const perFile = new Map();
  const tests = [];
  const walk = (suite, titles) => {
    for (const spec of suite.specs ?? []) {
      for (const test of spec.tests ?? []) {
        for (const result of test.results ?? []) {
          const file = rel(spec.file ?? suite.file);
          const title = `[${test.projectName}] ${[...titles, spec.title].join(' › ')}${result.retry ? ` (retry #${result.retry})` : ''}`;
          tests.push({ file, title, ms: result.duration ?? 0, status: result.status });
          perFile.set(file, (perFile.get(file) ?? 0) + (result.duration ?? 0));
        }
      }
    }
    for (const child of suite.suites ?? []) walk(child, child.title && !child.title.endsWith('.ts') ? [...titles, child.title] : titles);
  };
  for (const suite of json.suites) walk(suite, []);
  return { suite: 'e2e (playwright, time summed over the file\'s tests)', files: [...perFile].map(([file, ms]) => ({ file, ms })), tests };
}

/** Durations as the reporters print them: 812ms, 1.2s, 3.6m. */
function ms(amount, unit) {
  const n = Number(amount);
  return unit === 'm' ? n * 60_000 : unit === 's' ? n * 1000 : n;
}

function readText(text, path) {
  const lines = text.split('\n');
  // Playwright's list reporter: "  ✓  12 [chromium] › e2e/specs/x.spec.ts:10:3 › group › title (1.2m)".
  const pw = lines.map((l) => /^\s*([✓✘-])\s+\d+\s+(\[[^\]]+\]) › ([^:]+):\d+:\d+ › (.*) \((\d+(?:\.\d+)?)(ms|s|m)\)\s*$/.exec(l)).filter(Boolean);
  if (pw.length > 0) {
    const perFile = new Map();
    const tests = pw.map((m) => {
      const t = { file: m[3], title: `${m[2]} ${m[4]}`, ms: ms(m[5], m[6]), status: m[1] === '✓' ? 'passed' : m[1] === '✘' ? 'failed' : 'skipped' };
      perFile.set(t.file, (perFile.get(t.file) ?? 0) + t.ms);
      return t;
    });
    return { suite: `e2e (playwright list output, ${path})`, files: [...perFile].map(([file, total]) => ({ file, ms: total })), tests };
  }
  // Vitest's default reporter: " ✓ electron/x.test.ts (12 tests) 1234ms", then "     ✓ title 1234ms" for slow tests.
  const files = [];
  const tests = [];
  let current = '';
  for (const l of lines) {
    const file = /^ [✓❯×↓] (\S+\.test\.tsx?) \(.*?\)\s+(\d+(?:\.\d+)?)(ms|s|m)\s*$/.exec(l);
    if (file) {
      current = file[1];
      files.push({ file: current, ms: ms(file[2], file[3]) });
      continue;
    }
    const test = /^ {5}[✓×] (.*) (\d+(?:\.\d+)?)(ms|s|m)\s*$/.exec(l);
    if (test && current) tests.push({ file: current, title: test[1], ms: ms(test[2], test[3]), status: l.includes('×') ? 'failed' : 'passed' });
  }
  if (files.length === 0) throw new Error(`${path}: no test lines found (not a Vitest or Playwright report or output)`);
  return { suite: `unit (vitest default output, ${path}; only tests it printed, the slow ones)`, files, tests };
}

const seconds = (n) => `${(n / 1000).toFixed(1).padStart(7)} s`;

for (const path of positionals) {
  const { suite, files, tests } = readReport(path);
  const total = files.reduce((sum, f) => sum + f.ms, 0);
  console.log(`\n${suite}: ${files.length} files, ${tests.length} tests, ${seconds(total).trim()} in all`);
  console.log(`slowest ${Math.min(top, files.length)} files:`);
  for (const f of [...files].sort((a, b) => b.ms - a.ms).slice(0, top)) console.log(`  ${seconds(f.ms)}  ${(100 * f.ms / (total || 1)).toFixed(1).padStart(5)} %  ${f.file}`);
  console.log(`slowest ${Math.min(top, tests.length)} tests:`);
  for (const t of [...tests].sort((a, b) => b.ms - a.ms).slice(0, top)) console.log(`  ${seconds(t.ms)}  ${t.status === 'passed' ? '' : `(${t.status}) `}${t.file} › ${t.title}`);
}
