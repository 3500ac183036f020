// Runs Electronegativity (Doyensec's static scanner for Electron misconfigurations, pinned in
// tools/electronegativity/ because it needs an old commander, eslint and typescript) over the
// desktop app's Electron code, reads the CSV report it writes, prints every finding, and exits 1 on
// any HIGH finding (or any remark about the app's CSP, which the tool rates LOW) that the allowlist
// below does not explain. MEDIUM findings not in the allowlist are printed as untriaged.
// `npm run test:security`.
//
// What it scans (one run, so the tool's global checks — CSP, navigation limits, permission
// handler — see the whole app at once), staged in a temporary folder:
//   src/electron/main/*.ts, src/electron/preload/*.ts  the TypeScript sources, tests left out (they
//       hold hostile strings on purpose). The tool parses TypeScript with @babel/parser first and
//       typescript-estree 4 (TypeScript 4.2) as a fallback; the latter alone fails on `satisfies`
//       (channels.ts, window.ts), Babel reads every file. This is where the BrowserWindow /
//       webPreferences checks find something to read.
//   bundle/main.js, bundle/preload.js  dist/main.cjs and dist/preload.cjs, what actually ships,
//       dependencies included. Renamed: the tool reads only .js/.ts/.html/package.json and would
//       silently skip a .cjs file. (Its BrowserWindow checks do not recognise esbuild's
//       `new import_electron.BrowserWindow(...)`; its global and call checks do.)
//   renderer/index.html  dist/renderer/index.html, the page the window loads (HTML checks).
//   package.json  the root manifest (Electron version, custom Chromium switches in scripts).
//   csp/policy.html  the app's CSP string as a <meta> policy, so csp-evaluator rates it (below).
// A file the tool cannot parse fails the run: an unparsed file is an unscanned one. So does a canary
// of known-insecure code that the tool no longer flags.
//
// Offline: Electronegativity fetches translations at start and Electron's release list (the
// AVAILABLE_SECURITY_FIXES global check) with `got`. Here `got` is replaced by a stub that refuses
// every request before the tool loads, and that check is excluded (it only says "a newer Electron
// exists", which needs the network). The refused URLs are printed.
//
// Usage: node scripts/electronegativity.mjs [--out FILE.csv]   (build first: npm run build)
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import fs from 'node:fs';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';

const repoRoot = resolve(import.meta.dirname, '..');
const toolDir = join(repoRoot, 'tools/electronegativity');

/** The name the table gives the CSP string evaluated as a page's <meta> (see below). */
const CSP_ORIGIN = 'electron/host/renderer.ts (CONTENT_SECURITY_POLICY)';

/**
 * Findings that were triaged and are not vulnerabilities. Each is keyed by the check, the file (as
 * the table shows it) and a piece of the flagged source (`sample`) or of the tool's description, so
 * that a new, different finding of the same check in the same file is not hidden; `reason` is
 * printed whenever the entry is applied. An entry that no longer matches anything is reported, so
 * stale ones get removed.
 */
const ALLOWLIST = [
  {
    check: 'CONTEXT_ISOLATION_JS_CHECK',
    file: 'electron/main/window.ts',
    sample: 'new BrowserWindow(windowOptions(',
    reason:
      'The tool reads webPreferences only from an object literal written inside `new BrowserWindow(...)`; here they come from ' +
      'the frozen WINDOW_OPTIONS through windowOptions(), which sets contextIsolation: true. electron/main/securityChecklist.test.ts ' +
      'captures the options actually passed to new BrowserWindow and fails if contextIsolation is not true.',
  },
  {
    check: 'SANDBOX_JS_CHECK',
    file: 'electron/main/window.ts',
    sample: 'new BrowserWindow(windowOptions(',
    reason:
      'Same blind spot as CONTEXT_ISOLATION_JS_CHECK: sandbox: true is set explicitly in WINDOW_OPTIONS.webPreferences, and ' +
      'securityChecklist.test.ts checks it on the options passed to new BrowserWindow.',
  },
  {
    check: 'AUXCLICK_JS_CHECK',
    file: 'electron/main/window.ts',
    sample: 'new BrowserWindow(windowOptions(',
    reason:
      "The check wants disableBlinkFeatures: 'Auxclick' so a middle click cannot open a link in a new window. Every new window " +
      '(middle click included) goes through setWindowOpenHandler, which denies all, and every navigation through will-navigate / ' +
      'will-frame-navigate / will-redirect, which refuse anything but app://session-inspector (securityChecklist.test.ts); the ' +
      'renderer shows session content as text, never as links or HTML.',
  },
  {
    check: 'CSP_GLOBAL_CHECK',
    file: 'electron/main/appProtocol.ts',
    description: 'Failed to parse CSP',
    reason:
      'LOW. The app:// handler sets the header from the CONTENT_SECURITY_POLICY constant, which the tool cannot read there; the ' +
      'same string is evaluated below as electron/host/renderer.ts (CONTENT_SECURITY_POLICY).',
  },
  {
    check: 'PROTOCOL_HANDLER_JS_CHECK',
    file: 'electron/main/app.ts',
    sample: 'setAsDefaultProtocolClient(PROTOCOL_SCHEME)',
    reason:
      'MEDIUM, reviewed. The packaged app handles session-inspector:// links. The URL is untrusted: ' +
      'shared/links/protocolLink.ts accepts only the action open, at most two absolute paths and a fragment (parsed, never run), ' +
      'electron/main/protocolOpen.ts then requires each path to be an existing regular file, and anything else is refused ' +
      'with a message (shared/links/protocolLink.test.ts, electron/main/protocolOpen.test.ts, electron/main/app.test.ts › links). ' +
      'The files are opened read-only like any other; the place only moves the window within its own app:// page.',
  },
  {
    check: 'PROTOCOL_HANDLER_JS_CHECK',
    file: 'dist/main.cjs',
    sample: 'setAsDefaultProtocolClient(',
    reason: 'The same protocol registration as in electron/main/app.ts, in the bundle.',
  },
  {
    check: 'CSP_GLOBAL_CHECK',
    file: 'dist/main.cjs',
    description: 'Failed to parse CSP',
    reason: 'LOW. The same header as in electron/main/appProtocol.ts, in the bundle.',
  },
  {
    check: 'CSP_GLOBAL_CHECK',
    file: CSP_ORIGIN,
    description: 'seems to be vulnerable',
    // The whole policy: any change to it is triaged again.
    sample:
      "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; " +
      "object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'none'",
    reason:
      "LOW. csp-evaluator's only remark is MEDIUM_MAYBE on script-src 'self': \"'self' can be problematic if you host JSONP, " +
      'Angular or user uploaded files". The origin serves nothing but the built renderer: app:// serves regular files under ' +
      'dist/renderer only, the HTTP host the same folder; session files are read by the worker and shown as text, never served.',
  },
];

const SEVERITIES = ['HIGH', 'MEDIUM', 'LOW', 'INFORMATIONAL'];

function fail(message) {
  console.error(`electronegativity: ${message}`);
  process.exit(1);
}

const { values: args } = parseArgs({ options: { out: { type: 'string' } } });

// --- What to scan -------------------------------------------------------------------------------

// The tool has its own folder and lock file (it needs an old commander, eslint and typescript), so
// the root `npm ci` does not install it: the first run does, from its lock file.
if (!existsSync(join(toolDir, 'node_modules/@doyensec/electronegativity/package.json'))) {
  console.log('electronegativity: installing the scanner into tools/electronegativity (npm ci, first run only)');
  const installed = spawnSync('npm', ['ci', '--prefix', toolDir, '--no-audit', '--no-fund'], { stdio: 'inherit' });
  if (installed.status !== 0) fail('installing it failed: run `npm ci --prefix tools/electronegativity` and read its error.');
}
const toolRequire = createRequire(join(toolDir, 'package.json'));
let toolPackage;
try {
  toolPackage = toolRequire('@doyensec/electronegativity/package.json');
} catch {
  fail('Electronegativity is not installed: run `npm ci --prefix tools/electronegativity` (the root `npm ci` does not install it).');
}
const electronVersion = JSON.parse(readFileSync(join(repoRoot, 'node_modules/electron/package.json'), 'utf8')).version;

const stage = mkdtempSync(join(tmpdir(), 'si-electronegativity-'));
// The staged copies go, whatever happens; the report stays only where --out put it.
process.on('exit', () => rmSync(stage, { recursive: true, force: true }));
const input = join(stage, 'app');
const report = resolve(args.out ?? join(stage, 'electronegativity.csv'));
/** Staged path (relative to `input`) → the repository path it came from, for the table. */
const origin = new Map();

function stageFile(from, to) {
  const source = join(repoRoot, from);
  if (!existsSync(source)) fail(`${from} does not exist: run \`npm run build\` first.`);
  mkdirSync(dirname(join(input, to)), { recursive: true });
  copyFileSync(source, join(input, to));
  origin.set(to, from);
}

for (const folder of ['electron/main', 'electron/preload']) {
  for (const name of readdirSync(join(repoRoot, folder))) {
    if (name.endsWith('.ts') && !name.endsWith('.test.ts')) stageFile(`${folder}/${name}`, `src/${folder}/${name}`);
  }
}
stageFile('dist/main.cjs', 'bundle/main.js');
stageFile('dist/preload.cjs', 'bundle/preload.js');
stageFile('dist/renderer/index.html', 'renderer/index.html');
stageFile('package.json', 'package.json');

// The CSP is a constant joined at run time, so the tool cannot evaluate it where it is used (it
// reports those places as "Failed to parse CSP"). The very same string, imported from its module,
// is handed to it as a page's <meta> CSP, which it does evaluate (csp-evaluator).
const { tsImport } = await import('tsx/esm/api');
const { CONTENT_SECURITY_POLICY } = await tsImport('../electron/host/renderer.ts', import.meta.url);
if (typeof CONTENT_SECURITY_POLICY !== 'string' || CONTENT_SECURITY_POLICY === '') fail('electron/host/renderer.ts exports no CONTENT_SECURITY_POLICY.');
mkdirSync(join(input, 'csp'));
writeFileSync(
  join(input, 'csp/policy.html'),
  `<!doctype html><html><head><meta http-equiv="Content-Security-Policy" content="${CONTENT_SECURITY_POLICY.replaceAll('"', '&quot;')}"></head><body></body></html>\n`,
);
origin.set('csp/policy.html', CSP_ORIGIN);

// --- Offline ------------------------------------------------------------------------------------

/** Every URL the tool tried to fetch (none get through). */
const refusedFetches = [];
const gotPath = toolRequire.resolve('got', { paths: [dirname(toolRequire.resolve('@doyensec/electronegativity/package.json'))] });
const offlineGot = (url) => {
  refusedFetches.push(String(url));
  return Promise.reject(new Error('network disabled by scripts/electronegativity.mjs'));
};
offlineGot.head = offlineGot;
offlineGot.get = offlineGot;
toolRequire.cache[gotPath] = { id: gotPath, filename: gotPath, loaded: true, exports: offlineGot, children: [], paths: [] };
// Its messages (and so the descriptions the allowlist may match) follow LANG: English, always.
process.env.LANG = 'en-US';

// --- Run ----------------------------------------------------------------------------------------

const run = toolRequire('@doyensec/electronegativity');

/**
 * One run of the tool over `dir`: the CLI's `-i <dir> -o <csv> -e <version> -r -x
 * AvailableSecurityFixesGlobalCheck`, called as a library so the parse errors it collects are not
 * lost (the CLI drops them when -o is given). Returns what it returned and the rows of its CSV.
 */
async function scan(dir, csv) {
  // Electronegativity 1.10.3 writes the CSV header and the rows with two concurrent fs.writeFile
  // calls (util/file.js), which can race (rows lost, or overwritten by the header): serialise them.
  const realWriteFile = fs.writeFile;
  const realLog = console.log;
  let writes = Promise.resolve();
  fs.writeFile = (file, data, ...rest) => {
    const callback = typeof rest.at(-1) === 'function' ? rest.pop() : () => undefined;
    writes = writes.then(() => fs.promises.writeFile(file, data, ...rest)).then(
      () => callback(null),
      (error) => callback(error),
    );
  };
  // The translation fetch's failure message is expected offline; everything else is shown.
  console.log = (...line) => {
    if (!String(line[0]).startsWith('Could not retrieve updated translations')) realLog(...line);
  };
  let result;
  try {
    result = await run({
      input: dir,
      output: csv,
      isSarif: false,
      customScan: [],
      excludeFromScan: ['availablesecurityfixesglobalcheck'],
      isRelative: true,
      isVerbose: false,
      electronVersionOverride: electronVersion,
      parserPlugins: [],
    });
    await writes;
  } finally {
    console.log = realLog;
    fs.writeFile = realWriteFile;
  }
  const [header, ...rows] = parseCsv(readFileSync(csv, 'utf8'));
  if (header?.map((h) => h.trim()).join(',') !== 'issue,severity,confidence,filename,location,sample,description,url') {
    fail(`${csv} does not start with Electronegativity's CSV header.`);
  }
  if (rows.length !== result.issues.length) fail(`${csv} has ${rows.length} findings, the run returned ${result.issues.length}: the report is incomplete.`);
  const findings = rows.map(([check, severity, confidence, file, location, sample, description]) => ({
    check,
    severity,
    confidence,
    file,
    location,
    sample: sample === 'N/A' ? '' : sample,
    description,
  }));
  return { result, findings };
}

/** RFC 4180 CSV (quoted fields may hold commas, quotes and newlines). */
function parseCsv(text) {
  const rows = [];
  let row = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
    } else field += c;
  }
  if (field !== '' || row.length > 0) rows.push([...row, field]);
  return rows;
}

const started = performance.now();

// The canary: known-insecure code in the syntax our sources use (TypeScript with `satisfies`). If the
// tool stops parsing it or stops flagging it, a clean report below would mean nothing.
const CANARY_CHECKS = ['CONTEXT_ISOLATION_JS_CHECK', 'NODE_INTEGRATION_JS_CHECK', 'SANDBOX_JS_CHECK', 'WEB_SECURITY_JS_CHECK', 'OPEN_EXTERNAL_JS_CHECK'];
const canaryDir = join(stage, 'canary');
mkdirSync(canaryDir);
writeFileSync(
  join(canaryDir, 'canary.ts'),
  `import { BrowserWindow, shell } from 'electron';
const size = { width: 800 } as const satisfies { width: number };
export const win: BrowserWindow = new BrowserWindow({ ...size, webPreferences: { nodeIntegration: true, contextIsolation: false, webSecurity: false } });
export const open = (url: string): Promise<void> => shell.openExternal(url);
`,
);
const canary = await scan(canaryDir, join(stage, 'canary.csv'));
const missed = CANARY_CHECKS.filter((check) => !canary.findings.some((f) => f.check === check && f.file === 'canary.ts'));
if (canary.result.errors.length > 0 || missed.length > 0) {
  fail(`the canary (known-insecure code) was not flagged as expected: missing ${missed.join(', ') || '-'}; errors ${JSON.stringify(canary.result.errors)}. The scanner is not working.`);
}

const { result, findings } = await scan(input, report);
const seconds = ((performance.now() - started) / 1000).toFixed(1);
for (const finding of findings) finding.file = origin.get(finding.file) ?? finding.file;
findings.sort((a, b) => SEVERITIES.indexOf(a.severity) - SEVERITIES.indexOf(b.severity) || a.check.localeCompare(b.check) || a.file.localeCompare(b.file));

const used = new Set();
for (const finding of findings) {
  const entry = ALLOWLIST.find(
    (e) => e.check === finding.check && e.file === finding.file && finding.sample.includes(e.sample ?? '') && finding.description.includes(e.description ?? ''),
  );
  if (entry) {
    finding.allowed = entry;
    used.add(entry);
  }
}

// --- Tell -------------------------------------------------------------------------------------

const oneLine = (text, max) => {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
};
const status = (f) => (f.allowed ? 'allowed' : f.severity === 'HIGH' || f.file === CSP_ORIGIN ? 'FAIL' : f.severity === 'MEDIUM' ? 'untriaged' : '-');
const table = [
  ['severity', 'confidence', 'check', 'file:line:column', 'status', 'description'],
  ...findings.map((f) => [f.severity, f.confidence, f.check, `${f.file}:${f.location}`, status(f), oneLine(f.description, 70)]),
];
const widths = table[0].map((_, k) => Math.max(...table.map((r) => r[k].length)));

console.log(`Electronegativity ${toolPackage.version} (-e ${electronVersion}), offline: ${result.globalChecks + result.atomicChecks} checks over ${origin.size} files, ${seconds} s (canary flagged: ${CANARY_CHECKS.length}/${CANARY_CHECKS.length}).`);
console.log(`scanned: ${[...origin.values()].join(', ')}`);
if (findings.length === 0) console.log('No findings.');
else {
  console.log(`${findings.length} finding(s):`);
  for (const row of table) console.log(`  ${row.map((cell, k) => cell.padEnd(widths[k])).join('  ')}`.trimEnd());
}
for (const f of findings.filter((f) => !f.allowed && f.sample !== '' && f.severity !== 'INFORMATIONAL')) console.log(`  ${f.check} at ${f.file}:${f.location}: ${oneLine(f.sample, 110)}`);

for (const entry of used) console.log(`\nallowlisted ${entry.check} in ${entry.file}: ${entry.reason}`);
for (const entry of ALLOWLIST.filter((e) => !used.has(e))) console.log(`\nwarning: the allowlist entry ${entry.check} in ${entry.file} matched nothing; remove it if that finding is gone.`);
console.log(`\nnetwork requests refused: ${refusedFetches.length === 0 ? 'none' : [...new Set(refusedFetches)].join(', ')}`);
if (args.out !== undefined) console.log(`report: ${report}`);

for (const e of result.errors) console.log(`${e.tolerable ? 'parse warning' : 'PARSE ERROR'} in ${origin.get(relative(input, e.file)) ?? e.file}: ${e.message}`);
const parseErrors = result.errors.filter((e) => !e.tolerable);
// The tool rates every CSP weakness LOW; on the app's own policy an unexplained one fails too.
const failing = findings.filter((f) => !f.allowed && (f.severity === 'HIGH' || f.file === CSP_ORIGIN));
const untriaged = findings.filter((f) => f.severity === 'MEDIUM' && !f.allowed);
if (untriaged.length > 0) console.log(`${untriaged.length} MEDIUM finding(s) not triaged yet: fix them, or explain them in ALLOWLIST (scripts/electronegativity.mjs).`);

if (parseErrors.length > 0) fail(`${parseErrors.length} file(s) could not be parsed, so they were not scanned.`);
if (failing.length > 0) fail(`${failing.length} failing finding(s) (HIGH, or about the app's CSP): fix them in electron/, or explain them in ALLOWLIST.`);
console.log('electronegativity: no HIGH finding left unexplained.');
