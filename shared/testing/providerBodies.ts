/**
 * Test support for the provider request bodies (shared/export/): the rules every body must keep —
 * tool calls paired with their results, Anthropic's alternation — and the body read back as a
 * list of atoms (texts by role, tool calls, tool results) to compare with `view --at N`.
 */
import type { Provider } from '../export/request';
import { NO_RESULT_RECORDED } from '../export/request';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/** One thing the model was given, in order. */
export type Atom = { kind: 'text'; role: string; text: string } | { kind: 'call'; id: string } | { kind: 'result'; id: string; text: string };

/** The text of a content that is a string or a list of text-bearing parts (images skipped). */
export function contentText(c: unknown): string {
  if (typeof c === 'string') return c;
  return list(c)
    .flatMap((b) => (isObj(b) && typeof b.text === 'string' ? [b.text] : []))
    .join('\n');
}

/** Adjacent texts of one role as one (the bodies merge turns, the view splits parts: both join with a newline), empty texts dropped. */
export function mergeTexts(atoms: readonly Atom[]): Atom[] {
  const out: Atom[] = [];
  for (const a of atoms) {
    if (a.kind === 'text' && a.text === '') continue;
    const last = out[out.length - 1];
    if (a.kind === 'text' && last?.kind === 'text' && last.role === a.role) out[out.length - 1] = { ...last, text: `${last.text}\n${a.text}` };
    else out.push(a);
  }
  return out;
}

/** The atoms of a body, with the system text (Anthropic's `system`, Responses' `instructions`) apart. */
export function bodyAtoms(provider: Provider, body: Obj): Atom[] {
  const atoms: Atom[] = [];
  if (provider === 'anthropic') {
    for (const m of list(body.messages)) {
      if (!isObj(m)) continue;
      const role = String(m.role);
      if (typeof m.content === 'string') {
        atoms.push({ kind: 'text', role, text: m.content });
        continue;
      }
      for (const b of list(m.content)) {
        if (!isObj(b)) continue;
        if (b.type === 'text') atoms.push({ kind: 'text', role, text: String(b.text) });
        else if (b.type === 'tool_use') atoms.push({ kind: 'call', id: String(b.id) });
        else if (b.type === 'tool_result') atoms.push({ kind: 'result', id: String(b.tool_use_id), text: contentText(b.content) });
      }
    }
  } else if (provider === 'openai-chat') {
    for (const m of list(body.messages)) {
      if (!isObj(m)) continue;
      if (m.role === 'tool') {
        atoms.push({ kind: 'result', id: String(m.tool_call_id), text: contentText(m.content) });
        continue;
      }
      atoms.push({ kind: 'text', role: String(m.role), text: m.content === null ? '' : contentText(m.content) });
      for (const c of list(m.tool_calls)) if (isObj(c)) atoms.push({ kind: 'call', id: String(c.id) });
    }
  } else {
    for (const it of list(body.input)) {
      if (!isObj(it)) continue;
      if (it.type === 'message') atoms.push({ kind: 'text', role: String(it.role), text: contentText(it.content) });
      else if (it.type === 'function_call') atoms.push({ kind: 'call', id: String(it.call_id) });
      else if (it.type === 'function_call_output') atoms.push({ kind: 'result', id: String(it.call_id), text: contentText(it.output) });
    }
  }
  return atoms;
}

/**
 * Where a body breaks the APIs' pairing rules (an empty list: none): every tool call is answered
 * by exactly one result of its id before the next message that is neither a call nor a result, and
 * every result answers a call before it; for Anthropic also: roles alternate, results sit at the
 * head of the user message right after the assistant message of their calls.
 */
export function pairingViolations(provider: Provider, body: Obj): string[] {
  const problems: string[] = [];
  const atoms = bodyAtoms(provider, body);
  let pending = new Set<string>();
  let answered = new Set<string>();
  let inResults = false;
  atoms.forEach((a, k) => {
    if (a.kind === 'call') {
      if (inResults) {
        for (const id of pending) problems.push(`call ${id} unanswered before atom ${k}`);
        pending = new Set();
        answered = new Set();
        inResults = false;
      }
      pending.add(a.id);
    } else if (a.kind === 'result') {
      inResults = true;
      if (!pending.has(a.id)) problems.push(`result ${a.id} at atom ${k} answers no pending call${answered.has(a.id) ? ' (answered twice)' : ''}`);
      pending.delete(a.id);
      answered.add(a.id);
    } else {
      for (const id of pending) problems.push(`call ${id} unanswered before atom ${k}`);
      pending = new Set();
      answered = new Set();
      inResults = false;
    }
  });
  for (const id of pending) problems.push(`call ${id} unanswered at the end`);
  if (provider === 'anthropic') {
    const messages = list(body.messages).filter(isObj);
    messages.forEach((m, i) => {
      if (m.role !== 'user' && m.role !== 'assistant') problems.push(`message ${i} has role ${String(m.role)}`);
      if (i > 0 && messages[i - 1]?.role === m.role) problems.push(`messages ${i - 1} and ${i} are both ${String(m.role)}`);
      if (m.content === '' || (Array.isArray(m.content) && m.content.length === 0)) problems.push(`message ${i} is empty`);
      const blocks = list(m.content).filter(isObj);
      const results = blocks.filter((b) => b.type === 'tool_result');
      const firstOther = blocks.findIndex((b) => b.type !== 'tool_result');
      if (results.length > 0 && firstOther !== -1 && blocks.slice(firstOther).some((b) => b.type === 'tool_result')) problems.push(`message ${i} has a tool_result after other content`);
      if (results.length > 0) {
        const prev = messages[i - 1];
        const calls = new Set(list(prev?.content).flatMap((b) => (isObj(b) && b.type === 'tool_use' ? [String(b.id)] : [])));
        for (const r of results) if (!calls.has(String(r.tool_use_id))) problems.push(`message ${i}'s tool_result ${String(r.tool_use_id)} is not for a tool_use of message ${i - 1}`);
      }
      if (m.role === 'assistant') {
        const calls = blocks.filter((b) => b.type === 'tool_use').map((b) => String(b.id));
        const next = messages[i + 1];
        const ids = new Set(list(next?.content).flatMap((b) => (isObj(b) && b.type === 'tool_result' ? [String(b.tool_use_id)] : [])));
        for (const id of calls) if (!ids.has(id)) problems.push(`tool_use ${id} of message ${i} has no tool_result in message ${i + 1}`);
      }
    });
  }
  return problems;
}

/**
 * The atoms with the two changes every API needs, applied the plain way: a result that answers no
 * pending call speaks as the user, a call left unanswered gets a placeholder result.
 */
export function paired(atoms: readonly Atom[]): Atom[] {
  const out: Atom[] = [];
  let pending: string[] = [];
  const flush = (): void => {
    for (const id of pending) out.push({ kind: 'result', id, text: NO_RESULT_RECORDED });
    pending = [];
  };
  atoms.forEach((a, k) => {
    if (a.kind === 'call') {
      if (atoms[k - 1]?.kind === 'result') flush();
      pending.push(a.id);
      out.push(a);
    } else if (a.kind === 'result') {
      const at = pending.indexOf(a.id);
      if (at === -1) {
        flush();
        out.push({ kind: 'text', role: 'user', text: a.text });
      } else {
        pending.splice(at, 1);
        out.push(a);
      }
    } else {
      flush();
      out.push(a);
    }
  });
  flush();
  return out;
}

/** A message as `view --at N` prints it. */
export interface ViewMessage {
  index: number;
  role: string | null;
  content: string;
  tool_call_id?: string;
  tool_calls?: { id: string }[];
  reductions?: string[];
}

/** The atoms the model was given, read from `view --at N`'s messages (or the originals'), placed as `provider` places them. */
export function viewAtoms(messages: readonly ViewMessage[], provider: Provider): Atom[] {
  const atoms: Atom[] = [];
  let leading = true;
  for (const m of messages) {
    if (m.role === 'tool') {
      atoms.push({ kind: 'result', id: m.tool_call_id ?? '', text: m.content });
      leading = false;
      continue;
    }
    // Anthropic's leading system messages are its `system` field; a later one speaks as the user.
    const role = m.role === null ? 'user' : m.role === 'system' && provider === 'anthropic' ? (leading ? 'drop' : 'user') : m.role;
    if (m.role !== 'system') leading = false;
    if (role !== 'drop') atoms.push({ kind: 'text', role, text: m.content });
    for (const c of m.tool_calls ?? []) atoms.push({ kind: 'call', id: c.id });
  }
  return atoms;
}
