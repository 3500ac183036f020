// `npm test`: every check of the repository (docs/testing.md "How `npm test` runs" has the
// measurements this plan comes from). Its stages run in phases, one after another; a phase's lanes
// run side by side, and each lane runs its stages in order:
//
//   4 cores or more, one phase:  [build, e2e]  beside  [build, lint, typecheck, security, unit]
//   2 or 3 cores, two phases:    [lint]  beside  [build, typecheck, security, unit];  then [e2e]
//   SESSION_INSPECTOR_TEST_SERIAL=1:  one lane, every stage one after another (to time each alone)
//
// On 2 cores the Playwright suite keeps both cores busy and runs alone: beside the rest, every stage
// slowed (a whole run took 1,995 s in two lanes against 1,849 s one stage after another). Lint and
// each `tsc -p` run mostly on one thread, the unit tests on two less their gaps: lint beside
// typecheck, security and the unit tests took 351 s where the same stages took 390 s one after
// another (2026-12-05).
//
// The build is shared (it runs once, whichever lane asks first). Every stage runs whatever another
// one gave: a failed lint does not stop the unit tests. A stage that needs the build does not run
// when the build failed. Each line a stage prints is prefixed with its name; the summary at the end
// gives each stage's time and outcome, and the exit code is 1 when any stage failed.
import { spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { performance } from 'node:perf_hooks';

const repoRoot = resolve(import.meta.dirname, '..');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/** name → the command, and the stages whose success it needs. */
const STAGES = {
  build: { command: [process.execPath, 'scripts/build.mjs', '--if-stale'], needs: [] },
  lint: { command: [npm, 'run', '--silent', 'lint'], needs: [] },
  typecheck: { command: [npm, 'run', '--silent', 'typecheck'], needs: [] },
  security: { command: [npm, 'run', '--silent', 'test:security'], needs: ['build'] },
  unit: { command: [npm, 'run', '--silent', 'test:unit'], needs: ['build'] },
  e2e: { command: [npm, 'run', '--silent', 'test:e2e'], needs: ['build'] },
};

const serial = process.env.SESSION_INSPECTOR_TEST_SERIAL === '1';
/** Phases, one after another; a phase's lanes side by side; a lane's stages in order. */
const PHASES = serial
  ? [[['build', 'lint', 'typecheck', 'security', 'unit', 'e2e']]]
  : availableParallelism() >= 4
    ? [[['build', 'e2e'], ['build', 'lint', 'typecheck', 'security', 'unit']]]
    : [[['lint'], ['build', 'typecheck', 'security', 'unit']], [['e2e']]];

/** name → a promise of { ok, seconds, skipped } (each stage runs once, whichever lane asks first). */
const runs = new Map();

function prefixLines(name, stream, out) {
  let rest = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk) => {
    const lines = (rest + chunk).split('\n');
    rest = lines.pop() ?? '';
    for (const line of lines) out.write(`[${name}] ${line}\n`);
  });
  stream.on('end', () => {
    if (rest !== '') out.write(`[${name}] ${rest}\n`);
  });
}

function execute(name) {
  const { command } = STAGES[name];
  const started = performance.now();
  console.log(`[${name}] ${command.join(' ')}`);
  return new Promise((done) => {
    const child = spawn(command[0], command.slice(1), { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'], env: process.env });
    prefixLines(name, child.stdout, process.stdout);
    prefixLines(name, child.stderr, process.stderr);
    child.on('error', (error) => {
      console.error(`[${name}] could not start: ${error.message}`);
      done({ ok: false, seconds: (performance.now() - started) / 1000 });
    });
    child.on('close', (code, signal) => {
      const seconds = (performance.now() - started) / 1000;
      console.log(`[${name}] ${code === 0 ? 'passed' : `failed (${code ?? signal})`} in ${seconds.toFixed(1)} s`);
      done({ ok: code === 0, seconds });
    });
  });
}

function stage(name) {
  if (!runs.has(name)) {
    runs.set(
      name,
      (async () => {
        const needed = await Promise.all(STAGES[name].needs.map((n) => stage(n)));
        const failed = STAGES[name].needs.filter((_n, k) => !needed[k].ok);
        if (failed.length > 0) {
          console.log(`[${name}] not run: ${failed.join(', ')} failed`);
          return { ok: false, seconds: 0, skipped: true };
        }
        return execute(name);
      })(),
    );
  }
  return runs.get(name);
}

const started = performance.now();
for (const lanes of PHASES) {
  await Promise.all(
    lanes.map(async (lane) => {
      for (const name of lane) await stage(name);
    }),
  );
}

const results = await Promise.all(Object.keys(STAGES).map(async (name) => [name, await stage(name)]));
const plan = PHASES.map((lanes) => lanes.map((lane) => lane.join(' → ')).join(' beside ')).join(', then ');
console.log(`\nnpm test (${plan}): ${((performance.now() - started) / 1000).toFixed(1)} s`);
for (const [name, r] of results) console.log(`  ${name.padEnd(10)} ${r.skipped ? 'not run' : r.ok ? 'passed ' : 'FAILED '} ${r.seconds.toFixed(1).padStart(7)} s`);
process.exitCode = results.every(([, r]) => r.ok) ? 0 : 1;
