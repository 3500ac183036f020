/**
 * A large, valid sidecar for the renderer benchmark and the scale e2e spec: a header, a system
 * prompt, `count` messages (user / assistant with a tool call / tool output, in turn; 60–150 bytes
 * each) and a few reductions over small tool outputs (`tool_output_elided` and
 * `tool_output_truncated`, hashed over the original bytes, stub text per SPEC §4), so the view
 * shows stub chips at the start, in the middle and at the end.
 *
 * Written line by line into a buffer flushed every few MB: a million messages take a few seconds.
 * Also: the HTTP host started on a file (`serve FILE --port 0`), its URL read from its first line.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, renameSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { stubText } from '../shared/format/constants';

export interface LargeSidecar {
  path: string;
  /** Messages in the view (rows, since no range is cleared). */
  messages: number;
  bytes: number;
  /** The reductions written, by id. */
  reductions: { id: string; kind: 'tool_output_elided' | 'tool_output_truncated'; index: number }[];
  /** Whether an existing file of the same shape was reused. */
  reused: boolean;
}

const WORDS = ['build', 'test', 'src', 'lint', 'module', 'cache', 'index', 'render', 'worker', 'slice', 'range', 'parser', 'token', 'stream', 'buffer', 'report'];
const CMDS = ['npm test', 'git status', 'ls -la src', 'rg TODO', 'cargo check', 'pytest -q', 'tsc --noEmit', 'du -sh dist'];

/** A deterministic phrase of `n` words chosen by `seed`. */
function phrase(seed: number, n: number): string {
  const out: string[] = [];
  let x = (seed ^ 0x9e3779b9) >>> 0;
  for (let k = 0; k < n; k++) {
    // xorshift32
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    out.push(WORDS[x % WORDS.length] as string);
  }
  return out.join(' ');
}

/** The message at view index `i`: user, assistant (with one tool call), tool, in turn. */
export function messageAt(i: number): { role: 'user' | 'assistant' | 'tool'; content: string; tool_call_id?: string; tool_calls?: { id: string; name: string; arguments: string }[] } {
  const turn = Math.floor(i / 3);
  switch (i % 3) {
    case 0:
      return { role: 'user', content: `Turn ${turn}: please ${phrase(i, 4 + (i % 9))} and report back.` };
    case 1:
      return {
        role: 'assistant',
        content: `Checking ${phrase(i, 2 + (i % 5))}.`,
        tool_calls: [{ id: `call_${turn}`, name: 'shell', arguments: JSON.stringify({ cmd: CMDS[turn % CMDS.length] }) }],
      };
    default:
      return { role: 'tool', tool_call_id: `call_${turn}`, content: `$ ${CMDS[turn % CMDS.length]}\n${phrase(i, 6 + (i % 12))}\nexit 0\n` };
  }
}

/** The tool-output indices that carry a reduction (first, middle, last tool output and a few more). */
export function reducedIndices(count: number): number[] {
  const tools = Math.floor((count - 3) / 3);
  const at = [0, 1, 2, Math.floor(tools / 4), Math.floor(tools / 2), Math.floor((3 * tools) / 4), tools - 1, tools];
  return [...new Set(at.map((t) => 3 * Math.max(0, t) + 2).filter((i) => i < count))].sort((a, b) => a - b);
}

function sha256(text: string): string {
  return `sha256:${createHash('sha256').update(text, 'utf8').digest('hex')}`;
}

/** Writes (or reuses) `path` with `count` messages; the file is written to a temporary name first. */
export function writeLargeSidecar(path: string, count: number): LargeSidecar {
  const indices = reducedIndices(count);
  const reductions = indices.map((index, k) => ({ id: `r${k + 1}`, kind: k % 2 === 0 ? ('tool_output_elided' as const) : ('tool_output_truncated' as const), index }));
  const stampPath = `${path}.json`;
  const stamp = JSON.stringify({ generator: 2, count, reductions });
  if (existsSync(path) && existsSync(stampPath) && readFileSync(stampPath, 'utf8') === stamp) {
    return { path, messages: count, bytes: statSync(path).size, reductions, reused: true };
  }

  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.partial`;
  const fd = openSync(tmp, 'w');
  let chunk: string[] = [];
  let chunkBytes = 0;
  const write = (line: string): void => {
    chunk.push(line);
    chunkBytes += line.length;
    if (chunkBytes > 4 * 1024 * 1024) flush();
  };
  const flush = (): void => {
    if (chunk.length === 0) return;
    writeSync(fd, chunk.join(''));
    chunk = [];
    chunkBytes = 0;
  };
  try {
    const header = {
      t: 'header',
      format: 'supercode-sidecar',
      version: 1,
      session_id: `s-bench-${count}`,
      created_at: '2026-12-01T00:00:00Z',
      model: 'bench-model',
      gate: true,
      policy: { protect_last_n_tool_results: 0, max_tool_result_bytes: 32, kept_prefix_bytes: 12, dedupe: false, clear_turns_before: null },
    };
    write(`${JSON.stringify(header)}\n`);
    write(`${JSON.stringify({ t: 'system', msg: { role: 'system', content: 'You are supercode, a coding agent.' } })}\n`);
    for (let i = 0; i < count; i++) write(`${JSON.stringify({ t: 'message', i, msg: messageAt(i) })}\n`);
    for (const r of reductions) {
      const content = messageAt(r.index).content;
      const total = Buffer.byteLength(content, 'utf8');
      // Content is ASCII: any kept_bytes is a character boundary.
      const kept = r.kind === 'tool_output_truncated' ? 12 : 0;
      const record = {
        id: r.id,
        kind: r.kind,
        ptr: { index: r.index, hash: sha256(content), bytes: total },
        ...(r.kind === 'tool_output_truncated' ? { kept_bytes: kept } : {}),
        stub: stubText(r.id, r.kind, total - kept),
        minted_at: count,
      };
      write(`${JSON.stringify({ t: 'reduction', r: record })}\n`);
    }
    flush();
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
  const bytes = statSync(path).size;
  // The stamp last: a run stopped half-way writes the file again next time.
  writeFileSync(stampPath, stamp);
  return { path, messages: count, bytes, reductions, reused: false };
}

export const REPO_ROOT = resolve(import.meta.dirname, '..');

/** Debian's Chromium, used when present (Playwright's own cannot be downloaded on every machine). */
const SYSTEM_CHROMIUM = '/usr/bin/chromium';
/** How long a page may take to load a bench session. */
export const LOAD_TIMEOUT_MS = 300_000;

/** Launch options for the bench's browser: the system Chromium where there is one. */
export function chromiumLaunchOptions(): { executablePath?: string } {
  return existsSync(SYSTEM_CHROMIUM) ? { executablePath: SYSTEM_CHROMIUM } : {};
}
const CLI = join(REPO_ROOT, 'bin', 'session-inspector.cjs');
const LISTENING_PREFIX = 'Session Inspector listening on ';

export interface ServeHandle {
  url: string;
  /** Milliseconds from spawning the host to its listening line. */
  startMs: number;
  stderr: () => string;
  stop: () => Promise<void>;
}

/** Starts `serve FILE… --port 0` and resolves once it prints its URL (within `timeoutMs`). */
export async function startServe(files: readonly string[], timeoutMs = 120_000): Promise<ServeHandle> {
  const started = performance.now();
  const child = spawn(process.execPath, [CLI, 'serve', ...files, '--port', '0'], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => (stderr += chunk));
  child.stdout.setEncoding('utf8');
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const gone = new Promise<void>((done) => child.once('exit', () => done()));
    child.kill('SIGTERM');
    const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await gone;
    clearTimeout(killer);
  };
  try {
    const url = await new Promise<string>((done, fail) => {
      let out = '';
      const timer = setTimeout(() => fail(new Error(`serve printed no address within ${timeoutMs} ms; stderr: ${stderr.trim()}`)), timeoutMs);
      child.once('exit', (code, signal) => fail(new Error(`serve exited (${code ?? signal}) before printing its address; stderr: ${stderr.trim()}`)));
      child.stdout.on('data', (chunk: string) => {
        out += chunk;
        const newline = out.indexOf('\n');
        if (newline < 0) return;
        clearTimeout(timer);
        const line = out.slice(0, newline).trim();
        if (line.startsWith(LISTENING_PREFIX)) done(line.slice(LISTENING_PREFIX.length));
        else fail(new Error(`serve's first line is ${JSON.stringify(line)}`));
      });
    });
    child.stdout.resume();
    return { url, startMs: performance.now() - started, stderr: () => stderr, stop };
  } catch (e) {
    await stop();
    throw e;
  }
}

export interface HugeOutputSidecar {
  path: string;
  /** The reduction over the huge output (`tool_output_truncated`, at view index 2). */
  id: string;
  /** Bytes of the huge output (UTF-8). */
  outputBytes: number;
  /** Size of the sidecar. */
  bytes: number;
  reused: boolean;
}

/**
 * Lines `from`… of a test-runner log, about `target` bytes (whole lines): ANSI colours, a
 * multi-byte character now and then (so window ends get floored to character boundaries), the
 * line number in each line.
 */
function logBlock(from: number, target: number): { text: string; lines: number } {
  const out: string[] = [];
  let bytes = 0;
  let n = from;
  while (bytes < target) {
    const ok = n % 17 !== 0;
    const line = `[${String(n).padStart(9, '0')}] ${ok ? '\u001b[32mPASS\u001b[0m' : '\u001b[31mFAIL\u001b[0m'} ${phrase(n, 3 + (n % 6)).replace(/ /g, '/')}.test.ts (${n % 997} ms)${n % 5 === 0 ? ' — résumé ✓' : ''}\n`;
    out.push(line);
    bytes += Buffer.byteLength(line, 'utf8');
    n++;
  }
  return { text: out.join(''), lines: n - from };
}

/**
 * Writes (or reuses) a sidecar whose one tool output is `outputBytes` or a little more (
 * windows inside a 200 MB output): a header, a system prompt, a user message, an assistant call,
 * the huge output (truncated to a 12-byte kept prefix, hashed over its bytes) and a last message.
 * Streamed in blocks: the output is never one string.
 */
export function writeHugeOutputSidecar(path: string, outputBytes: number): HugeOutputSidecar {
  const id = 'r1';
  const stampPath = `${path}.json`;
  const stamp = JSON.stringify({ generator: 1, outputBytes });
  if (existsSync(path) && existsSync(stampPath)) {
    const known = JSON.parse(readFileSync(stampPath, 'utf8')) as { stamp?: string; total?: number };
    if (known.stamp === stamp && typeof known.total === 'number') return { path, id, outputBytes: known.total, bytes: statSync(path).size, reused: true };
  }
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.partial`;
  const fd = openSync(tmp, 'w');
  const hash = createHash('sha256');
  let total = 0;
  try {
    const header = {
      t: 'header',
      format: 'supercode-sidecar',
      version: 1,
      session_id: 's-bench-huge-output',
      created_at: '2026-12-01T00:00:00Z',
      model: 'bench-model',
      gate: true,
      policy: { protect_last_n_tool_results: 0, max_tool_result_bytes: 64, kept_prefix_bytes: 12, dedupe: false, clear_turns_before: null },
    };
    writeSync(fd, `${JSON.stringify(header)}\n`);
    writeSync(fd, `${JSON.stringify({ t: 'system', msg: { role: 'system', content: 'You are supercode, a coding agent.' } })}\n`);
    writeSync(fd, `${JSON.stringify({ t: 'message', i: 0, msg: { role: 'user', content: 'Run the whole test suite and tell me what fails.' } })}\n`);
    writeSync(fd, `${JSON.stringify({ t: 'message', i: 1, msg: { role: 'assistant', content: 'Running it.', tool_calls: [{ id: 'call_0', name: 'shell', arguments: '{"cmd":"npm test"}' }] } })}\n`);
    writeSync(fd, '{"t":"message","i":2,"msg":{"role":"tool","tool_call_id":"call_0","content":"');
    let line = 0;
    while (total < outputBytes) {
      const block = logBlock(line, Math.min(4 * 1024 * 1024, outputBytes - total));
      line += block.lines;
      const buf = Buffer.from(block.text, 'utf8');
      hash.update(buf);
      total += buf.length;
      // Whole lines: a block never splits a character or an escape.
      writeSync(fd, JSON.stringify(block.text).slice(1, -1));
    }
    writeSync(fd, '"}}\n');
    writeSync(fd, `${JSON.stringify({ t: 'message', i: 3, msg: { role: 'assistant', content: 'Some tests fail; see the log.' } })}\n`);
    // "[000000000] ": ASCII, so a character boundary.
    const kept = 12;
    const record = { id, kind: 'tool_output_truncated', ptr: { index: 2, hash: `sha256:${hash.digest('hex')}`, bytes: total }, kept_bytes: kept, stub: stubText(id, 'tool_output_truncated', total - kept), minted_at: 4 };
    writeSync(fd, `${JSON.stringify({ t: 'reduction', r: record })}\n`);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
  writeFileSync(stampPath, JSON.stringify({ stamp, total }));
  return { path, id, outputBytes: total, bytes: statSync(path).size, reused: false };
}
