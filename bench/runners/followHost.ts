/**
 * Following a large session file through the real worker client. The file (a copy of the
 * fixture: the fixture itself is never written) is opened followed; then
 *
 * - appends: `chunkBytes` of complete message records every `everyMs` (1 MB/s by default) for
 *   `appendMs` — or, for a Claude Code transcript (`records: 'claude-code'`), a prompt and its
 *   answer chained to the file's last record, as Claude Code writes them; for each append, the time
 *   from its write until the worker's `sessionUpdated` event shows its messages;
 * - memory: the process's RSS (each after a full collection in the worker and here) before and
 *   after the appends, against the bytes appended; and
 *   from the end of a warm-up (the first `warmMs` of appends: the heap's young generation and the
 *   worker's buffers grow once, whatever is appended) to the end, against the bytes appended then;
 * - idle, last: the process's CPU time (process.cpuUsage: the worker thread and this host thread)
 *   over a window of `idleMs` while nothing is appended — what watching and polling cost.
 */
import { randomUUID } from 'node:crypto';
import { appendFileSync, closeSync, fstatSync, openSync, readSync } from 'node:fs';
import type { EventPayload } from '../../shared/index';
import { memoryStatus, readInput, runMain } from './common';
import { createResolverClient } from '../../electron/worker/client';
import { value } from './workerClient';

interface Input {
  workerPath: string;
  sidecar: string;
  idleMs: number;
  appendMs: number;
  everyMs: number;
  chunkBytes: number;
  warmMs: number;
  /** What is appended: native sidecar message records (the default), or a Claude Code prompt and answer. */
  records?: 'native' | 'claude-code';
}

/** Lines to append and the messages they add to the view. */
type Appender = (k: number) => { text: string; messages: number };

/** Native sidecar message records: about `chunkBytes` of them, numbered on from `first`. */
function nativeAppender(first: number, chunkBytes: number): Appender {
  let next = first;
  const filler = 'x'.repeat(1000);
  return () => {
    const lines: string[] = [];
    let bytes = 0;
    const from = next;
    while (bytes < chunkBytes) {
      const line = `${JSON.stringify({ t: 'message', i: next++, msg: { role: 'user', content: filler } })}\n`;
      lines.push(line);
      bytes += line.length;
    }
    return { text: lines.join(''), messages: next - from };
  };
}

/**
 * A Claude Code prompt and its answer per append, each record the child of the one before, the
 * first of them of the file's last main-conversation record (its session fields copied from it).
 */
function claudeAppender(path: string): Appender {
  const fd = openSync(path, 'r');
  const size = fstatSync(fd).size;
  const tail = Buffer.alloc(Math.min(size, 1 << 20));
  readSync(fd, tail, 0, tail.length, size - tail.length);
  closeSync(fd);
  const last = tail
    .toString('utf8')
    .split('\n')
    .slice(1)
    .flatMap((l) => {
      try {
        const v = JSON.parse(l) as Record<string, unknown>;
        return typeof v.uuid === 'string' && v.isSidechain !== true ? [v] : [];
      } catch {
        return [];
      }
    })
    .at(-1);
  if (!last) throw new Error(`${path}: no record with a uuid in its last MiB`);
  const { sessionId, cwd, version, gitBranch, userType, entrypoint } = last;
  const common = { isSidechain: false, userType, entrypoint, cwd, sessionId, version, gitBranch };
  let parent = last.uuid as string;
  return (k) => {
    const prompt = { parentUuid: parent, ...common, type: 'user', message: { role: 'user', content: `appended prompt ${k}: go on with the next step` }, uuid: randomUUID(), timestamp: new Date().toISOString() };
    const answer = { parentUuid: prompt.uuid, ...common, type: 'assistant', requestId: `req_appended_${k}`, message: { id: `msg_appended_${k}`, model: 'claude-sonnet-4-5', role: 'assistant', type: 'message', content: [{ type: 'text', text: `appended answer ${k}: done.` }], stop_reason: 'end_turn', usage: { input_tokens: 12, cache_read_input_tokens: 90_000, output_tokens: 9 } }, uuid: randomUUID(), timestamp: new Date().toISOString() };
    parent = answer.uuid;
    return { text: `${JSON.stringify(prompt)}\n${JSON.stringify(answer)}\n`, messages: 2 };
  };
}

export interface FollowResult {
  openMs: number;
  messagesAtOpen: number;
  /** From the open reply until the worker's CPU settled (the open's one-off work over). */
  settleMs: number;
  idleCpuMs: number;
  idleWallMs: number;
  appends: number;
  appendedBytes: number;
  /** Per append: ms from its write to the first sessionUpdated showing its messages. */
  latenciesMs: number[];
  rssBefore: number;
  rssAfter: number;
  /** RSS once the warm-up's appends were shown, and the bytes appended from then to the end. */
  rssWarm: number;
  appendedAfterWarm: number;
}

/** Resolves after `ms` (the measuring windows of this runner: idle time and the append schedule are what is measured). */
const after = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

runMain(async (): Promise<FollowResult> => {
  const input = readInput<Input>();
  // testHooks for `collectGarbage`: memory is compared after full collections (this process runs
  // with --expose-gc), so what is measured is what stays, not garbage not yet collected.
  const client = createResolverClient({ workerPath: input.workerPath, execArgv: [], testHooks: true });
  const retained = async (): Promise<number> => {
    (globalThis as { gc?: () => void }).gc?.();
    if (!(await client.collectGarbage())) throw new Error('followHost runs with --expose-gc: the worker could not collect');
    return memoryStatus().rss;
  };
  // The worker has started once it answers anything (no_session here): thread start-up is not measured.
  await client.request('log', {});
  let latest: EventPayload<'sessionUpdated'> | undefined;
  const waiting: { messages: number; resolve: () => void }[] = [];
  client.onEvent((e) => {
    if (e.name !== 'sessionUpdated') return;
    latest = e.payload;
    for (const w of waiting.filter((x) => x.messages <= e.payload.info.messages)) w.resolve();
  });
  const started = performance.now();
  const opened = value('open', await client.open([input.sidecar], 1));
  const openMs = performance.now() - started;

  // The open's one-off work (the hidden contents' hashes verified on a thread after the open
  // reply) is let finish before anything is measured: it is not following's cost, and
  // its memory comes and goes while it runs. Settled: under 5% of a core over half a second.
  const settleStart = performance.now();
  for (let k = 0; k < 120; k++) {
    const c0 = process.cpuUsage();
    const w0 = performance.now();
    await after(500);
    const c = process.cpuUsage(c0);
    if ((c.user + c.system) / 1000 / (performance.now() - w0) < 0.05) break;
  }
  const settleMs = performance.now() - settleStart;
  const rssBefore = await retained();

  let next = opened.messages;
  const append = input.records === 'claude-code' ? claudeAppender(input.sidecar) : nativeAppender(opened.messages, input.chunkBytes);
  let appendedBytes = 0;
  const pending: Promise<number>[] = [];
  const startedAppending = performance.now();
  const until = startedAppending + input.appendMs;
  let warm: { rss: number; appended: number } | undefined;
  while (performance.now() < until) {
    const added = append(pending.length);
    next += added.messages;
    const target = next;
    const at = performance.now();
    appendFileSync(input.sidecar, added.text);
    appendedBytes += Buffer.byteLength(added.text);
    pending.push(
      (latest && latest.info.messages >= target ? Promise.resolve() : new Promise<void>((resolve) => waiting.push({ messages: target, resolve }))).then(() => performance.now() - at),
    );
    await after(input.everyMs);
    if (!warm && performance.now() - startedAppending >= input.warmMs) warm = { rss: await retained(), appended: appendedBytes };
  }
  const latenciesMs = await Promise.all(pending);
  const rssAfter = await retained();
  // Idle following is measured once the appends are shown: the open's one-off work (the hidden
  // contents' hashes verified on a thread after the open reply) is over by then, and
  // what is left is what watching and polling cost.
  const cpu0 = process.cpuUsage();
  const wall0 = performance.now();
  await after(input.idleMs);
  const cpu = process.cpuUsage(cpu0);
  const idleWallMs = performance.now() - wall0;
  await client.dispose();
  return {
    openMs,
    settleMs,
    messagesAtOpen: opened.messages,
    idleCpuMs: (cpu.user + cpu.system) / 1000,
    idleWallMs,
    appends: latenciesMs.length,
    appendedBytes,
    latenciesMs,
    rssBefore,
    rssAfter,
    rssWarm: warm?.rss ?? rssBefore,
    appendedAfterWarm: appendedBytes - (warm?.appended ?? 0),
  };
});
