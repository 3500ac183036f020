/**
 * A temporary HOME (and working folders) holding real sessions of four agents where each keeps
 * them (docs/library.md), plus what a walk must not list: a Claude Code subagent file and
 * tool-results folder (they belong to their session), a link out of a root (to a folder and to a
 * file holding a session) and a FIFO named like a session. The environment the library reads is
 * set to it; `restore()` puts the environment back and removes everything.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, cpSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';

export const REAL = join(import.meta.dirname, '../../../e2e/fixtures/real');

const ENV_KEYS = ['HOME', 'CLAUDE_CONFIG_DIR', 'CODEX_HOME', 'INSPECT_LOG_DIR', 'SWE_AGENT_TRAJECTORY_DIR', 'MSWEA_GLOBAL_CONFIG_DIR', 'OPENHANDS_CONVERSATIONS_DIR', 'SESSION_INSPECTOR_CACHE_DIR', 'XDG_CONFIG_HOME', 'XDG_CACHE_HOME'] as const;

export interface LibraryHome {
  base: string;
  home: string;
  cache: string;
  /** The roots holding sessions (what must stay byte for byte as it was). */
  roots: string[];
  /** Every session file that must be listed. */
  sessions: string[];
  /** Paths of files that must not be listed (subagent, tool result, FIFO, links and what lies behind them). */
  notSessions: string[];
  compacted: string;
  restore(): void;
}

export function makeLibraryHome(): LibraryHome {
  const base = mkdtempSync(join(tmpdir(), 'library-home-'));
  const home = join(base, 'home');
  const projects = join(home, '.claude', 'projects');
  const project = join(projects, '-Users-x-app');
  const codexSessions = join(home, '.codex', 'sessions', '2026', '06', '17');
  const codexArchived = join(home, '.codex', 'archived_sessions');
  const logs = join(base, 'work', 'logs');
  const trajectories = join(base, 'work', 'trajectories');
  const outside = join(base, 'outside');
  for (const d of [project, codexSessions, codexArchived, logs, join(trajectories, 'u', 'run', 'inst'), outside]) mkdirSync(d, { recursive: true });

  cpSync(join(REAL, 'claude-code', 'cc-2.1.17-subagent'), project, { recursive: true });
  const main = join(project, '29ccd257-68b1-427f-ae5f-6524b7cb6f20.jsonl');
  const companion = join(project, '29ccd257-68b1-427f-ae5f-6524b7cb6f20');
  mkdirSync(join(companion, 'tool-results'));
  writeFileSync(join(companion, 'tool-results', 'toolu_1.txt'), 'a persisted tool output\n');
  const compacted = join(project, 'cc-2.0.76-compact-boundary.jsonl');
  copyFileSync(join(REAL, 'claude-code', 'cc-2.0.76-compact-boundary.jsonl'), compacted);
  const codexActive = join(codexSessions, 'rollout-2026-06-17T17-17-40-019ed628-d563-7e40-bbb1-93a6a302d688.jsonl');
  copyFileSync(join(REAL, 'codex', 'rollout-0.139-review-subagent-ENTIRE.jsonl'), codexActive);
  const codexOld = join(codexArchived, 'rollout-2025-09-25T23-12-14-019982b8-3422-79e0-8b3b-05abaf4f3c3e.jsonl');
  copyFileSync(join(REAL, 'codex', 'rollout-0.40.0-vscode-unmodified.jsonl'), codexOld);
  const codexCompacted = join(codexArchived, 'rollout-remote-compaction.jsonl');
  writeFileSync(codexCompacted, gunzipSync(readFileSync(join(REAL, 'codex', 'rollout-0.118-remote-compaction-subagent-ENTIRE.jsonl.gz'))));
  const inspectEval = join(logs, '2025-02-11T15-18-04-05-00_popularity_mj7khqpMM4GBCfVQozKgzB.eval');
  copyFileSync(join(REAL, 'inspect', '2025-02-11T15-18-04-05-00_popularity_mj7khqpMM4GBCfVQozKgzB.eval'), inspectEval);
  const inspectJson = join(logs, '2025-05-12T20-28-26-04-00_security-guide.json');
  copyFileSync(join(REAL, 'inspect', '2025-05-12T20-28-26-04-00_security-guide.json'), inspectJson);
  const traj = join(trajectories, 'u', 'run', 'inst', 'sweagenttestrepo-1c2844.traj');
  copyFileSync(join(REAL, 'swe-agent', 'sweagenttestrepo-1c2844.traj'), traj);

  // What must not be listed.
  copyFileSync(join(REAL, 'claude-code', 'cc-2.1.42-rewind.jsonl'), join(outside, 'escaped.jsonl'));
  symlinkSync(outside, join(projects, 'link-out'));
  symlinkSync(join(outside, 'escaped.jsonl'), join(project, 'link-out.jsonl'));
  const fifo = join(project, 'x.jsonl');
  execFileSync('mkfifo', [fifo]);

  const saved = new Map<string, string | undefined>(ENV_KEYS.map((k) => [k, process.env[k]]));
  for (const k of ENV_KEYS) delete process.env[k];
  process.env.HOME = home;
  process.env.INSPECT_LOG_DIR = logs;
  process.env.SWE_AGENT_TRAJECTORY_DIR = trajectories;
  const cache = join(base, 'cache');
  process.env.SESSION_INSPECTOR_CACHE_DIR = cache;
  return {
    base,
    home,
    cache,
    roots: [projects, join(home, '.codex'), logs, trajectories],
    sessions: [main, compacted, codexActive, codexOld, codexCompacted, inspectEval, inspectJson, traj],
    notSessions: [join(companion, 'subagents', 'agent-a2271d1.jsonl'), join(companion, 'tool-results', 'toolu_1.txt'), fifo, join(project, 'link-out.jsonl'), join(projects, 'link-out', 'escaped.jsonl')],
    compacted,
    restore() {
      for (const [k, v] of saved) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
      rmSync(base, { recursive: true, force: true });
    },
  };
}

/** Every entry under `dir` (links not followed): its kind, mode, size, mtime and, for a file, the SHA-256 of its bytes. FIFOs are not opened. */
export function treeFingerprint(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      const s = lstatSync(p);
      if (s.isSymbolicLink()) out.push(`${p} link ${readlinkSync(p)}`);
      else if (s.isDirectory()) {
        out.push(`${p} dir ${s.mode} ${s.mtimeMs}`);
        walk(p);
      } else if (s.isFile()) out.push(`${p} file ${s.mode} ${s.size} ${s.mtimeMs} ${createHash('sha256').update(readFileSync(p)).digest('hex')}`);
      else out.push(`${p} other ${s.mode} ${s.mtimeMs}`);
    }
  };
  walk(dir);
  return out;
}
