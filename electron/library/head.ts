/**
 * What the head (and tail) of a session file gives at once, per format (docs/library.md): the
 * entry's id, title, project, branch, models and times, before any full read. Pure over the bytes
 * given: a record cut by the end of the head is left out, and a value of the wrong type is ignored
 * (a malformed file gives an emptier entry, never an error).
 */
import { basename } from 'node:path';
import type { SessionFileFormat } from '../../shared/index';
import { sketchJson } from '../listing/sketch';
import { jsonValueOf } from '../loader/common/json';

/** Titles are one line of at most this many characters. */
export const TITLE_MAX_CHARS = 120;

export interface HeadInfo {
  id: string | null;
  title: string | null;
  project: string | null;
  branch?: string;
  models: string[];
  /** ISO times from the records (null: none seen; the caller falls back on the modification time). */
  started: string | null;
  updated: string | null;
  status?: string;
}

type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
function str(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : undefined;
}

/** Runs of white space and runs of anything else, in turn. */
const WORDS = /\s+|\S+/g;

/**
 * One line of at most TITLE_MAX_CHARS characters (white space runs made one space, trimmed; cut
 * with `…`). Reads the text only as far as the title goes: a first prompt may be megabytes.
 */
export function oneLine(text: string): string | null {
  const kept: string[] = [];
  let chars = 0;
  let space = false;
  WORDS.lastIndex = 0;
  for (let m = WORDS.exec(text); m !== null; m = WORDS.exec(text)) {
    const word = m[0];
    if (/\s/.test(word.charAt(0))) {
      space = kept.length > 0;
      continue;
    }
    if (space) {
      kept.push(' ');
      chars++;
      space = false;
    }
    // Characters as Array.from counts them (code points); one past the limit says the line is cut.
    for (const ch of word) {
      kept.push(ch);
      if (++chars > TITLE_MAX_CHARS) return `${kept.slice(0, TITLE_MAX_CHARS - 1).join('')}…`;
    }
  }
  return chars === 0 ? null : kept.join('');
}

/** A timestamp's milliseconds since the epoch (a number below 1e12 is seconds), or undefined when it is none. */
function timeMs(v: unknown): number | undefined {
  if (typeof v !== 'string' && typeof v !== 'number') return undefined;
  const t = new Date(typeof v === 'number' && v < 1e12 ? v * 1000 : v).getTime();
  return Number.isFinite(t) ? t : undefined;
}

function isoOf(ms: number | undefined): string | null {
  return ms === undefined ? null : new Date(ms).toISOString();
}

/** The complete lines of a head (`whole`: the head is the file) or of a tail (its first line may be cut); `text` is `bytes` decoded, when the caller has it. */
function records(bytes: Buffer | undefined, part: 'head' | 'tail', whole: boolean, text?: string): Json[] {
  if (!bytes) return [];
  const lines = (text ?? bytes.toString('utf8')).split('\n');
  if (part === 'tail') lines.shift();
  if (!whole) lines.pop();
  const out: Json[] = [];
  for (const line of lines) {
    if (line.trim() === '') continue;
    // A malformed line gives nothing here; indexing reports it.
    const v = jsonValueOf(line)?.value;
    if (isObject(v)) out.push(v);
  }
  return out;
}

/** Text of a message's content: a string, or the text parts of an array of parts. */
function contentText(content: unknown): string | undefined {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return undefined;
  const texts: string[] = [];
  for (const part of content) {
    if (!isObject(part)) continue;
    if (part.type === 'tool_result' || part.type === 'function_call_output') return undefined;
    const t = str(part.text);
    if (t !== undefined) texts.push(t);
  }
  return texts.length > 0 ? texts.join(' ') : undefined;
}

/** Wrappers an agent puts around what the user did not type (commands, reminders, environment). */
const NOT_A_PROMPT = /^\s*<(local-command-[a-z-]+|command-[a-z-]+|system-reminder|bash-[a-z-]+|environment_context|user_instructions|user_shell_command|turn_aborted)>/;

/** The Codex IDE extension puts the editor's context first and the request after this heading. */
const CODEX_IDE_REQUEST = '## My request for Codex:';
/**
 * Codex wraps an attached image in text parts of its own, `<image name=[Image #1]>` and `</image>`,
 * in the message the model is given (its `user_message` event holds the prompt without them).
 */
const CODEX_IMAGE_TAGS = /<image name=\[[^\]\n]{0,200}\]>|<\/image>/g;

/** A user message's text as a title (one line), or null when it is empty or a wrapper the agent put around what the user did not type. */
export function promptTitle(text: string | undefined): string | null {
  if (text === undefined || NOT_A_PROMPT.test(text)) return null;
  const request = text.indexOf(CODEX_IDE_REQUEST);
  const prompt = request >= 0 ? text.slice(request + CODEX_IDE_REQUEST.length) : text;
  return oneLine(prompt.includes('image') ? prompt.replace(CODEX_IMAGE_TAGS, ' ') : prompt);
}

class Collector {
  id: string | null = null;
  project: string | null = null;
  branch: string | undefined;
  readonly models: string[] = [];
  /** The earliest and latest times seen, in ms: made ISO strings once, by info(). */
  private startedMs: number | undefined;
  private updatedMs: number | undefined;
  prompt: string | null = null;
  own: { rank: number; title: string } | undefined;
  status: string | undefined;

  model(m: unknown): void {
    const name = str(m);
    if (name !== undefined && name !== '<synthetic>' && !this.models.includes(name)) this.models.push(name);
  }
  time(t: unknown): void {
    const ms = timeMs(t);
    if (ms === undefined) return;
    this.earliest(ms);
    if (this.updatedMs === undefined || ms > this.updatedMs) this.updatedMs = ms;
  }
  /** A time the session had begun by, that says nothing of when it was last written. */
  began(t: unknown): void {
    const ms = timeMs(t);
    if (ms !== undefined) this.earliest(ms);
  }
  private earliest(ms: number): void {
    if (this.startedMs === undefined || ms < this.startedMs) this.startedMs = ms;
  }
  /** The agent's own title: a higher rank wins; among equals, the later one (titles are appended). */
  title(rank: number, text: unknown): void {
    const t = typeof text === 'string' ? oneLine(text) : null;
    if (t !== null && (this.own === undefined || rank >= this.own.rank)) this.own = { rank, title: t };
  }
  firstPrompt(text: string | undefined): void {
    if (this.prompt === null) this.prompt = promptTitle(text);
  }
  info(): HeadInfo {
    return { id: this.id, title: this.own?.title ?? this.prompt, project: this.project, ...(this.branch !== undefined ? { branch: this.branch } : {}), models: this.models, started: isoOf(this.startedMs), updated: isoOf(this.updatedMs), ...(this.status !== undefined ? { status: this.status } : {}) };
  }
}

/** Claude Code (docs/library.md): custom-title > ai-title > summary > first user prompt; `cwd`, `gitBranch`, `sessionId`. */
function claudeCode(c: Collector, lines: Json[]): void {
  for (const r of lines) {
    c.time(r.timestamp);
    if (r.type === 'custom-title') c.title(3, r.customTitle);
    else if (r.type === 'ai-title') c.title(2, r.aiTitle);
    else if (r.type === 'summary') c.title(1, r.summary);
    if (r.isSidechain === true) continue;
    c.id ??= str(r.sessionId) ?? null;
    c.project ??= str(r.cwd) ?? null;
    if (c.branch === undefined && str(r.gitBranch) !== undefined) c.branch = r.gitBranch as string;
    const message = isObject(r.message) ? r.message : undefined;
    if (r.type === 'assistant') c.model(message?.model);
    if (r.type === 'user' && r.isMeta !== true && r.isCompactSummary !== true) c.firstPrompt(contentText(message?.content));
  }
}

/** Codex: `session_meta` (id, cwd, git branch), `turn_context` models, the first `user_message` event. */
function codex(c: Collector, lines: Json[]): void {
  for (const r of lines) {
    c.time(r.timestamp);
    const p = isObject(r.payload) ? r.payload : undefined;
    if (!p) continue;
    if (r.type === 'session_meta') {
      c.id ??= str(p.id) ?? null;
      c.project ??= str(p.cwd) ?? null;
      if (c.branch === undefined && isObject(p.git) && str(p.git.branch) !== undefined) c.branch = p.git.branch as string;
    } else if (r.type === 'turn_context') c.model(p.model);
    else if (r.type === 'event_msg' && p.type === 'user_message') c.firstPrompt(str(p.message));
  }
}

/** The first user message of a list of chat messages (role/content). */
function firstUser(c: Collector, messages: unknown): void {
  if (!Array.isArray(messages)) return;
  for (const m of messages) if (isObject(m) && m.role === 'user') c.firstPrompt(contentText(m.content));
}

function documentOf(head: Buffer, whole: boolean, text?: string): unknown {
  return sketchJson((text ?? head.toString('utf8')).replace(/^\uFEFF/, '').trimStart(), { whole, limits: { maxDepth: 6, maxItems: 16, maxString: 4096 } }).value;
}

/** Inspect's file name `{created}_{task}_{id}.eval`: the task. */
function inspectTaskOfName(name: string): string | undefined {
  const m = /^\d{4}-\d\d-\d\dT[\d-]+(?:[+-]\d\d-\d\d|Z)?_(.+)_[A-Za-z0-9]{22}\.(?:eval|json)$/.exec(name);
  return m?.[1];
}

function jsonDocument(c: Collector, format: SessionFileFormat, doc: unknown): void {
  if (format === 'inspect-json' && isObject(doc)) {
    const e = isObject(doc.eval) ? doc.eval : {};
    c.title(1, e.task);
    c.id = str(e.run_id) ?? str(e.eval_id) ?? null;
    c.model(e.model);
    c.time(e.created);
    if (str(doc.status) !== undefined) c.status = doc.status as string;
    if (isObject(doc.stats)) {
      c.time(doc.stats.started_at);
      c.time(doc.stats.completed_at);
    }
  } else if (format === 'swe-agent-traj' && isObject(doc)) {
    firstUser(c, doc.history);
    if (typeof doc.replay_config === 'string') {
      const m = /"model"\s*:\s*\{[^{}]*?"name"\s*:\s*"([^"\\]{1,200})"/.exec(doc.replay_config);
      c.model(m?.[1]);
    }
  } else if (format === 'mini-swe-agent-traj') {
    const messages = Array.isArray(doc) ? doc : isObject(doc) ? doc.messages : undefined;
    firstUser(c, messages);
    const info = isObject(doc) && isObject(doc.info) ? doc.info : undefined;
    const model = isObject(info?.config) && isObject(info.config.model) ? info.config.model : undefined;
    c.model(model?.model_name);
    if (str(info?.exit_status) !== undefined) c.status = info?.exit_status as string;
  } else if (format === 'openhands-v0' && Array.isArray(doc)) {
    for (const ev of doc) {
      if (!isObject(ev)) continue;
      c.time(ev.timestamp);
      if (ev.source === 'user' && ev.action === 'message' && isObject(ev.args)) c.firstPrompt(str(ev.args.content));
    }
  } else if (format === 'openhands-v1' && isObject(doc)) {
    c.id = str(doc.id) ?? null;
    const agent = isObject(doc.agent) ? doc.agent : undefined;
    c.model(isObject(agent?.llm) ? agent.llm.model : undefined);
  } else if (format === 'supercode-snapshot' && isObject(doc)) {
    c.id = str(doc.session_id) ?? null;
    c.model(doc.model);
    firstUser(c, doc.messages);
  }
}

/** The entry fields of an Inspect log's header (a `.json` log's start, an `.eval` archive's `header.json`). */
export function headInfoOfInspectLog(doc: unknown): HeadInfo {
  const c = new Collector();
  jsonDocument(c, 'inspect-json', doc);
  return c.info();
}

/**
 * A native sidecar (SPEC §3.1): the header's `session_id`, `model` and `created_at`, the models of
 * `model_change` records, the first user message (`message` records hold it in `msg`). Only the
 * header holds a time: it is when the session started, and `updated` is left to the file's
 * modification time (the records appended since carry none).
 */
function sidecar(c: Collector, lines: Json[]): void {
  for (const r of lines) {
    if (r.t === 'header') {
      c.id ??= str(r.session_id) ?? null;
      c.model(r.model);
      c.began(r.created_at);
    } else if (r.t === 'model_change') {
      c.model(r.from);
      c.model(r.to);
    } else if (r.t === 'message' && isObject(r.msg) && r.msg.role === 'user') c.firstPrompt(contentText(r.msg.content));
  }
}

/**
 * The head's entry fields of the file `path` of format `format`, `size` bytes long, whose first
 * bytes are `head` and last bytes `tail` (absent when the head is the whole file). `headText` is
 * `head` decoded as UTF-8 when the caller has it (the walk's sniff decoded it): not decoded again.
 */
export function headInfo(format: SessionFileFormat, path: string, size: number, head: Buffer, tail?: Buffer, headText?: string): HeadInfo {
  const c = new Collector();
  const whole = head.length >= size;
  const name = basename(path);
  switch (format) {
    case 'claude-code':
      claudeCode(c, records(head, 'head', whole, headText));
      claudeCode(c, records(tail, 'tail', true));
      break;
    case 'codex-rollout':
      codex(c, records(head, 'head', whole, headText));
      codex(c, records(tail, 'tail', true));
      break;
    case 'supercode-sidecar':
      sidecar(c, records(head, 'head', whole, headText));
      sidecar(c, records(tail, 'tail', true));
      break;
    case 'inspect-eval':
      c.title(1, inspectTaskOfName(name));
      break;
    default:
      jsonDocument(c, format, documentOf(head, whole, headText));
  }
  const info = c.info();
  if (info.title === null && format === 'inspect-json') info.title = oneLine(inspectTaskOfName(name) ?? '');
  return info;
}
