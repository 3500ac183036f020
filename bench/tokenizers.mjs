// The comparison behind docs/token-estimates.md: offline token counters measured on the real files
// of e2e/fixtures/real/ and on generated text — speed (MB/s, one core), peak memory, cold load, install
// size — and accuracy against the usage Claude Code records: the growth of the context from one
// call to the next (input + cache read + cache write, read with plain JSON.parse) against the
// estimate of the messages added between the two calls.
//
//   npm install --prefix /tmp/tokcand gpt-tokenizer@4.0.0 js-tiktoken@1.0.21 ai-tokenizer@1.0.6 tokenx@2.2.0
//   node bench/tokenizers.mjs --candidates /tmp/tokcand/node_modules [--mb 20]
//
// The candidates are not dependencies of the app (only the chosen one is): they are installed in a
// scratch folder. Each candidate is measured in its own fresh `node` process (--one NAME).
import { execFileSync, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';

const repoRoot = resolve(import.meta.dirname, '..');
const args = process.argv.slice(2);
const flag = (name, fallback) => {
  const k = args.indexOf(`--${name}`);
  return k === -1 ? fallback : args[k + 1];
};
const candidatesDir = resolve(flag('candidates', join(repoRoot, 'node_modules')));
const genMB = Number(flag('mb', '20'));

/** A count by an encoder whose `encode(text, allowedSpecial, disallowedSpecial)` gives the tokens. */
const encoderCount = (enc) => (s) => enc.encode(s, [], []).length;

/** Each candidate: how to load it (timed) and count one string with it, special-token text counted as text. */
const CANDIDATES = {
  'gpt-tokenizer o200k': {
    pkg: 'gpt-tokenizer',
    load: (req) => {
      const m = req('gpt-tokenizer/encoding/o200k_base');
      const opts = { disallowedSpecial: new Set() };
      return (s) => m.countTokens(s, opts);
    },
  },
  'js-tiktoken o200k': { pkg: 'js-tiktoken', load: (req) => encoderCount(new (req('js-tiktoken/lite').Tiktoken)(req('js-tiktoken/ranks/o200k_base'))) },
  'ai-tokenizer o200k': { pkg: 'ai-tokenizer', load: (req) => encoderCount(new (req('ai-tokenizer').default)(req('ai-tokenizer/encoding/o200k_base'))) },
  'ai-tokenizer claude': { pkg: 'ai-tokenizer', load: (req) => encoderCount(new (req('ai-tokenizer').default)(req('ai-tokenizer/encoding/claude'))) },
  'tokenx (heuristic)': {
    pkg: 'tokenx',
    load: (req) => {
      const { estimateTokenCount } = req('tokenx');
      return (s) => estimateTokenCount(s);
    },
  },
  'UTF-8 bytes / 4': { pkg: null, load: () => (s) => Math.ceil(Buffer.byteLength(s) / 4) },
};

/** Every file under e2e/fixtures/real, as text. */
function realFiles() {
  const out = [];
  const walk = (dir) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (!p.endsWith('.md') && !p.endsWith('.gz') && !p.endsWith('.eval')) out.push(p);
    }
  };
  walk(join(repoRoot, 'e2e/fixtures/real'));
  return out.sort();
}

/** Deterministic mixed text like a coding agent's tool output: prose, code, JSON, paths, hashes. */
function generatedText(bytes, seed = 7) {
  let x = seed;
  const rnd = () => ((x = (x * 1103515245 + 12345) % 2147483648) / 2147483648);
  const words = 'the of and to in is that for it with as was on be at by this from or have an are not function return const let if else import export class new await async error file path line value type string number'.split(' ');
  const parts = [];
  let n = 0;
  while (n < bytes) {
    const kind = rnd();
    let s;
    if (kind < 0.4) s = `${Array.from({ length: 8 + Math.floor(rnd() * 20) }, () => words[Math.floor(rnd() * words.length)]).join(' ')}.\n`;
    else if (kind < 0.7) s = `  ${words[Math.floor(rnd() * words.length)]}(${Math.floor(rnd() * 1000)}, "${words[Math.floor(rnd() * words.length)]}") { return x${Math.floor(rnd() * 50)} + 1; }\n`;
    else if (kind < 0.85) s = `${JSON.stringify({ id: Math.floor(rnd() * 1e9), name: words[Math.floor(rnd() * words.length)], ok: rnd() < 0.5 })}\n`;
    else if (kind < 0.95) s = `/home/user/project/src/${words[Math.floor(rnd() * words.length)]}/${words[Math.floor(rnd() * words.length)]}.ts:${Math.floor(rnd() * 900)}\n`;
    else s = `${Array.from({ length: 40 }, () => '0123456789abcdef'[Math.floor(rnd() * 16)]).join('')}\n`;
    parts.push(s);
    n += s.length;
  }
  return parts.join('');
}

/** 64 KiB pieces cut at a line end (a counter's regex runs per piece; a cut mid-word would change little). */
function pieces(text, size = 65536) {
  const out = [];
  for (let k = 0; k < text.length; ) {
    let end = Math.min(text.length, k + size);
    const nl = text.lastIndexOf('\n', end);
    if (end < text.length && nl > k) end = nl + 1;
    out.push(text.slice(k, end));
    k = end;
  }
  return out;
}

/** The content blocks a Claude Code record adds to the context, as the text the model reads. */
function recordTexts(rec, withThinking) {
  const out = [];
  const c = rec.message?.content;
  if (typeof c === 'string') return [c];
  if (!Array.isArray(c)) return out;
  for (const b of c) {
    if (b?.type === 'text') out.push(b.text ?? '');
    else if (b?.type === 'thinking' && withThinking) out.push(b.thinking ?? '');
    else if (b?.type === 'tool_use') out.push(`${b.name}${JSON.stringify(b.input ?? {})}`);
    else if (b?.type === 'tool_result') {
      if (typeof b.content === 'string') out.push(b.content);
      else if (Array.isArray(b.content)) for (const p of b.content) if (p?.type === 'text') out.push(p.text ?? '');
    }
  }
  return out;
}

/**
 * The main chain's calls of a Claude Code transcript (sidechains and `<synthetic>` left out; one
 * call per message.id, its usage the last line's), and for each two consecutive calls with no
 * compaction between: the recorded growth and the texts of the records between them.
 */
export function claudeCodeDeltas(path, withThinking) {
  const recs = [];
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    try {
      recs.push(JSON.parse(line));
    } catch {
      // a torn line: not a call
    }
  }
  const calls = [];
  const byId = new Map();
  recs.forEach((r, i) => {
    const u = r.type === 'assistant' && !r.isSidechain && r.message?.model !== '<synthetic>' ? r.message?.usage : undefined;
    if (!u) return;
    const ctx = (u.input_tokens ?? 0) + (u.cache_read_input_tokens ?? 0) + (u.cache_creation_input_tokens ?? 0);
    const id = r.message.id ?? `line${i}`;
    const known = byId.get(id);
    if (known) known.ctx = ctx;
    else {
      const call = { first: i, ctx, model: r.message.model };
      byId.set(id, call);
      calls.push(call);
    }
  });
  const deltas = [];
  for (let k = 0; k + 1 < calls.length; k++) {
    const a = calls[k];
    const b = calls[k + 1];
    const between = recs.slice(a.first, b.first);
    if (between.some((r) => r.type === 'system' && /compact/.test(r.subtype ?? ''))) continue;
    const texts = between.filter((r) => (r.type === 'user' || r.type === 'assistant') && !r.isSidechain).flatMap((r) => recordTexts(r, withThinking));
    deltas.push({ recorded: b.ctx - a.ctx, texts, model: a.model });
  }
  return deltas;
}

const median = (xs) => {
  const s = [...xs].sort((p, q) => p - q);
  return s.length === 0 ? NaN : s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

function vmHwmMB() {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
  return m ? Number(m[1]) / 1000 : NaN;
}

/** One candidate, in this (fresh) process. */
function measureOne(name) {
  const cand = CANDIDATES[name];
  const req = createRequire(join(candidatesDir, 'x.js'));
  const rssBefore = vmHwmMB();
  const t0 = performance.now();
  const count = cand.load(req);
  count('hello world');
  const coldMs = performance.now() - t0;
  const afterLoadMB = vmHwmMB();
  const speed = {};
  for (const [label, text] of [['real', realFiles().map((p) => readFileSync(p, 'utf8')).join('\n')], ['generated', generatedText(genMB * 1e6)]]) {
    const ps = pieces(text);
    const bytes = Buffer.byteLength(text);
    const t = performance.now();
    let tokens = 0;
    for (const p of ps) tokens += count(p);
    const s = (performance.now() - t) / 1000;
    speed[label] = { mbPerS: bytes / 1e6 / s, bytesPerToken: bytes / tokens };
  }
  const accuracy = {};
  for (const withThinking of [false, true]) {
    const pairs = [];
    for (const p of realFiles().filter((f) => f.includes('/claude-code/') && f.endsWith('.jsonl'))) {
      for (const d of claudeCodeDeltas(p, withThinking)) {
        if (d.recorded <= 200) continue;
        pairs.push({ file: p, model: d.model, recorded: d.recorded, estimated: d.texts.reduce((n, s) => n + count(s), 0) });
      }
    }
    accuracy[withThinking ? 'withThinking' : 'withoutThinking'] = pairs;
  }
  const peakMB = vmHwmMB();
  process.stdout.write(JSON.stringify({ name, coldMs, rssBeforeMB: rssBefore, afterLoadMB, peakMB, speed, accuracy }));
}

function installMB(pkg) {
  if (!pkg) return 0;
  return Number(execFileSync('du', ['-sk', join(candidatesDir, pkg)], { encoding: 'utf8' }).split('\t')[0]) / 1000;
}

/** Fit `recorded ≈ factor × estimated` (the median of the ratios) and the median absolute percentage error. */
function fit(pairs) {
  const factor = median(pairs.map((p) => p.recorded / p.estimated));
  return { factor, mdape: median(pairs.map((p) => Math.abs(factor * p.estimated - p.recorded) / p.recorded)) };
}

/** Leave-one-file-out: fit on the other files, error on this one's calls (how well a default carries to a new file). */
function crossFileError(pairs) {
  const files = [...new Set(pairs.map((p) => p.file))];
  const errs = [];
  for (const f of files) {
    const { factor } = fit(pairs.filter((p) => p.file !== f));
    for (const p of pairs.filter((q) => q.file === f)) errs.push(Math.abs(factor * p.estimated - p.recorded) / p.recorded);
  }
  return median(errs);
}

/** Fit within each file (what calibration does), the median over calls of the in-file error. */
function inFileError(pairs) {
  const errs = [];
  for (const f of new Set(pairs.map((p) => p.file))) {
    const own = pairs.filter((p) => p.file === f);
    const { factor } = fit(own);
    for (const p of own) errs.push(Math.abs(factor * p.estimated - p.recorded) / p.recorded);
  }
  return median(errs);
}

if (args[0] === '--one') {
  measureOne(args[1]);
} else {
  const rows = [];
  for (const name of Object.keys(CANDIDATES)) {
    process.stderr.write(`tokenizers: ${name}\n`);
    const r = spawnSync(process.execPath, [import.meta.filename, '--one', name, '--candidates', candidatesDir, '--mb', String(genMB)], { encoding: 'utf8', maxBuffer: 1 << 28 });
    if (r.status !== 0) {
      process.stderr.write(r.stderr);
      continue;
    }
    const m = JSON.parse(r.stdout);
    const acc = {};
    for (const [k, pairs] of Object.entries(m.accuracy)) {
      const all = fit(pairs);
      const byModel = {};
      for (const model of new Set(pairs.map((p) => p.model))) byModel[model] = { ...fit(pairs.filter((p) => p.model === model)), calls: pairs.filter((p) => p.model === model).length };
      acc[k] = { calls: pairs.length, medianRatio: median(pairs.map((p) => p.estimated / p.recorded)), factor: all.factor, pooledError: all.mdape, crossFileError: crossFileError(pairs), inFileError: inFileError(pairs), byModel };
    }
    rows.push({ name, installMB: installMB(CANDIDATES[name].pkg), coldMs: m.coldMs, afterLoadMB: m.afterLoadMB, peakMB: m.peakMB, speed: m.speed, accuracy: acc });
  }
  const f1 = (x) => (Number.isFinite(x) ? x.toFixed(1) : '–');
  const f2 = (x) => (Number.isFinite(x) ? x.toFixed(2) : '–');
  const pct = (x) => (Number.isFinite(x) ? `${(x * 100).toFixed(1)} %` : '–');
  console.log(`Node ${process.version}; ${new Date().toISOString()}; real files ${(realFiles().reduce((n, p) => n + statSync(p).size, 0) / 1e6).toFixed(1)} MB, generated ${genMB} MB`);
  console.log('| counter | install MB | cold load ms | RSS after load MB | peak RSS MB | MB/s real | MB/s generated | bytes/token real | est/recorded (median) | factor | error, pooled | error, other files\' factor | error, own file\'s factor |');
  console.log('|---|---|---|---|---|---|---|---|---|---|---|---|---|');
  for (const r of rows) {
    const a = r.accuracy.withThinking;
    console.log(`| ${r.name} | ${f1(r.installMB)} | ${f1(r.coldMs)} | ${f1(r.afterLoadMB)} | ${f1(r.peakMB)} | ${f1(r.speed.real.mbPerS)} | ${f1(r.speed.generated.mbPerS)} | ${f2(r.speed.real.bytesPerToken)} | ${f2(a.medianRatio)} | ${f2(a.factor)} | ${pct(a.pooledError)} | ${pct(a.crossFileError)} | ${pct(a.inFileError)} |`);
  }
  console.log('\nAccuracy without thinking blocks counted (calls, est/recorded median, in-file error):');
  for (const r of rows) {
    const a = r.accuracy.withoutThinking;
    console.log(`- ${r.name}: ${a.calls} calls, ${f2(a.medianRatio)}, ${pct(a.inFileError)}`);
  }
  console.log('\nFactor per model (with thinking):');
  for (const r of rows) console.log(`- ${r.name}: ${Object.entries(r.accuracy.withThinking.byModel).map(([m, v]) => `${m} ×${f2(v.factor)} (${pct(v.mdape)}, ${v.calls} calls)`).join('; ')}`);
  if (flag('json')) console.log(JSON.stringify(rows));
}
