/**
 * The file formats the app reads, part of the contract (shared/contract.ts re-exports them): each
 * file format's name, the agent (session format) it belongs to, and how its files' names end.
 */

/**
 * The format of one opened file, detected by content. One name per file format, not per session: a
 * native session is one or two files (`supercode-sidecar`, `supercode-snapshot`); each importer
 * (SPEC §10.1: claude-code, codex, …) will add its own name here.
 */
export const SESSION_FILE_FORMATS = ['supercode-sidecar', 'supercode-snapshot', 'claude-code', 'codex-rollout', 'swe-agent-traj', 'inspect-eval', 'inspect-json', 'mini-swe-agent-traj', 'openhands-v0', 'openhands-v1'] as const;
export type SessionFileFormat = (typeof SESSION_FILE_FORMATS)[number];

/** §10.1: the format a session was read from, one name per agent (a native session is `supercode`, whichever of its files are open). */
export const SESSION_FORMATS = ['supercode', 'claude-code', 'codex', 'swe-agent', 'inspect', 'openhands'] as const;
export type SessionFormat = (typeof SESSION_FORMATS)[number];
/** Which session format each file format belongs to: a new file format must name its agent here. */
export const SESSION_FORMAT_OF_FILE: Readonly<Record<SessionFileFormat, SessionFormat>> = {
  'supercode-sidecar': 'supercode',
  'supercode-snapshot': 'supercode',
  'claude-code': 'claude-code',
  'codex-rollout': 'codex',
  'swe-agent-traj': 'swe-agent',
  'inspect-eval': 'inspect',
  'inspect-json': 'inspect',
  'mini-swe-agent-traj': 'swe-agent',
  'openhands-v0': 'openhands',
  'openhands-v1': 'openhands',
};
/**
 * How the names of each file format's files end, as the agent writes them: what the desktop open
 * dialog offers (electron/main/openDialog.ts). A hint for choosing only: every file is detected by
 * its content, whatever its name. A new file format must name its endings here.
 */
export const FILE_FORMAT_EXTENSIONS: Readonly<Record<SessionFileFormat, readonly string[]>> = {
  'supercode-sidecar': ['.sidecar.jsonl'],
  'supercode-snapshot': ['.session.json'],
  'claude-code': ['.jsonl'],
  'codex-rollout': ['.jsonl'],
  'swe-agent-traj': ['.traj'],
  'inspect-eval': ['.eval'],
  'inspect-json': ['.json'],
  'mini-swe-agent-traj': ['.traj.json'],
  // A V0 trajectory; a V1 conversation's base_state.json or events/event-*.json.
  'openhands-v0': ['.json'],
  'openhands-v1': ['.json'],
};
