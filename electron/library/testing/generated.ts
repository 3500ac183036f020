/** Sessions written into a temporary folder, for the cache and the benchmark: small Claude Code ones, and a library of every format from real files. */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';

/** The lines of one small session: `turns` user prompts each answered once. */
export function smallSession(k: number, turns = 2): string {
  const id = `00000000-0000-4000-8000-${String(k).padStart(12, '0')}`;
  const lines: unknown[] = [];
  let parent: string | null = null;
  for (let t = 0; t < turns; t++) {
    const u = `${id}-u${t}`;
    const a = `${id}-a${t}`;
    const time = new Date(Date.UTC(2026, 0, 1) + k * 60_000 + t * 1000).toISOString();
    lines.push({ type: 'user', sessionId: id, cwd: `/work/project-${k % 7}`, gitBranch: 'main', timestamp: time, uuid: u, parentUuid: parent, isSidechain: false, message: { role: 'user', content: `prompt ${t} of session ${k}: list the files` } });
    lines.push({ type: 'assistant', sessionId: id, cwd: `/work/project-${k % 7}`, timestamp: time, uuid: a, parentUuid: u, isSidechain: false, message: { id: `msg_${k}_${t}`, role: 'assistant', model: 'claude-test-1', content: [{ type: 'text', text: `answer ${t} to session ${k}` }] } });
    parent = a;
  }
  return `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`;
}

/** `count` small sessions under `dir`, in project folders of 50; returns their paths. */
export function writeSmallSessions(dir: string, count: number): string[] {
  const paths: string[] = [];
  for (let k = 0; k < count; k++) {
    const folder = join(dir, `-work-project-${Math.floor(k / 50)}`);
    if (k % 50 === 0) mkdirSync(folder, { recursive: true });
    const path = join(folder, `session-${k}.jsonl`);
    writeFileSync(path, smallSession(k));
    paths.push(path);
  }
  return paths;
}

/**
 * The real-format files a mixed library is made of (e2e/fixtures/real, samples/): small sessions of
 * every format the library lists, as each agent wrote them — Claude Code, Codex, Inspect (`.json`
 * and `.eval`), SWE-agent, mini-swe-agent, OpenHands and the native sidecar.
 */
export const MIXED_LIBRARY_SOURCES: readonly string[] = [
  'e2e/fixtures/real/claude-code/cc-2.1.7-parallel-results.jsonl',
  'e2e/fixtures/real/claude-code/cc-2.1.42-rewind.jsonl',
  'e2e/fixtures/real/codex/rollout-0.139-review-subagent-ENTIRE.jsonl',
  'e2e/fixtures/real/inspect/log_tool_call_error.json',
  'e2e/fixtures/real/inspect/log_message_deduplication.eval',
  'e2e/fixtures/real/inspect/2025-02-11T15-18-04-05-00_popularity_mj7khqpMM4GBCfVQozKgzB.eval',
  'e2e/fixtures/real/swe-agent/sweagenttestrepo-1c2844.traj',
  'e2e/fixtures/real/mini-swe-agent/local.traj.json',
  'e2e/fixtures/real/mini-swe-agent/github_issue.traj.json',
  'e2e/fixtures/real/openhands/basic_interactions.json',
  'e2e/fixtures/real/openhands/wrong_initial_state.json',
  'samples/demo.sidecar.jsonl',
];

/**
 * `count` sessions under `dir`, in folders of 50, each a copy of one of MIXED_LIBRARY_SOURCES taken
 * in turn (`repo` is the repository's root), under a name of its own that keeps the source's
 * (Inspect's task is in it); every format equally often. Returns their paths.
 */
export function writeMixedLibrary(dir: string, count: number, repo: string): string[] {
  const sources = MIXED_LIBRARY_SOURCES.map((rel) => ({ name: basename(rel), bytes: readFileSync(join(repo, rel)) }));
  const paths: string[] = [];
  for (let k = 0; k < count; k++) {
    const folder = join(dir, `folder-${Math.floor(k / 50)}`);
    if (k % 50 === 0) mkdirSync(folder, { recursive: true });
    const source = sources[k % sources.length] as { name: string; bytes: Buffer };
    const path = join(folder, `${String(k).padStart(5, '0')}-${source.name}`);
    writeFileSync(path, source.bytes);
    paths.push(path);
  }
  return paths;
}
