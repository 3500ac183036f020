/** Runs sessionWriter.mjs as a child process (a real writer appending to a session file). */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const SESSION_WRITER = join(import.meta.dirname, 'sessionWriter.mjs');

export type WriterStep = { append: string } | { truncate: number } | { replace: string };

export interface Writer {
  /** Resolves with the SHA-256 of what the writer left in the file, by its own account, once it is done. */
  done: Promise<string>;
  /** Resolves once the writer has done `n` steps. */
  step(n: number): Promise<void>;
  kill(): void;
}

/** Starts a writer on `path` (which must exist) doing `steps`, one every `intervalMs`. */
export function startWriter(path: string, steps: readonly WriterStep[], intervalMs = 10): Writer {
  const planPath = `${path}.plan.json`;
  writeFileSync(planPath, JSON.stringify({ path, intervalMs, steps }));
  const child = spawn(process.execPath, [SESSION_WRITER, planPath], { stdio: ['ignore', 'pipe', 'inherit'] });
  let stepsDone = 0;
  const waiting: { n: number; resolve: () => void }[] = [];
  let finish: (sha: string) => void = () => undefined;
  let fail: (e: Error) => void = () => undefined;
  const done = new Promise<string>((resolve, reject) => {
    finish = resolve;
    fail = reject;
  });
  let buffered = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    buffered += chunk;
    for (let nl = buffered.indexOf('\n'); nl !== -1; nl = buffered.indexOf('\n')) {
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      if (line.startsWith('step ')) {
        stepsDone = Number(line.slice(5));
        for (const w of waiting.filter((x) => x.n <= stepsDone)) w.resolve();
      } else if (line.startsWith('done ')) finish(line.slice(5));
    }
  });
  child.on('exit', (code) => {
    if (code !== 0) fail(new Error(`the writer exited with ${code}`));
  });
  return {
    done,
    step: (n) => (n <= stepsDone ? Promise.resolve() : new Promise((resolve) => waiting.push({ n, resolve }))),
    kill: () => void child.kill(),
  };
}

/** `text`'s lines as append steps, one record a step; the record at `tornAt` split into two writes (a torn line completed later). */
export function appendSteps(text: string, tornAt = -1): WriterStep[] {
  const lines = text.split(/(?<=\n)/);
  return lines.flatMap((line, k) => (k === tornAt ? [{ append: line.slice(0, Math.floor(line.length / 2)) }, { append: line.slice(Math.floor(line.length / 2)) }] : [{ append: line }]));
}
