// Measures the candidate regex engines for sidecarSearch on the same text, as ratios against V8's
// own (backtracking, not linear-time) engine measured in the same run. Run: node bench/regex-engines.mjs
// V8's experimental linear engine needs a flag set before any RegExp with the `l` flag is built.
import v8 from 'node:v8';
import { RE2JS } from 're2js';

v8.setFlagsFromString('--enable-experimental-regexp-engine');

const line = 'ts 2026-11-30T12:00:00Z INFO build step 17 compiled src/app.ts in 12ms \u4E2D\u6587 error: none\n';
const text = line.repeat(Math.ceil((16 * 1024 * 1024) / line.length));
const MB = text.length / 1e6;

function time(fn) {
  const runs = [];
  for (let i = 0; i < 5; i++) {
    const t = process.hrtime.bigint();
    fn();
    runs.push(Number(process.hrtime.bigint() - t) / 1e9);
  }
  runs.sort((a, b) => a - b);
  return runs[2];
}

function countNative(re) {
  let n = 0;
  for (const _ of text.matchAll(re)) n++;
  return n;
}
function countRe2js(re) {
  const m = re.matcher(text);
  let n = 0;
  while (m.find()) n++;
  return n;
}

const cases = [
  ['literal', 'compiled', false],
  ['class+repeat', 'step \\d+ compiled', false],
  ['case-insensitive', 'ERROR: \\w+', true],
  ['no match', 'zzz\\d+q', false],
];
const rows = [];
for (const [name, pattern, ci] of cases) {
  const base = time(() => countNative(new RegExp(pattern, ci ? 'gi' : 'g')));
  const re2 = RE2JS.compile(pattern, ci ? RE2JS.CASE_INSENSITIVE : 0);
  const re2t = time(() => countRe2js(re2));
  let linear = 'unsupported';
  try {
    const re = new RegExp(pattern, ci ? 'gil' : 'gl');
    linear = (base / time(() => countNative(re))).toFixed(3);
  } catch {
    /* the linear engine rejects this pattern or flag */
  }
  rows.push({ case: name, 'v8 backtracking MB/s': (MB / base).toFixed(0), 're2js / v8': (base / re2t).toFixed(3), 'v8 linear (l flag) / v8': linear });
}
const hostile = `${'a'.repeat(100_000)}b`;
const t0 = process.hrtime.bigint();
RE2JS.compile('(a+)+$').matcher(hostile).find();
rows.push({ case: '(a+)+$ on 100k a + b', 'v8 backtracking MB/s': 'exponential', 're2js / v8': `${(Number(process.hrtime.bigint() - t0) / 1e6).toFixed(0)} ms`, 'v8 linear (l flag) / v8': 'linear' });
console.table(rows);
