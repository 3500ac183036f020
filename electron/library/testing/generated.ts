/** Sessions written into a temporary folder, for the cache and the benchmark: small Claude Code ones, and a library of every format from real files. */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';

/** The id of small session `k`. */
export const smallSessionId = (k: number): string => `00000000-0000-4000-8000-${String(k).padStart(12, '0')}`;

/** The lines of one small session: `turns` user prompts each answered once. */
export function smallSession(k: number, turns = 2): string {
  const id = smallSessionId(k);
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

/** The lines of a Claude Code 2.0.x agent file of small session `k` (docs/FORMATS.md §1.9): a sidechain prompt and its answer, naming the session. */
export function smallAgent(k: number, agentId: string): string {
  const id = smallSessionId(k);
  const time = new Date(Date.UTC(2026, 0, 1) + k * 60_000).toISOString();
  const envelope = { sessionId: id, agentId, isSidechain: true, cwd: `/work/project-${k % 7}`, timestamp: time };
  return [
    { type: 'user', ...envelope, uuid: `${agentId}-u`, parentUuid: null, message: { role: 'user', content: `search the code for the callers of session ${k}'s function` } },
    { type: 'assistant', ...envelope, uuid: `${agentId}-a`, parentUuid: `${agentId}-u`, message: { id: `msg_${agentId}`, role: 'assistant', model: 'claude-test-1', content: [{ type: 'text', text: `three callers, in ${agentId}` }] } },
  ]
    .map((l) => `${JSON.stringify(l)}\n`)
    .join('');
}

/** One Claude Code 2.0.x project folder `dir`: `sessions` small sessions, each with `agentsEach` agent files beside them. */
export function writeAgentFolder(dir: string, sessions: number, agentsEach: number): void {
  mkdirSync(dir, { recursive: true });
  for (let k = 0; k < sessions; k++) {
    writeFileSync(join(dir, `${smallSessionId(k)}.jsonl`), smallSession(k));
    for (let a = 0; a < agentsEach; a++) {
      const agentId = (k * agentsEach + a).toString(16).padStart(8, '0');
      writeFileSync(join(dir, `agent-${agentId}.jsonl`), smallAgent(k, agentId));
    }
  }
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
