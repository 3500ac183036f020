/**
 * Text for the large sessions of scaleGenerator.ts: conversation text of realistic sizes, the mix of
 * everyday tool outputs (drawn from content.ts), and block generators for the few huge outputs, which
 * are streamed to disk one block at a time and never held whole.
 *
 * Like content.ts, every function draws only from the `Rng` it is given (plus explicit state), so a
 * seed always gives the same text. Sizes are UTF-8 byte targets and approximate.
 */
import type { ContentPart } from '../../shared/index';
import type { World } from './content';
import {
  CJK_SENTENCES as BASE_SENTENCES,
  apiResponseJson,
  cargoTestRun,
  gitDiff,
  gitLog,
  gitStatus,
  lsTree,
  minifiedBundle,
  nodeCrash,
  npmBuildLog,
  packageJson,
  pySource,
  pytestLog,
  rgResults,
  rustSource,
  screenshot,
  tsSource,
  vitestLog,
} from './content';
import type { Rng } from './rng';

const CJK_SENTENCES = [...BASE_SENTENCES, 'Ça marche, mais l’arrondi à l’entier pair est ignoré', 'Überprüfe die Währung vor dem Runden'];
const EMOJI = ['✅', '❌', '⚠️', '🚀', '🔥', '📦', '🧪', '💥', '🙏', '👀', '🐛', '✨', '🎉', '🧾'];
const NOUNS = ['amount', 'ledger', 'entry', 'invoice', 'account', 'currency', 'token', 'span', 'locale', 'batch', 'journal', 'rate', 'posting', 'period'];
const ESC = '\u001b[';

/** An integer in [min, max] whose logarithm is uniform: many small values, a few large ones. */
export function logUniform(rng: Rng, min: number, max: number): number {
  return Math.round(min * Math.exp(rng.next() * Math.log(max / min)));
}

/**
 * A log-normal integer (`median * e^(sigma * z)`, z ~ N(0, 1) approximated by the Irwin–Hall sum of
 * twelve uniforms, so only arithmetic and Math.exp are involved), clamped to [min, max].
 */
export function logNormal(rng: Rng, median: number, sigma: number, min: number, max: number): number {
  let z = -6;
  for (let k = 0; k < 12; k++) z += rng.next();
  return Math.max(min, Math.min(max, Math.round(median * Math.exp(sigma * z))));
}

function until(target: number, first: string, more: () => string): string {
  let s = first;
  while (Buffer.byteLength(s) < target) s += more();
  return s;
}

// ---------------------------------------------------------------------------------------------
// Conversation

const ASKS = [
  'Can you look at why the nightly build is red again?',
  'Run the formatter tests and tell me what fails.',
  'Where do we round amounts before converting currencies?',
  'The 月末 batch produced a different total than last month — find out why.',
  'Please read the parser and check how spans are computed for CJK identifiers.',
  'Try the migration again on a fresh database.',
  'What does the accounts endpoint return when the tag is 要確認?',
  'Refactor symbolFor so that zh-CN gets the fullwidth ￥.',
  'Is the label table still in the bundle after the last change?',
  'Compare the Python loader with the TypeScript client, they disagree on rounding.',
  '帮我看看为什么汇率测试失败了',
  'テストがまた落ちています。原因を調べてください。',
  'Ça plante au démarrage avec une erreur d’encodage, tu peux regarder ?',
];

const PASTES = [
  () => `\nHere is what I see locally:\n\n\`\`\`\nError: migration failed: duplicate key value violates unique constraint "accounts_pkey"\n    at migrate (scripts/migrate.js:41:13)\n\`\`\`\n`,
  () => `\n\`\`\`\nFAIL  src/i18n/format.test.ts > formats 金额 in zh-CN\nAssertionError: expected '¥1,234.50' to be '￥1,234.50'\n\`\`\`\n`,
  () => `\nThe log line was:\n\t2026-03-31T23:59:59Z WARN ledger-api 月末処理 took 48213ms (budget 30000ms)\n`,
  () => `\nContext: we ship to zh-CN, ja-JP and ko-KR; amounts are bigint minor units; rounding is half-even. 🙏\n`,
];

/** A user message of about `target` bytes (50 B to 2 KB in practice): an ask, maybe pasted output. */
export function userText(rng: Rng, target: number): string {
  return until(target, rng.pick(ASKS), () => (rng.chance(0.5) ? rng.pick(PASTES)() : ` Also: ${rng.pick(ASKS).toLowerCase()}`));
}

const FINDINGS = [
  (rng: Rng) => `The ${rng.pick(NOUNS)} is converted before rounding, so half-even never applies to the converted value.`,
  (rng: Rng) => `\`${rng.pick(NOUNS)}.ts\` still assumes \`locale\` is a string; with the new optional option it can be \`undefined\`.`,
  (rng: Rng) => `The fixture is cp932, not UTF-8: ${rng.pick(CJK_SENTENCES)}.`,
  (rng: Rng) => `Spans are byte offsets, but the lexer advances by chars — a ${rng.int(2, 9)}-character CJK identifier is ${rng.int(6, 27)} bytes.`,
  (rng: Rng) => `Nothing else changed since the last run ${rng.pick(EMOJI)}`,
  (rng: Rng) => `要点：${rng.pick(CJK_SENTENCES)}。`,
  (rng: Rng) => `I checked ${rng.int(2, 14)} call sites; only ${rng.int(1, 2)} pass an explicit locale.`,
];

const CODE_BLOCKS = [
  () => "\n\n```ts\nexport function symbolFor(locale: string | undefined, fallback: string): string {\n  return locale === 'zh-CN' ? '\uffe5' : fallback;\n}\n```\n\n",
  () => '\n\n```rust\nlet end = start + ident.len(); // bytes, not chars\n```\n\n',
  () => '\n\n```python\namount = Decimal(row["金額"].replace(",", ""))\n```\n\n',
  () => '\n\n| file | errors |\n| --- | --- |\n| src/i18n/format.ts | 3 |\n| src/api/client.ts | 1 |\n\n',
];

/** An assistant message of about `target` bytes (100 B to 4 KB): findings, lists, code, CJK. */
export function assistantText(rng: Rng, target: number): string {
  return until(target, rng.pick(FINDINGS)(rng), () => {
    const r = rng.next();
    if (r < 0.15) return rng.pick(CODE_BLOCKS)();
    if (r < 0.3) return `\n- ${rng.pick(FINDINGS)(rng)}\n- ${rng.pick(FINDINGS)(rng)}\n`;
    return ' ' + rng.pick(FINDINGS)(rng);
  });
}

// ---------------------------------------------------------------------------------------------
// Everyday tool outputs

export interface ToolOutput {
  name: string;
  args: Record<string, unknown>;
  content: string;
  parts?: ContentPart[];
  /** Worth running again later with the same result (a re-read, a re-run): kept for repeats. */
  repeatable: boolean;
  /** Eligible for a planted needle: ordinary text of unique content. */
  plantable: boolean;
}

type Kind = 'test' | 'build' | 'pytest' | 'cargo' | 'read' | 'rg' | 'gitlog' | 'gitdiff' | 'status' | 'api' | 'crash' | 'bundle' | 'ls' | 'screenshot' | 'pkg';
const KIND_WEIGHTS: [Kind, number][] = [
  ['test', 12], ['build', 8], ['pytest', 5], ['cargo', 5], ['read', 20], ['rg', 8], ['gitlog', 5], ['gitdiff', 8],
  ['status', 3], ['api', 8], ['crash', 2], ['bundle', 4], ['ls', 6], ['screenshot', 3], ['pkg', 2],
];
const KIND_TOTAL = KIND_WEIGHTS.reduce((n, [, w]) => n + w, 0);

function pickKind(rng: Rng): Kind {
  let r = rng.next() * KIND_TOTAL;
  for (const [kind, w] of KIND_WEIGHTS) {
    r -= w;
    if (r < 0) return kind;
  }
  return 'read';
}

const shell = (cmd: string, content: string, repeatable = false): ToolOutput => ({ name: 'shell', args: { cmd }, content, repeatable, plantable: true });

/** One tool call's output of about `size` bytes (outputs of a fixed shape ignore it). */
export function toolOutput(rng: Rng, world: World, size: number, pkgNonce: string): ToolOutput {
  switch (pickKind(rng)) {
    case 'test':
      return shell(rng.pick(['npm test', 'npx vitest run src/i18n', 'npm test -- --reporter=verbose']), vitestLog(rng, world, size, rng.chance(0.5)));
    case 'build':
      return shell('npm run build', npmBuildLog(rng, world, size, true));
    case 'pytest':
      return shell('pytest -q', pytestLog(rng, world, size));
    case 'cargo': {
      const run = cargoTestRun(rng, world, size);
      return shell(`cargo test -p ${world.crate}`, run.prefix + (rng.chance(0.5) ? run.failTail : run.passTail));
    }
    case 'read': {
      const lang = rng.pick(['ts', 'py', 'rs'] as const);
      const path = lang === 'ts' ? rng.pick(world.tsFiles) : lang === 'py' ? rng.pick(world.pyFiles) : rng.pick(world.rsFiles);
      const body = lang === 'ts' ? tsSource(rng, world, size) : lang === 'py' ? pySource(rng, world, size) : rustSource(rng, world, size, rng.hex(16), path);
      return { name: 'read_file', args: { path }, content: body, repeatable: size <= 64 * 1024, plantable: true };
    }
    case 'rg': {
      const pattern = rng.pick(['formatAmount', 'symbolFor', 'Decimal', 'parse_amount', 'locale']);
      return shell(`rg -n --color=always ${pattern}`, rgResults(rng, world, size, pattern));
    }
    case 'gitlog':
      return shell(`git log -n ${rng.int(5, 400)}`, gitLog(rng, world, size));
    case 'gitdiff':
      return shell('git diff', gitDiff(rng, world, size));
    case 'status':
      return shell('git status', gitStatus(rng, world), true);
    case 'api':
      return shell(`curl -s 'http://localhost:8080/api/v1/accounts?limit=${rng.int(10, 500)}&tag=%E6%9C%88%E6%9C%AB'`, apiResponseJson(rng, size, rng.chance(0.5)));
    case 'crash':
      return shell('npm run migrate', nodeCrash(rng, world));
    case 'bundle':
      return shell(`head -c ${size} dist/assets/index-${rng.hex(8)}.js`, minifiedBundle(rng, size));
    case 'ls':
      return shell(rng.pick(['ls -la', 'ls -laR src', 'find . -type f -name "*.ts"']), lsTree(rng, world, size), size <= 64 * 1024);
    case 'screenshot': {
      const url = `http://localhost:5173/${rng.pick(['settings', 'ledger', 'accounts', 'reports/月末'])}`;
      const shot = screenshot(rng, url, Math.max(600, Math.min(size, 300 * 1024)));
      return { name: 'screenshot', args: { url, full_page: rng.chance(0.5) }, content: shot.content, parts: shot.parts, repeatable: false, plantable: false };
    }
    case 'pkg':
      return { ...shell('cat package.json', packageJson(rng, world, pkgNonce), true), plantable: false };
  }
}

// ---------------------------------------------------------------------------------------------
// Huge outputs, one block at a time

/** Makes the next block of a huge output, of about `target` bytes (whole lines, never a split character). */
export type BlockSource = (target: number) => string;

/** `npm test --workspaces -- --reporter=verbose` over a large monorepo: one vitest run per package. */
export function verboseTestBlocks(rng: Rng, world: World): BlockSource {
  let pkg = 0;
  return (target) => {
    pkg++;
    return `\n> ${world.scope}/pkg-${String(pkg).padStart(4, '0')}@${world.version} test\n> vitest run --reporter=verbose\n` + vitestLog(rng, world, target, rng.chance(0.03));
  };
}

/** `git log -p` over a long history: commits with their patches. */
export function gitLogPatchBlocks(rng: Rng, world: World): BlockSource {
  return (target) => {
    let s = '';
    while (s.length < target) s += gitLog(rng, world, 300) + gitDiff(rng, world, rng.int(1_000, 12_000)) + '\n';
    return s;
  };
}

const LOG_PATHS = ['/api/v1/accounts', '/api/v1/postings', '/api/v1/rates', '/api/v1/periods/close', '/healthz', '/api/v1/invoices', '/metrics'];
const LOG_USERS = ['li.lei', 'ana', 'hanako', 'sam.o', 'minjun', 'batch-月末', 'svc-etl'];
const LOG_WARN = ['slow query on postings_by_period', '汇率缓存已过期，重新加载', '月末処理の締めが遅延しています', 'retrying upstream fx-rates (attempt 2/5)', 'connection pool at 90% (45/50)', 'Währungskurs veraltet, verwende den letzten bekannten Wert'];

/**
 * `cat /var/log/ledger/api.log`: a server log — ISO timestamps, tab-separated fields, request
 * lines, warnings in several languages, the odd stack trace and a few coloured lines from a child
 * process. Mostly ASCII (a few escapes per line), so a 200 MB output stays far below the loader's
 * record limit once JSON-escaped.
 */
export function serverLogBlocks(rng: Rng, world: World, startMs: number): BlockSource {
  let ms = startMs;
  return (target) => {
    const lines: string[] = [];
    let n = 0;
    while (n < target) {
      ms += rng.int(0, 60);
      const ts = new Date(ms).toISOString();
      const r = rng.next();
      let line: string;
      if (r < 0.9) {
        const status = rng.chance(0.95) ? 200 : rng.pick([400, 404, 409, 500, 503]);
        line = `${ts} INFO  [ledger-api] req_${rng.hex(12)}\t${rng.pick(['GET', 'GET', 'GET', 'POST', 'PUT'])} ${rng.pick(LOG_PATHS)}?limit=${rng.int(1, 500)} ${status} ${rng.int(1, 900)}ms\tuser=${rng.pick(LOG_USERS)}\tbytes=${rng.int(80, 90_000)}\n`;
      } else if (r < 0.97) {
        line = `${ts} WARN  [${rng.pick(['ledger-api', 'fx-rates', 'scheduler'])}] ${rng.pick(LOG_WARN)} (period=2026-${String(rng.int(1, 12)).padStart(2, '0')})\n`;
      } else if (r < 0.995) {
        line = `${ts} ${ESC}32mDEBUG${ESC}39m [etl] loaded ${rng.int(100, 99_999)} rows from ${rng.pick(['売上_2024.csv', '仕訳帳_03月.csv', 'accounts.tsv'])} in ${rng.int(5, 4000)}ms ${rng.pick(EMOJI)}\n`;
      } else {
        line =
          `${ts} ERROR [ledger-api] unhandled rejection: Error: posting ${rng.int(1000, 99999)} is out of balance by ${rng.int(1, 99)} minor units\n` +
          `\tat settlePeriod (${world.home}/dist/ledger/period.js:${rng.int(10, 400)}:${rng.int(3, 40)})\n` +
          `\tat async closeMonth (${world.home}/dist/ledger/close.js:${rng.int(10, 200)}:${rng.int(3, 40)})\n` +
          `\tat async Scheduler.run (${world.home}/node_modules/@acme/scheduler/dist/index.js:${rng.int(10, 900)}:${rng.int(3, 40)})\n`;
      }
      lines.push(line);
      n += line.length;
    }
    return lines.join('');
  };
}

/** One line carrying `needle` in the style of the huge output it is planted in; `before` is its text ahead of the needle. */
export function needleLine(rng: Rng, needle: string): { line: string; before: string } {
  const before = rng.pick([
    `${new Date(Date.UTC(2026, 2, 1) + rng.int(0, 86_400_000)).toISOString()} WARN  [audit] marker `,
    '   ✓ keeps the audit marker ',
    'note: correlation id ',
    '\t// 标记 ',
  ]);
  return { line: `${before}${needle} (${rng.hex(8)})\n`, before };
}
