/**
 * The library's roots (docs/library.md, SPEC §14): each agent's default folder with the environment
 * override the agent itself reads, plus every folder given. Pure: the environment, home folder,
 * working folder and platform come in as arguments, so the host (CLI, HTTP, Electron) passes its own.
 */
import { isAbsolute, join, resolve } from 'node:path';

/** Which agent's default folder a root is; `given` for a folder named on the command line or by the host. */
export type RootAgent = 'claude-code' | 'codex' | 'inspect' | 'swe-agent' | 'mini-swe-agent' | 'openhands' | 'given';

export interface LibraryRoot {
  /** Absolute path, as resolved (not yet checked to exist). */
  path: string;
  agent: RootAgent;
}

export interface RootsContext {
  env: Readonly<Record<string, string | undefined>>;
  home: string;
  cwd: string;
  platform: NodeJS.Platform;
}

/** A non-empty environment value, else undefined (an agent treats an empty variable as unset). */
function envPath(env: RootsContext['env'], name: string, cwd: string): string | undefined {
  const v = env[name];
  if (v === undefined || v.trim() === '') return undefined;
  return isAbsolute(v) ? v : resolve(cwd, v);
}

/** mini-swe-agent's global config folder: `$MSWEA_GLOBAL_CONFIG_DIR` or platformdirs' user config dir. */
function miniSweAgentFolder({ env, home, cwd, platform }: RootsContext): string {
  const given = envPath(env, 'MSWEA_GLOBAL_CONFIG_DIR', cwd);
  if (given !== undefined) return given;
  if (platform === 'darwin') return join(home, 'Library', 'Application Support', 'mini-swe-agent');
  if (platform === 'win32') return join(envPath(env, 'LOCALAPPDATA', cwd) ?? join(home, 'AppData', 'Local'), 'mini-swe-agent');
  return join(envPath(env, 'XDG_CONFIG_HOME', cwd) ?? join(home, '.config'), 'mini-swe-agent');
}

/**
 * Claude Code's transcript folders, as Claude Code reads them (docs/library.md "Roots"):
 * `$CLAUDE_CONFIG_DIR/projects` when the variable is set — one folder, taken whole (Claude Code
 * joins it as a path; a comma is part of the name: the comma-separated list is ccusage's
 * convention, not Claude Code's) — else `~/.claude/projects`, and also
 * `$XDG_CONFIG_HOME/claude/projects` (default `~/.config/claude/projects`), where the builds around
 * 1.0.30 wrote when `XDG_CONFIG_HOME` was set (FORMATS.md §A1).
 */
function claudeCodeRoots({ env, home, cwd }: RootsContext): LibraryRoot[] {
  const given = envPath(env, 'CLAUDE_CONFIG_DIR', cwd);
  if (given !== undefined) return [{ path: join(given, 'projects'), agent: 'claude-code' }];
  const config = envPath(env, 'XDG_CONFIG_HOME', cwd) ?? join(home, '.config');
  return [
    { path: join(home, '.claude', 'projects'), agent: 'claude-code' },
    { path: join(config, 'claude', 'projects'), agent: 'claude-code' },
  ];
}

/** Every agent's default root, in a fixed order (each only a candidate: the caller checks it exists). */
export function defaultRoots(context: RootsContext): LibraryRoot[] {
  const { env, home, cwd } = context;
  const codex = envPath(env, 'CODEX_HOME', cwd) ?? join(home, '.codex');
  const openhands = envPath(env, 'OPENHANDS_CONVERSATIONS_DIR', cwd);
  return [
    ...claudeCodeRoots(context),
    { path: join(codex, 'sessions'), agent: 'codex' },
    { path: join(codex, 'archived_sessions'), agent: 'codex' },
    { path: envPath(env, 'INSPECT_LOG_DIR', cwd) ?? join(cwd, 'logs'), agent: 'inspect' },
    { path: envPath(env, 'SWE_AGENT_TRAJECTORY_DIR', cwd) ?? join(cwd, 'trajectories'), agent: 'swe-agent' },
    { path: miniSweAgentFolder(context), agent: 'mini-swe-agent' },
    ...(openhands !== undefined ? [{ path: openhands, agent: 'openhands' as const }] : [{ path: join(home, '.openhands', 'conversations'), agent: 'openhands' as const }, { path: join(home, '.openhands', 'sessions'), agent: 'openhands' as const }]),
  ];
}

/**
 * The roots of a listing: the given folders (resolved against `cwd`), then, unless `noDefaults`,
 * the agents' defaults. A folder named twice is one root (the first naming wins).
 */
export function libraryRoots(given: readonly string[], noDefaults: boolean, context: RootsContext): LibraryRoot[] {
  const roots: LibraryRoot[] = given.map((p) => ({ path: p, agent: 'given' }));
  if (!noDefaults) roots.push(...defaultRoots(context));
  const seen = new Set<string>();
  // Absolute, whatever the environment said (a relative HOME or override is taken from `cwd`).
  return roots.map((r) => ({ ...r, path: resolve(context.cwd, r.path) })).filter((r) => {
    if (seen.has(r.path)) return false;
    seen.add(r.path);
    return true;
  });
}

/** The process's own context (the CLI's and the hosts'). */
export function processRootsContext(home: string): RootsContext {
  return { env: process.env, home, cwd: process.cwd(), platform: process.platform };
}
