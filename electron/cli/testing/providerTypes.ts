/**
 * Checks request bodies against the providers' own SDK types (docs/export.md, "Provider
 * requests: how the bodies are validated"): each body becomes a typed constant of a generated
 * TypeScript file — `MessageCreateParamsNonStreaming` of @anthropic-ai/sdk,
 * `ChatCompletionCreateParamsNonStreaming` and `ResponseCreateParamsNonStreaming` of openai —
 * compiled with the TypeScript API. An object literal is held to excess-property checks at every
 * depth, so a misspelt field, a wrong role or a block of the wrong shape is an error. The file
 * lives only in the compiler host's memory: nothing is written.
 */
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import type { Provider } from '../../../shared/export/request';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

/** Each provider's body type, the key of its list of messages and that list's element type (what the body type says it is). */
const TYPE_OF: Readonly<Record<Provider, { from: string; name: string; list: string; element: string }>> = {
  anthropic: { from: '@anthropic-ai/sdk/resources/messages/messages', name: 'MessageCreateParamsNonStreaming', list: 'messages', element: 'MessageParam' },
  'openai-chat': { from: 'openai/resources/chat/completions/completions', name: 'ChatCompletionCreateParamsNonStreaming', list: 'messages', element: 'ChatCompletionMessageParam' },
  'openai-responses': { from: 'openai/resources/responses/responses', name: 'ResponseCreateParamsNonStreaming', list: 'input', element: 'ResponseInputItem' },
};

/**
 * Every string longer than 40 characters replaced by `"x"`: the SDK types constrain strings by literal
 * only in short tags (`type`, `role`), so the check is the same and a 400 KB body costs no more
 * than its structure.
 */
function shortStrings(v: unknown): unknown {
  if (typeof v === 'string') return v.length > 40 ? 'x' : v;
  if (Array.isArray(v)) return v.map(shortStrings);
  if (typeof v === 'object' && v !== null) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, shortStrings(x)]));
  return v;
}

/**
 * What the API requires that no file records, added before the check (the export names it under
 * `not_recorded`): Anthropic's `max_tokens`, and a model where the file names none.
 */
function completed(provider: Provider, body: Record<string, unknown>): Record<string, unknown> {
  return { model: 'model-not-recorded', ...body, ...(provider === 'anthropic' ? { max_tokens: 1024 } : {}) };
}

export interface TypedBody {
  provider: Provider;
  body: Record<string, unknown>;
  /** Names the body in the errors. */
  label: string;
}

/** The type errors of each body, by label (an empty map: every body is well typed). */
export function providerTypeErrors(bodies: readonly TypedBody[]): Map<string, string[]> {
  const file = join(ROOT, 'electron/cli/testing/__providerBodies.ts');
  const lines: string[] = [];
  for (const p of Object.keys(TYPE_OF) as Provider[]) lines.push(`import type { ${TYPE_OF[p].name}, ${TYPE_OF[p].element} } from '${TYPE_OF[p].from}';`);
  const starts: { line: number; label: string }[] = [];
  // A body is checked as its fields with the list left empty, then each element of the list as
  // the list's element type: the same check, and an element of one shape (every string cut
  // short) is checked once — the first body that has it names it.
  const seen = new Set<string>();
  const check = (type: string, value: unknown, label: string): void => {
    const literal = JSON.stringify(value);
    if (seen.has(`${type} ${literal}`)) return;
    seen.add(`${type} ${literal}`);
    starts.push({ line: lines.length, label });
    lines.push(`export const v${lines.length}: ${type} = ${literal};`);
  };
  for (const b of bodies) {
    const { list, name, element } = TYPE_OF[b.provider];
    const body = shortStrings(completed(b.provider, b.body)) as Record<string, unknown>;
    const items = body[list];
    check(name, { ...body, [list]: Array.isArray(items) ? [] : items }, b.label);
    if (Array.isArray(items)) items.forEach((item, k) => check(element, item, `${b.label}, ${list}[${k}]`));
  }
  const text = lines.join('\n');
  const options: ts.CompilerOptions = { strict: true, noEmit: true, target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Bundler, skipLibCheck: true, types: [], lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'] };
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (name, version, ...rest) => (resolve(name) === file ? ts.createSourceFile(name, text, version) : getSourceFile(name, version, ...rest));
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (name) => resolve(name) === file || fileExists(name);
  const readFile = host.readFile.bind(host);
  host.readFile = (name) => (resolve(name) === file ? text : readFile(name));
  const program = ts.createProgram([file], options, host);
  const errors = new Map<string, string[]>();
  for (const d of ts.getPreEmitDiagnostics(program)) {
    const message = ts.flattenDiagnosticMessageText(d.messageText, '\n');
    let label = '(setup)';
    if (d.file && resolve(d.file.fileName) === file && d.start !== undefined) {
      const line = d.file.getLineAndCharacterOfPosition(d.start).line;
      label = starts.find((s) => s.line === line)?.label ?? '(setup)';
    }
    errors.set(label, [...(errors.get(label) ?? []), message.slice(0, 2000)]);
  }
  return errors;
}
