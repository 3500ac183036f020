/**
 * Realistic text for sample sessions: build and test logs (npm/tsc/vitest, cargo, pytest) with ANSI
 * colour codes, source files (TypeScript, Rust, Python), JSON documents, stack traces, git output,
 * minified long lines and screenshots. Text mixes in CJK and emoji so that UTF-8 byte offsets and
 * UTF-16 offsets disagree, which is what the resolver's byte arithmetic must survive.
 *
 * Every function draws only from the `Rng` it is given. Sizes are UTF-8 byte targets: a generator
 * stops at the first line that reaches its target, so outputs land a little above it.
 */
import type { ContentPart } from '../../shared/index';
import { utf8Length } from '../../shared/index';
import type { Rng } from './rng';

/** The made-up project a session works on: names that recur across its outputs. */
export interface World {
  project: string;
  scope: string;
  home: string;
  crate: string;
  version: string;
  tsFiles: string[];
  rsFiles: string[];
  pyFiles: string[];
  authors: string[];
}

const PROJECTS = ['ledger', 'atlas', 'quill', 'harbor', 'nimbus', 'tessera'];
const SCOPES = ['@acme', '@northwind', '@kumo', '@fjord'];
const CRATES = ['tokenizer', 'ledger-dsl', 'fmtkit', 'rate-engine'];
const AUTHORS = ['李雷 <li.lei@example.com>', 'Ana Souza <ana@example.com>', '田中 花子 <hanako@example.jp>', 'Sam Okafor <sam.o@example.com>', '김민준 <minjun@example.kr>'];
const VERBS = ['parse', 'format', 'load', 'resolve', 'apply', 'merge', 'render', 'validate', 'encode', 'decode', 'fetch', 'flush', 'normalize', 'split', 'settle'];
const NOUNS = ['Amount', 'Ledger', 'Entry', 'Invoice', 'Account', 'Currency', 'Token', 'Span', 'Locale', 'Batch', 'Journal', 'Rate', 'Posting', 'Period'];
const CJK_WORDS = ['金额', '台账', '汇率', '发票', '会计分录', '结算', '勘定科目', '請求書', '仕訳帳', '통화', '장부', '月末処理', '对账'];
export const CJK_SENTENCES = [
  '解析中文输入时保留全角符号',
  '按月汇总所有分录',
  '処理できない文字があります',
  '금액 형식이 올바르지 않습니다',
  '请不要修改这一段逻辑',
  '月末の締め処理で丸め誤差が出る',
  '汇率按中国人民银行中间价计算',
];
const EMOJI = ['✅', '❌', '⚠️', '🚀', '🔥', '📦', '🧪', '💥', '🙏', '👀', '🐛', '✨', '🎉', '🧾'];

export function makeWorld(rng: Rng): World {
  const project = rng.pick(PROJECTS);
  const crate = rng.pick(CRATES);
  return {
    project,
    scope: rng.pick(SCOPES),
    home: `/home/dev/${project}`,
    crate,
    version: `${rng.int(1, 4)}.${rng.int(0, 12)}.${rng.int(0, 9)}`,
    tsFiles: ['src/api/client.ts', 'src/i18n/format.ts', 'src/ledger/posting.ts', 'src/ledger/period.ts', 'src/util/money.ts', 'src/cli/main.ts', 'src/store/accounts.ts'],
    rsFiles: [`crates/${crate}/src/lexer.rs`, `crates/${crate}/src/parser.rs`, `crates/${crate}/src/span.rs`, `crates/${crate}/src/lib.rs`],
    pyFiles: ['etl/loader.py', 'etl/rates.py', 'etl/report.py', 'tests/test_loader.py'],
    authors: rng.sample(AUTHORS, 3),
  };
}

// ANSI SGR colour codes, closed the way the tools themselves close them.
const ESC = '\u001b[';
const sgr = (open: string, close: string) => (s: string) => `${ESC}${open}m${s}${ESC}${close}m`;
const red = sgr('31', '39');
const green = sgr('32', '39');
const yellow = sgr('33', '39');
const cyan = sgr('36', '39');
const gray = sgr('90', '39');
const bold = sgr('1', '22');
const dim = sgr('2', '22');
const brightCyan = sgr('96', '0');
const brightYellow = sgr('93', '0');
const brightRed = sgr('91', '0');

function ident(rng: Rng): string {
  return rng.pick(VERBS) + rng.pick(NOUNS);
}

function snake(s: string): string {
  return s.replace(/[A-Z]/g, (c, i: number) => (i > 0 ? '_' : '') + c.toLowerCase());
}

/** Appends lines from `line()` to `head` until `target` bytes (counting `tail`) are reached. */
function fill(target: number, head: string, line: () => string, tail = ''): string {
  let s = head;
  const tailBytes = utf8Length(tail);
  let bytes = utf8Length(s);
  while (bytes + tailBytes < target) {
    const l = line();
    s += l;
    bytes += utf8Length(l);
  }
  return s + tail;
}

function clock(rng: Rng): string {
  const two = (n: number) => String(n).padStart(2, '0');
  return `${two(rng.int(8, 19))}:${two(rng.int(0, 59))}:${two(rng.int(0, 59))}`;
}

// ---------------------------------------------------------------------------------------------
// Build and test logs

const TS_ERRORS: [string, string][] = [
  ['TS2322', "Type 'string | undefined' is not assignable to type 'string'.\n  Type 'undefined' is not assignable to type 'string'."],
  ['TS2345', "Argument of type 'number' is not assignable to parameter of type 'bigint'."],
  ['TS7006', "Parameter 'entry' implicitly has an 'any' type."],
  ['TS2339', "Property 'currency' does not exist on type 'Posting'."],
  ['TS18048', "'options.locale' is possibly 'undefined'."],
  ['TS2532', 'Object is possibly \u2018undefined\u2019.'],
  ['TS2307', "Cannot find module '@acme/fmtkit' or its corresponding type declarations."],
];

function tscError(rng: Rng, world: World): { file: string; text: string } {
  const file = rng.pick(world.tsFiles);
  const line = rng.int(3, 240);
  const col = rng.int(3, 40);
  const [code, message] = rng.pick(TS_ERRORS);
  const name = ident(rng);
  const source = `    const ${name} = ${rng.pick(['options.locale', 'entry.amount', 'rates[code]', 'posting.currency', `format(${rng.int(1, 9999)}n)`])};`;
  const squiggle = ' '.repeat(source.length - source.trimStart().length + 6) + '~'.repeat(rng.int(4, 16));
  const text =
    `${brightCyan(file)}:${brightYellow(String(line))}:${brightYellow(String(col))} - ${brightRed('error')}${gray(` ${code}: `)}${message}\n\n` +
    `${ESC}7m${line}${ESC}0m ${source}\n${ESC}7m${' '.repeat(String(line).length)}${ESC}0m ${brightRed(squiggle)}\n\n`;
  return { file, text };
}

/** `npm run build` (or bare `tsc` with `viaNpm` false): coloured tsc errors, a summary table, npm's failure trailer. */
export function npmBuildLog(rng: Rng, world: World, target: number, viaNpm = true): string {
  const head = viaNpm ? `\n> ${world.scope}/${world.project}@${world.version} build\n> tsc -p tsconfig.build.json && vite build\n\n` : '';
  let errors = 0;
  const files = new Set<string>();
  const body = fill(Math.max(0, target - 700), head, () => {
    errors++;
    const e = tscError(rng, world);
    files.add(e.file);
    return e.text;
  });
  const table = [...files].map((f) => `     ${rng.int(1, 4)}  ${f}:${rng.int(2, 200)}`).join('\n');
  return (
    body +
    `\nFound ${errors} errors in ${files.size} files.\n\nErrors  Files\n${table}\n` +
    (!viaNpm ? '' : `npm error Lifecycle script \`build\` failed with error:\nnpm error code 2\nnpm error path ${world.home}\n` +
    `npm error workspace ${world.scope}/${world.project}@${world.version}\nnpm error location ${world.home}\n` +
    `npm error command failed\nnpm error command sh -c tsc -p tsconfig.build.json && vite build\n`)
  );
}

function vitestName(rng: Rng): string {
  return rng.pick([
    `formats ${rng.pick(CJK_WORDS)} in ${rng.pick(['zh-CN', 'ja-JP', 'ko-KR', 'en-GB'])}`,
    `${snake(ident(rng)).replace(/_/g, ' ')} handles empty input`,
    `rounds half-even at ${rng.int(2, 6)} decimals`,
    `${rng.pick(CJK_SENTENCES)}`,
    `keeps ${rng.pick(EMOJI)} intact across a ${rng.int(2, 64)} KiB boundary`,
    `rejects ${rng.pick(['NaN', 'Infinity', '-0', '1e309'])} amounts`,
  ]);
}

/** `npm test` (vitest): coloured per-file results, verbose test names, one failure with a diff. */
export function vitestLog(rng: Rng, world: World, target: number, failing = true): string {
  const head = `\n${bold(`${ESC}46m RUN ${ESC}49m`)} ${cyan('v1.6.0')} ${gray(world.home)}\n\n`;
  let files = 0;
  let tests = 0;
  const failName = vitestName(rng);
  const failFile = rng.pick(world.tsFiles).replace(/\.ts$/, '.test.ts');
  const body = fill(Math.max(0, target - 1400), head, () => {
    files++;
    const n = rng.int(3, 14);
    tests += n;
    const file = rng.pick(world.tsFiles).replace(/\.ts$/, `.${rng.pick(['test', 'spec'])}.ts`);
    let s = ` ${green('✓')} ${file} ${dim(`(${n} tests)`)} ${gray(`${rng.int(2, 400)}${dim('ms')}`)}\n`;
    for (let i = 0; i < n; i++) s += `   ${green('✓')} ${vitestName(rng)} ${gray(`${rng.int(0, 40)}ms`)}\n`;
    return s;
  });
  const expected = `'${rng.pick(['￥', '¥', '₩', '€'])}${rng.int(1, 9)},${rng.int(100, 999)}.${rng.int(10, 99)}'`;
  const received = expected.replace('￥', '¥').replace('₩', 'W').replace('€', 'EUR ');
  const failure = failing
    ? ` ${red('❯')} ${failFile} ${dim(`(${rng.int(4, 12)} tests | `)}${red('1 failed')}${dim(')')}\n` +
      `   ${red('×')} ${failName}\n     ${red(`→ expected ${received} to be ${expected} // Object.is equality`)}\n\n` +
      `${red('⎯⎯⎯⎯⎯⎯⎯ Failed Tests 1 ⎯⎯⎯⎯⎯⎯⎯')}\n\n ${red(bold(' FAIL '))} ${failFile} ${gray('>')} ${failName}\n` +
      `${red(bold('AssertionError'))}: expected ${received} to be ${expected} // Object.is equality\n\n` +
      `${green('- Expected')}\n${red('+ Received')}\n\n${green(`- ${expected.slice(1, -1)}`)}\n${red(`+ ${received.slice(1, -1)}`)}\n\n` +
      ` ${cyan('❯')} ${failFile}:${rng.int(10, 90)}:${rng.int(5, 40)}\n` +
      `     40|   it('${failName}', () => {\n     41|     const s = formatAmount(${rng.int(1000, 999999)}n, '${rng.pick(['zh-CN', 'ja-JP'])}');\n` +
      `     42|     expect(s).toBe(${expected});\n       |               ${red('^')}\n     43|   });\n\n`
    : '';
  const summary = failing
    ? ` ${dim('Test Files')}  ${bold(red('1 failed'))}${gray(' | ')}${bold(green(`${files} passed`))}${gray(` (${files + 1})`)}\n` +
      `      ${dim('Tests')}  ${bold(red('1 failed'))}${gray(' | ')}${bold(green(`${tests} passed`))}${gray(` (${tests + 1})`)}\n`
    : ` ${dim('Test Files')}  ${bold(green(`${files} passed`))}${gray(` (${files})`)}\n      ${dim('Tests')}  ${bold(green(`${tests} passed`))}${gray(` (${tests})`)}\n`;
  return (
    body +
    failure +
    summary +
    `   ${dim('Start at')}  ${clock(rng)}\n   ${dim('Duration')}  ${rng.int(1, 9)}.${rng.int(10, 99)}s ${gray(`(transform ${rng.int(100, 900)}ms, setup 0ms, collect ${rng.int(1, 3)}.${rng.int(10, 99)}s, tests ${rng.int(100, 900)}ms)`)}\n\n` +
    (failing ? `npm error Lifecycle script \`test\` failed with error:\nnpm error code 1\n` : '')
  );
}

const CARGO_DEPS = ['proc-macro2 v1.0.86', 'unicode-ident v1.0.12', 'quote v1.0.36', 'syn v2.0.72', 'serde v1.0.204', 'serde_derive v1.0.204', 'memchr v2.7.4', 'regex-syntax v0.8.4', 'aho-corasick v1.1.3', 'regex v1.10.5', 'unicode-width v0.1.13', 'thiserror v1.0.63', 'itoa v1.0.11', 'ryu v1.0.18', 'serde_json v1.0.120', 'smallvec v1.13.2', 'bumpalo v3.16.0'];

function cargoWarning(rng: Rng, world: World): string {
  const file = rng.pick(world.rsFiles);
  const line = rng.int(10, 400);
  const name = snake(ident(rng));
  return (
    `${bold(yellow('warning'))}${bold(`: unused variable: \`${name}\``)}\n` +
    `  ${cyan('-->')} ${file}:${line}:${rng.int(9, 20)}\n   ${cyan('|')}\n${cyan(String(line).padEnd(3))}${cyan('|')}         let ${name} = self.${rng.pick(['span()', 'peek()', 'bump()', 'cursor.pos()'])};\n` +
    `   ${cyan('|')}             ${yellow('^'.repeat(name.length))} ${yellow(`help: if this is intentional, prefix it with an underscore: \`_${name}\``)}\n   ${cyan('|')}\n` +
    `   ${cyan('=')} ${bold('note')}: \`#[warn(unused_variables)]\` on by default\n\n`
  );
}

function cargoTestName(rng: Rng): string {
  return `${rng.pick(['lexer', 'parser', 'span', 'fmt', 'rates'])}::tests::${snake(ident(rng))}${rng.pick(['', '_cjk', '_emoji', '_empty', '_overflow', '_crlf'])}`;
}

/** Three-byte characters only (CJK ideographs, kana): a run of them has a known byte length. */
const THREE_BYTE_NAME = '识别中文标识符并保留全角符号按月汇总所有分录処理できない文字勘定科目請求書仕訳帳';

/**
 * Inserts a passing test line, at a line start shortly before byte `offset`, whose CJK test name
 * (Rust identifiers may be non-ASCII) spans `offset` with `offset` falling inside a character. A
 * cut at `offset` (a kept prefix, a legacy cap) then has to floor to a character boundary.
 */
function straddle(text: string, offset: number): string {
  const modules = ['fmt', 'span', 'rates', 'lexer', 'parser'];
  let bytes = 0;
  let at: { index: number; byte: number } | undefined;
  for (let i = 0; i < text.length && bytes <= offset - 30; i++) {
    if (i === 0 || text[i - 1] === '\n') at = { index: i, byte: bytes };
    bytes += utf8Length(text[i] ?? '');
  }
  if (!at) return text;
  const d = offset - at.byte;
  for (const m of modules) {
    const head = `test ${m}::tests::`;
    const r = d - head.length;
    if (r <= 0 || r % 3 === 0) continue;
    const n = Math.floor(r / 3) + 2;
    let name = '';
    while (name.length < n) name += THREE_BYTE_NAME;
    const line = `${head}${name.slice(0, n)} ... ${green('ok')}\n`;
    return text.slice(0, at.index) + line + text.slice(at.index);
  }
  return text;
}

/**
 * `cargo test`: a long shared prefix (compilation, warnings, passing tests) and two alternative
 * tails, so a re-run after a rewind can share the old run's prefix and differ later. At each of
 * `cutsInside` (byte offsets before the prefix's end) a multi-byte character straddles the offset.
 */
export function cargoTestRun(rng: Rng, world: World, prefixTarget: number, cutsInside: readonly number[] = []): { prefix: string; failTail: string; passTail: string } {
  let head = '';
  for (const dep of rng.sample(CARGO_DEPS, rng.int(9, CARGO_DEPS.length))) head += `   ${bold(green('Compiling'))} ${dep}\n`;
  head += `   ${bold(green('Compiling'))} ${world.crate} v0.${rng.int(1, 9)}.${rng.int(0, 9)} (${world.home}/crates/${world.crate})\n`;
  for (let i = rng.int(1, 3); i > 0; i--) head += cargoWarning(rng, world);
  head +=
    `    ${bold(green('Finished'))} \`test\` profile [unoptimized + debuginfo] target(s) in ${rng.int(3, 40)}.${rng.int(10, 99)}s\n` +
    `     ${bold(green('Running'))} unittests src/lib.rs (target/debug/deps/${world.crate.replace(/-/g, '_')}-${rng.hex(16)})\n\nrunning ${rng.int(140, 260)} tests\n`;
  let prefix = fill(prefixTarget, head, () => `test ${cargoTestName(rng)} ... ${green('ok')}\n`);
  // In increasing order: each insertion shifts everything after it.
  for (const offset of [...cutsInside].sort((x, y) => x - y)) if (offset < utf8Length(prefix) - 200) prefix = straddle(prefix, offset);
  const failing = cargoTestName(rng);
  const word = rng.pick(CJK_WORDS);
  let failTail = '';
  for (let i = rng.int(20, 40); i > 0; i--) failTail += `test ${cargoTestName(rng)} ... ${green('ok')}\n`;
  failTail +=
    `test ${failing} ... ${red('FAILED')}\n\nfailures:\n\n---- ${failing} stdout ----\n` +
    `thread '${failing}' panicked at crates/${world.crate}/src/parser.rs:${rng.int(100, 400)}:9:\nassertion \`left == right\` failed\n` +
    `  left: Token { kind: Ident, text: "${word}", span: ${rng.int(0, 40)}..${rng.int(41, 80)} }\n right: Token { kind: Error, text: "${word.slice(0, 1)}", span: ${rng.int(0, 40)}..${rng.int(41, 80)} }\n` +
    `stack backtrace:\n   0: rust_begin_unwind\n             at /rustc/${rng.hex(40)}/library/std/src/panicking.rs:652:5\n` +
    `   1: core::panicking::panic_fmt\n             at /rustc/${rng.hex(40)}/library/core/src/panicking.rs:72:14\n` +
    `   2: core::panicking::assert_failed_inner\n   3: core::panicking::assert_failed\n   4: ${world.crate.replace(/-/g, '_')}::parser::tests::${failing.split('::').pop() ?? 'case'}\n` +
    `             at ./src/parser.rs:${rng.int(100, 400)}:9\nnote: Some details are omitted, run with \`RUST_BACKTRACE=full\` for a verbose backtrace.\n\n\nfailures:\n    ${failing}\n\n` +
    `test result: ${red('FAILED')}. ${rng.int(140, 259)} passed; 1 failed; ${rng.int(0, 3)} ignored; 0 measured; 0 filtered out; finished in ${rng.int(0, 2)}.${rng.int(10, 99)}s\n\n` +
    `${bold(red('error'))}: test failed, to rerun pass \`-p ${world.crate} --lib\`\n`;
  let passTail = '';
  for (let i = rng.int(20, 40); i > 0; i--) passTail += `test ${cargoTestName(rng)} ... ${green('ok')}\n`;
  passTail +=
    `\ntest result: ${green('ok')}. ${rng.int(140, 260)} passed; 0 failed; ${rng.int(0, 3)} ignored; 0 measured; 0 filtered out; finished in ${rng.int(0, 2)}.${rng.int(10, 99)}s\n\n` +
    `   ${bold(green('Doc-tests'))} ${world.crate.replace(/-/g, '_')}\n\nrunning ${rng.int(3, 12)} tests\n` +
    `test src/lib.rs - Lexer::new (line ${rng.int(10, 90)}) ... ${green('ok')}\ntest src/parser.rs - parse_amount (line ${rng.int(10, 90)}) ... ${green('ok')}\n\n` +
    `test result: ${green('ok')}. all doc-tests passed; finished in ${rng.int(0, 1)}.${rng.int(10, 99)}s ${rng.pick(EMOJI)}\n`;
  return { prefix, failTail, passTail };
}

/** `pytest -q`: progress dots, a traceback with a UnicodeDecodeError on a Japanese file name. */
export function pytestLog(rng: Rng, world: World, target: number): string {
  const head =
    `============================= test session starts ==============================\n` +
    `platform linux -- Python 3.12.${rng.int(1, 5)}, pytest-8.2.${rng.int(0, 2)}, pluggy-1.5.0\nrootdir: ${world.home}-etl\nconfigfile: pyproject.toml\ncollected ${rng.int(40, 400)} items\n\n`;
  let pct = 0;
  const body = fill(Math.max(0, target - 1500), head, () => {
    pct = Math.min(99, pct + rng.int(1, 6));
    const dots = Array.from({ length: rng.int(5, 40) }, () => (rng.chance(0.03) ? red('F') : rng.chance(0.03) ? yellow('s') : green('.'))).join('');
    return `tests/test_${snake(ident(rng))}.py ${dots}`.padEnd(80) + ` [${String(pct).padStart(3)}%]\n`;
  });
  const fixture = rng.pick(['売上_2024.csv', '仕訳帳_03月.csv', '勘定科目.tsv', '청구서_목록.csv']);
  return (
    body +
    `\n=================================== FAILURES ===================================\n____________________________ test_parse_japanese_csv ____________________________\n\n` +
    `    def test_parse_japanese_csv():\n>       rows = load_csv(FIXTURES / "${fixture}")\n\ntests/test_loader.py:${rng.int(10, 80)}: \n` +
    `_ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ \n` +
    `etl/loader.py:${rng.int(40, 120)}: in load_csv\n    for row in csv.reader(fh):\n<frozen codecs>:322: in decode\n    ???\n` +
    `E   UnicodeDecodeError: 'utf-8' codec can't decode byte 0x${rng.hex(2)} in position ${rng.int(2, 60)}: invalid start byte\n\n` +
    `=========================== short test summary info ============================\nFAILED tests/test_loader.py::test_parse_japanese_csv - UnicodeDecodeError: 'utf-8' codec can't decode byte\n` +
    `${red(`========================= 1 failed, ${rng.int(40, 390)} passed in ${rng.int(1, 30)}.${rng.int(10, 99)}s =========================`)}\n`
  );
}

/** A crash of a Node script: source line, caret, error with cause, async stack. */
export function nodeCrash(rng: Rng, world: World): string {
  const migration = `00${rng.int(10, 99)}_${snake(rng.pick(NOUNS))}_${rng.pick(['currency', 'locale', 'index', 'period'])}`;
  return (
    `${world.home}/scripts/migrate.js:${rng.int(20, 60)}\n      throw new Error(\`migration \${id} failed: \${e.message}\`, { cause: e });\n      ^\n\n` +
    `Error: migration ${migration} failed: duplicate key value violates unique constraint "accounts_pkey"\n` +
    `    at migrate (${world.home}/scripts/migrate.js:${rng.int(20, 60)}:13)\n    at async main (${world.home}/scripts/migrate.js:${rng.int(61, 90)}:5) {\n` +
    `  [cause]: error: duplicate key value violates unique constraint "accounts_pkey"\n      at Parser.parseErrorMessage (${world.home}/node_modules/pg-protocol/dist/parser.js:283:98)\n` +
    `      at Parser.handlePacket (${world.home}/node_modules/pg-protocol/dist/parser.js:122:29)\n      at Socket.<anonymous> (${world.home}/node_modules/pg-protocol/dist/index.js:11:42) {\n` +
    `    length: ${rng.int(180, 260)},\n    severity: 'ERROR',\n    code: '23505',\n    detail: 'Key (id)=(${rng.int(1000, 9999)}) already exists. 账户「${rng.pick(CJK_WORDS)}」已存在',\n` +
    `    schema: 'public',\n    table: 'accounts',\n    constraint: 'accounts_pkey',\n  }\n}\n\nNode.js v20.${rng.int(10, 19)}.${rng.int(0, 3)}\n`
  );
}

// ---------------------------------------------------------------------------------------------
// Source files

function tsFunction(rng: Rng): string {
  const name = ident(rng);
  const noun = rng.pick(NOUNS);
  const comment = rng.chance(0.4) ? `  // ${rng.pick(CJK_SENTENCES)} ${rng.chance(0.5) ? rng.pick(EMOJI) : ''}\n` : '';
  return (
    `/** ${name}: ${rng.pick(['keeps amounts as bigint minor units', 'never rounds twice', 'accepts fullwidth digits (０-９)', 'is pure; callers own I/O'])}. */\n` +
    `export function ${name}(input: ${noun}, options: ${noun}Options = {}): ${rng.pick(['string', 'bigint', `${noun} | undefined`, `readonly ${noun}[]`])} {\n` +
    comment +
    `  const locale = options.locale ?? '${rng.pick(['zh-CN', 'ja-JP', 'en-US', 'ko-KR'])}';\n` +
    `  if (input.${rng.pick(['amount', 'entries', 'rate'])} === undefined) {\n    throw new RangeError(\`${name}: missing field in \${JSON.stringify(input).slice(0, ${rng.int(40, 120)})}\`);\n  }\n` +
    `  const parts = new Intl.NumberFormat(locale, { style: 'currency', currency: '${rng.pick(['CNY', 'JPY', 'KRW', 'EUR'])}' }).formatToParts(Number(input.amount) / ${rng.pick(['100', '1000', '1'])});\n` +
    `  return parts.map((p) => (p.type === 'currency' ? symbolFor(locale, p.value) : p.value)).join('') as never;\n}\n\n`
  );
}

export function tsSource(rng: Rng, world: World, target: number): string {
  const noun = rng.pick(NOUNS);
  const head =
    `import { z } from 'zod';\nimport type { ${noun}, ${noun}Options } from './types';\nimport { symbolFor } from '../i18n/symbols';\n\n` +
    `/** ${rng.pick(CJK_SENTENCES)} — see docs/${snake(noun)}.md */\nexport const ${snake(noun).toUpperCase()}_SCHEMA = z.object({\n  id: z.string().uuid(),\n  amount: z.bigint(),\n  memo: z.string().max(${rng.int(64, 512)}),\n});\n\n`;
  return fill(target, head, () => tsFunction(rng));
}

function rustFunction(rng: Rng): string {
  const name = snake(ident(rng));
  const noun = rng.pick(NOUNS);
  return (
    `    /// ${rng.pick(['Parses one ', 'Consumes a ', 'Peeks at the next '])}${noun.toLowerCase()}; ${rng.pick(['CJK identifiers are allowed', 'spans are byte offsets, not chars', 'returns None at EOF'])}.\n` +
    `    pub fn ${name}(&mut self) -> Result<${noun}, ParseError> {\n` +
    `        let start = self.cursor.pos();\n        match self.peek() {\n` +
    `            Some(TokenKind::Ident) => {\n                let text = self.bump().text;\n                // ${rng.pick(CJK_SENTENCES)}\n` +
    `                if !text.chars().all(|c| c.is_alphanumeric() || c == '_' || ('\\u{4e00}'..='\\u{9fff}').contains(&c)) {\n` +
    `                    return Err(ParseError::new("invalid identifier", start..self.cursor.pos()));\n                }\n` +
    `                Ok(${noun}::from_text(text, start..self.cursor.pos()))\n            }\n` +
    `            Some(kind) => Err(ParseError::unexpected(kind, start..self.cursor.pos())),\n            None => Err(ParseError::eof(start)),\n        }\n    }\n\n`
  );
}

/** A Rust module of `path`; `fingerprint` makes the text unique to this file, near its top. */
export function rustSource(rng: Rng, world: World, target: number, fingerprint: string, path: string): string {
  const module = path.replace(/^.*\//, '').replace(/\.rs$/, '');
  const head =
    `//! ${module.charAt(0).toUpperCase()}${module.slice(1)} for the ${world.project} DSL. 支持中文标识符 (CJK identifiers) since v0.3.\n` +
    `use crate::lexer::{Lexer, Token, TokenKind};\nuse crate::span::Span;\nuse std::fmt;\n\n` +
    `/// Stamped by build.rs; bumps whenever the grammar changes.\npub const GRAMMAR_FINGERPRINT: &str = "${fingerprint}";\n\n` +
    `#[derive(Debug, Clone, PartialEq)]\npub struct ParseError {\n    pub message: &'static str,\n    pub span: Span,\n}\n\n` +
    `pub struct Parser<'a> {\n    lexer: Lexer<'a>,\n    cursor: Cursor,\n    depth: u32,\n}\n\nimpl<'a> Parser<'a> {\n`;
  const tail =
    `}\n\nimpl fmt::Display for ParseError {\n    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {\n        write!(f, "{} at {}..{}", self.message, self.span.start, self.span.end)\n    }\n}\n`;
  return fill(target, head, () => rustFunction(rng), tail);
}

function pyFunction(rng: Rng): string {
  const name = snake(ident(rng));
  return (
    `def ${name}(rows: Iterable[dict[str, str]], *, encoding: str = "${rng.pick(['utf-8', 'cp932', 'shift_jis', 'euc-kr'])}") -> list[Entry]:\n` +
    `    """${rng.pick(CJK_SENTENCES)}。\n\n    Amounts are Decimal; ${rng.pick(['never float', 'rounded ROUND_HALF_EVEN', 'minor units only'])}.\n    """\n` +
    `    out: list[Entry] = []\n    for lineno, row in enumerate(rows, start=2):\n        try:\n` +
    `            amount = Decimal(row["${rng.pick(['金额', '金額', 'amount', '금액'])}"].replace(",", ""))\n` +
    `        except (KeyError, InvalidOperation) as exc:\n            raise LoaderError(f"line {lineno}: bad amount {row!r}") from exc\n` +
    `        out.append(Entry(account=row["account"], amount=amount, memo=row.get("memo", "")))\n    return out\n\n\n`
  );
}

export function pySource(rng: Rng, _world: World, target: number): string {
  const head =
    `"""Loader for monthly ledger exports (月次仕訳帳)."""\nfrom __future__ import annotations\n\nimport csv\nfrom dataclasses import dataclass\n` +
    `from decimal import Decimal, InvalidOperation\nfrom typing import Iterable\n\n\n@dataclass(frozen=True)\nclass Entry:\n    account: str\n    amount: Decimal\n    memo: str = ""\n\n\n` +
    `class LoaderError(ValueError):\n    pass\n\n\n`;
  return fill(target, head, () => pyFunction(rng));
}

// ---------------------------------------------------------------------------------------------
// JSON documents and other command output

/** package.json; `nonce` ends up in `packageManager`, which makes the text unique to this session. */
export function packageJson(rng: Rng, world: World, nonce: string): string {
  const doc = {
    name: `${world.scope}/${world.project}`,
    version: world.version,
    description: `Double-entry ${world.project} service — 复式记账服务 📒`,
    type: 'module',
    packageManager: `npm@10.8.2+sha512.${nonce}`,
    scripts: { build: 'tsc -p tsconfig.build.json && vite build', test: 'vitest run', lint: 'eslint . --max-warnings 0', migrate: 'node scripts/migrate.js' },
    dependencies: { zod: '^3.23.8', pg: '^8.12.0', [`${world.scope}/fmtkit`]: `^${rng.int(0, 3)}.${rng.int(0, 9)}.0` },
    devDependencies: { typescript: '~5.5.4', vitest: '^1.6.0', vite: '^5.4.2', eslint: '^9.9.0' },
    engines: { node: '>=20' },
  };
  return JSON.stringify(doc, null, 2) + '\n';
}

function account(rng: Rng, id: number): Record<string, unknown> {
  return {
    id: `acc_${rng.hex(12)}`,
    number: 1000 + id,
    name: rng.chance(0.5) ? `${rng.pick(CJK_WORDS)}・${rng.pick(NOUNS)}` : `${rng.pick(NOUNS)} ${rng.pick(['receivable', 'payable', 'clearing', 'suspense'])}`,
    currency: rng.pick(['CNY', 'JPY', 'KRW', 'EUR', 'USD']),
    balance_minor: String(rng.int(-9_000_000, 90_000_000)),
    tags: rng.sample(['月末', 'audit', '🧾', 'fx', 'legacy', '要確認'], rng.int(0, 3)),
    updated_at: `2026-0${rng.int(1, 9)}-${String(rng.int(10, 28))}T${clock(rng)}Z`,
  };
}

/** A REST response body: pretty-printed, or on one long line as most servers send it. */
export function apiResponseJson(rng: Rng, target: number, oneLine: boolean): string {
  const items: Record<string, unknown>[] = [];
  let bytes = 0;
  while (bytes < target - 200) {
    const a = account(rng, items.length);
    items.push(a);
    bytes += utf8Length(JSON.stringify(a, null, oneLine ? undefined : 2)) + 4;
  }
  const body = { data: items, page: { limit: items.length, next_cursor: rng.hex(24) }, request_id: `req_${rng.hex(20)}` };
  return oneLine ? JSON.stringify(body) + '\n' : JSON.stringify(body, null, 2) + '\n';
}

export function gitLog(rng: Rng, world: World, target: number): string {
  const subjects = ['fix(i18n): use fullwidth ￥ for zh-CN', 'feat(parser): accept CJK identifiers', 'chore(deps): bump vite to 5.4.2', 'refactor(ledger): postings are bigint minor units', 'test: cover 月末 rounding', 'fix(etl): decode cp932 exports 🐛', 'docs: explain the rate cache'];
  return fill(target, '', () => {
    const author = rng.pick(world.authors);
    return (
      `commit ${rng.hex(40)}\nAuthor: ${author}\nDate:   ${rng.pick(['Mon', 'Tue', 'Wed', 'Thu', 'Fri'])} ${rng.pick(['Sep', 'Oct', 'Nov'])} ${rng.int(1, 28)} ${clock(rng)} 2026 +0${rng.int(0, 9)}00\n\n` +
      `    ${rng.pick(subjects)}\n${rng.chance(0.5) ? `\n    ${rng.pick(CJK_SENTENCES)}\n` : ''}\n`
    );
  });
}

export function gitDiff(rng: Rng, world: World, target: number): string {
  const file = rng.pick(world.tsFiles);
  const head = `diff --git a/${file} b/${file}\nindex ${rng.hex(7)}..${rng.hex(7)} 100644\n--- a/${file}\n+++ b/${file}\n`;
  let line = rng.int(10, 50);
  return fill(target, head, () => {
    const name = ident(rng);
    line += rng.int(8, 30);
    return (
      `@@ -${line},7 +${line},8 @@ export function ${name}(input: ${rng.pick(NOUNS)}) {\n   const locale = options.locale ?? 'zh-CN';\n` +
      `${red(`-  return format(input.amount, '¥');`)}\n${green(`+  // ${rng.pick(CJK_SENTENCES)}`)}\n${green(`+  return format(input.amount, symbolFor(locale, '￥'));`)}\n   }\n \n`
    );
  });
}

export function gitStatus(rng: Rng, world: World): string {
  const lines = rng.sample([...world.tsFiles, ...world.rsFiles, ...world.pyFiles], rng.int(2, 6)).map((f) => ` ${rng.pick(['M', 'M', 'A', 'D'])} ${f}`);
  return `On branch ${rng.pick(['main', `fix/${snake(ident(rng)).replace(/_/g, '-')}`])}\nChanges not staged for commit:\n${lines.join('\n')}\n\nUntracked files:\n\tnotes/调试记录.md\n`;
}

export function rgResults(rng: Rng, world: World, target: number, pattern: string): string {
  const files = [...world.tsFiles, ...world.rsFiles, ...world.pyFiles];
  return fill(target, '', () => {
    const f = rng.pick(files);
    let s = `${sgr('35', '0')(f)}\n`;
    for (let i = rng.int(1, 5); i > 0; i--) {
      s += `${green(String(rng.int(1, 400)))}:    ${rng.pick(['const v = ', 'let s = ', 'return ', '# '])}${red(bold(pattern))}(${rng.pick(['entry', 'amount', '"金额"', 'row["金額"]'])});\n`;
    }
    return s + '\n';
  });
}

export function lsTree(rng: Rng, world: World, target: number): string {
  const all = [...world.tsFiles, ...world.rsFiles, ...world.pyFiles, 'package.json', 'README.md', 'docs/设计说明.md', 'fixtures/売上_2024.csv'];
  return fill(target, `total ${rng.int(40, 900)}\n`, () => {
    const f = rng.pick(all);
    return `-rw-r--r--  1 dev  staff  ${String(rng.int(120, 99999)).padStart(6)} ${rng.pick(['Nov', 'Oct'])} ${String(rng.int(1, 28)).padStart(2)} ${clock(rng).slice(0, 5)} ${f}\n`;
  });
}

/** `head -c N dist/assets/index-*.js`: one long minified line. */
export function minifiedBundle(rng: Rng, target: number): string {
  const parts = [
    () => `var ${rng.pick(['e', 't', 'n', 'r'])}${rng.int(0, 99)}=function(${rng.pick(['e', 't'])}){return ${rng.pick(['e', 't'])}&&${rng.pick(['e', 't'])}.__esModule?${rng.pick(['e', 't'])}:{default:${rng.pick(['e', 't'])}}};`,
    () => `const ${rng.pick(['Q', 'Z', 'X'])}${rng.int(0, 99)}=new Intl.NumberFormat("${rng.pick(['zh-CN', 'ja-JP'])}",{style:"currency",currency:"${rng.pick(['CNY', 'JPY'])}"});`,
    () => `function ${rng.pick(['a', 'b', 'c'])}${rng.hex(3)}(e,t){if(!e)throw new Error("${rng.pick(CJK_SENTENCES)}");return t.map(n=>n*${rng.int(2, 100)})}`,
    () => `${rng.pick(['x', 'y'])}.push({id:"${rng.hex(8)}",label:"${rng.pick(CJK_WORDS)}",icon:"${rng.pick(EMOJI)}"});`,
  ];
  return fill(target, '"use strict";', () => rng.pick(parts)()) + '\n';
}

/** A screenshot tool result: a caption and the PNG as base64 text, plus the image content part. */
export function screenshot(rng: Rng, url: string, pngBytes: number): { content: string; parts: ContentPart[] } {
  const data = rng.base64(pngBytes);
  const caption = `Captured ${url} at 1280×800 (PNG, ${(pngBytes / 1024).toFixed(1)} KiB). Labels checked: 设置, 言語, 통화.`;
  return {
    content: `${caption}\ndata:image/png;base64,${data}\n`,
    parts: [
      { type: 'text', text: caption },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data } },
    ],
  };
}

// ---------------------------------------------------------------------------------------------
// Conversation text

export function userPrompt(rng: Rng, topic: string): string {
  return rng.pick([
    `${topic}`,
    `${topic} ${rng.pick(EMOJI)}`,
    `${topic}（${rng.pick(['谢谢', 'お願いします', '부탁해요', 'thanks'])}）`,
    `Quick one: ${topic.charAt(0).toLowerCase()}${topic.slice(1)}`,
  ]);
}

export function reasoningText(rng: Rng): string {
  return rng.pick([
    'The failure is in the locale-aware formatter: zh-CN expects the fullwidth ￥ (U+FFE5), we emit ¥ (U+00A5). Check symbolFor before touching the tests.',
    'Spans are byte offsets into UTF-8 source, so a CJK identifier of 2 chars is 6 bytes; the lexer advances by chars. That explains the truncated token.',
    'The export is cp932, not UTF-8. Decode with the declared encoding and fall back only when the BOM says so.',
    'Before editing, re-read the file: my earlier view of it was truncated and the helper I need may be below the cut.',
    'Two candidate fixes. The smaller one keeps the public API; prefer it and add a regression test for 月末 rounding.',
    'The migration collides on accounts_pkey because the seed data already inserted id 1042. Make the migration idempotent with ON CONFLICT DO NOTHING.',
  ]);
}

export function assistantReply(rng: Rng, about: string): string {
  return rng.pick([
    `${about}`,
    `${about} ${rng.pick(EMOJI)}`,
    `${about}\n\n要点：${rng.pick(CJK_SENTENCES)}。`,
    `${about} Next I'll ${rng.pick(['run the full suite', 'add a regression test', 'check the other call sites', 'update the changelog'])}.`,
  ]);
}
