/**
 * Hostile companions, built at test time (git holds no FIFO, and a link to /dev/zero or out of a
 * folder only means something where it is made): a session folder whose companion file — or
 * companion folder — is a FIFO, a link to /dev/zero, or a link to a file or folder outside it that
 * holds OUTSIDE_SECRET. docs/safe-reads.md says what the loader does with each.
 */
import type { ChildProcess } from 'node:child_process';
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { SESSION_ID, writeSynthetic } from '../claudeCode/testing/build';
import { BESIDE_ID, PLAIN_ID, WORKFLOW, agentText, writeSubagentLayouts } from '../claudeCode/testing/subagents';
import { OPENHANDS_SYNTHETIC_DIR } from '../openhands/testing/synthetic';

/** Text only the outside files hold: it must never reach a session. */
export const OUTSIDE_SECRET = 'OUTSIDESECRETqz7';

export type Hostility = 'fifo' | 'dev-zero' | 'link-out';

/** Every companion a format reads beside a session file, as a file or as a folder. */
export const COMPANION_FILES = ['tool-result', 'subagent', 'workflow-subagent', 'beside-agent', 'subagent-meta', 'event', 'base-state'] as const;
export const COMPANION_FOLDERS = ['tool-results-folder', 'subagents-folder', 'events-folder'] as const;
export type CompanionKind = (typeof COMPANION_FILES)[number] | (typeof COMPANION_FOLDERS)[number];

export interface ForeignCase {
  /** The session file the user opens. */
  main: string;
  /** The companion made hostile. */
  companion: string;
  /** The subagent id whose file was made hostile, when it is one. */
  agent?: string;
}

const EVENT = 'event-00001-msg-1.json';

/** The session of `kind` written into `dir` (a new folder), its companion made `hostility`; outside files go in `outside`. */
export function buildForeignCase(dir: string, outside: string, kind: CompanionKind, hostility: Hostility): ForeignCase {
  mkdirSync(dir, { recursive: true });
  mkdirSync(outside, { recursive: true });
  let main: string;
  let companion: string;
  let outsideText: string;
  let agent: string | undefined;
  const cc = (layouts: boolean): string => (layouts ? writeSubagentLayouts(dir) : writeSynthetic(dir));
  switch (kind) {
    case 'tool-result':
    case 'tool-results-folder': {
      main = cc(false);
      const results = join(dir, SESSION_ID, 'tool-results');
      const name = readdirSync(results).sort()[0]!;
      outsideText = `${OUTSIDE_SECRET}\n`;
      if (kind === 'tool-results-folder') {
        for (const n of readdirSync(results)) writeFileSync(join(outside, n), outsideText);
        companion = results;
      } else companion = join(results, name);
      break;
    }
    case 'subagent':
    case 'workflow-subagent':
    case 'beside-agent':
    case 'subagent-meta':
    case 'subagents-folder': {
      main = cc(true);
      const subagents = join(dir, SESSION_ID, 'subagents');
      agent = kind === 'workflow-subagent' ? `workflows/${WORKFLOW}/${PLAIN_ID}` : kind === 'beside-agent' ? BESIDE_ID : PLAIN_ID;
      outsideText = agentText(SESSION_ID, kind === 'beside-agent' ? BESIDE_ID : PLAIN_ID, `${OUTSIDE_SECRET} prompt`, 'outside answer');
      if (kind === 'subagents-folder') {
        writeFileSync(join(outside, `agent-${PLAIN_ID}.jsonl`), outsideText);
        companion = subagents;
      } else if (kind === 'subagent-meta') {
        outsideText = JSON.stringify({ description: OUTSIDE_SECRET });
        companion = join(subagents, `agent-${PLAIN_ID}.meta.json`);
        writeFileSync(companion, JSON.stringify({ description: 'the plain agent' }));
      } else companion = kind === 'subagent' ? join(subagents, `agent-${PLAIN_ID}.jsonl`) : kind === 'workflow-subagent' ? join(subagents, 'workflows', WORKFLOW, `agent-${PLAIN_ID}.jsonl`) : join(dir, `agent-${BESIDE_ID}.jsonl`);
      break;
    }
    case 'event':
    case 'base-state':
    case 'events-folder': {
      cpSync(join(OPENHANDS_SYNTHETIC_DIR, 'v1-conversation'), dir, { recursive: true });
      const events = join(dir, 'events');
      main = kind === 'base-state' ? join(events, 'event-00000-sys.json') : join(dir, 'base_state.json');
      outsideText = readFileSync(join(events, EVENT), 'utf8').replace('Write a README for this repo.', OUTSIDE_SECRET);
      if (kind === 'events-folder') {
        for (const n of readdirSync(events)) writeFileSync(join(outside, n), n === EVENT ? outsideText : readFileSync(join(events, n)));
        companion = events;
      } else if (kind === 'base-state') {
        companion = join(dir, 'base_state.json');
        outsideText = readFileSync(companion, 'utf8');
      } else companion = join(events, EVENT);
      break;
    }
  }
  rmSync(companion, { recursive: true, force: true });
  mkdirSync(dirname(companion), { recursive: true });
  const folder = (COMPANION_FOLDERS as readonly string[]).includes(kind);
  if (hostility === 'fifo') execFileSync('mkfifo', [companion]);
  else if (hostility === 'dev-zero') symlinkSync('/dev/zero', companion);
  else if (folder) symlinkSync(outside, companion);
  else {
    const target = join(outside, `outside-${kind}`);
    writeFileSync(target, outsideText);
    symlinkSync(target, companion);
  }
  return { main, companion, ...(agent !== undefined ? { agent } : {}) };
}

/**
 * Writers for a FIFO, one after another until killed: should a regression open it blocking, each
 * open pairs with a writer (which closes at once) and returns, so the test fails on what it read
 * instead of hanging the run.
 */
export function fifoWriter(fifo: string): ChildProcess {
  return spawn('sh', ['-c', 'while :; do : >"$1"; done', 'sh', fifo], { stdio: 'ignore' });
}
