/**
 * A writer child process, as an agent appends to its session file. Usage:
 *   node sessionWriter.mjs PLAN.json
 * PLAN: { path, intervalMs, steps: [{ append: text } | { truncate: bytes } | { replace: text }] }.
 * Each step is one write (an append may end mid-line: a torn line the next step completes); the
 * writer waits `intervalMs` between steps on a timer (it is the process under test's peer, not a
 * test). It prints `step N` after each step, then `done <sha256>` — the SHA-256 of the bytes it
 * left in the file by its own account — and exits.
 */
import { createHash } from 'node:crypto';
import { appendFileSync, readFileSync, renameSync, truncateSync, writeFileSync } from 'node:fs';

const plan = JSON.parse(readFileSync(process.argv[2], 'utf8'));
let written = readFileSync(plan.path);
let k = 0;
function next() {
  if (k === plan.steps.length) {
    process.stdout.write(`done ${createHash('sha256').update(written).digest('hex')}\n`);
    return;
  }
  const step = plan.steps[k];
  if (step.append !== undefined) {
    const bytes = Buffer.from(step.append);
    appendFileSync(plan.path, bytes);
    written = Buffer.concat([written, bytes]);
  } else if (step.truncate !== undefined) {
    truncateSync(plan.path, step.truncate);
    written = written.subarray(0, step.truncate);
  } else if (step.replace !== undefined) {
    writeFileSync(`${plan.path}.next`, step.replace);
    renameSync(`${plan.path}.next`, plan.path);
    written = Buffer.from(step.replace);
  }
  process.stdout.write(`step ${++k}\n`);
  setTimeout(next, plan.intervalMs);
}
next();
