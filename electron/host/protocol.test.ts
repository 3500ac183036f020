/**
 * The HTTP host's protocol — its header names, its paths, the token's query parameter — is spelled
 * once, in shared/contract.ts: the host (electron/host/) and the renderer's bridge both take it
 * from there, so neither can drift from the other.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { API_ROOT, EVENTS_PATH, METHOD_NAMES, TOKEN_HEADER, TOKEN_PARAM, UPLOAD_NAME_HEADER, UPLOAD_PATH, apiPath } from '../../shared/contract';
import { repoPath, sourceFiles } from '../../tools/testing/importGraph';

const REPO = resolve(import.meta.dirname, '../..');

/** Every string a file spells: string literals and the text parts of template literals, with their line. */
function stringsOf(path: string): { text: string; line: number }[] {
  const text = readFileSync(path, 'utf8');
  const file = ts.createSourceFile(path, text, { languageVersion: ts.ScriptTarget.Latest, jsDocParsingMode: ts.JSDocParsingMode.ParseNone }, false, path.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const found: { text: string; line: number }[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isStringLiteral(node) || ts.isTemplateLiteralToken(node) || ts.isJsxText(node)) found.push({ text: node.text, line: file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1 });
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

describe('the HTTP protocol is spelled once, in shared/contract.ts', () => {
  it('no string in the code of electron/ or renderer/ spells a header name or an API path of it', () => {
    // An API path of ours: /api, /api/, or /api/ then a method, `events` or `upload` (a session's own `/api/v1/…` is content).
    const apiPathPattern = new RegExp(`(^|[^\\w.])/api(/(${[...METHOD_NAMES, 'events', 'upload'].join('|')})?)?(?![\\w/-])`);
    const headerPattern = /x-session-inspector-/i;
    const spelled = sourceFiles(REPO, ['electron', 'renderer'])
      .filter((path) => !/\.test\.tsx?$/.test(path))
      .flatMap((path) => stringsOf(path).map((s) => ({ ...s, path })))
      .filter((s) => headerPattern.test(s.text) || apiPathPattern.test(s.text))
      .map((s) => `${repoPath(s.path, REPO)}:${s.line} ${JSON.stringify(s.text.slice(0, 80))}`);
    expect(spelled).toEqual([]);
  }, 120_000);

  it('the contract names the headers, the paths and the parameter', () => {
    expect({ TOKEN_HEADER, UPLOAD_NAME_HEADER, TOKEN_PARAM, API_ROOT, EVENTS_PATH, UPLOAD_PATH, state: apiPath('state') }).toEqual({
      TOKEN_HEADER: 'x-session-inspector-token',
      UPLOAD_NAME_HEADER: 'x-session-inspector-file-name',
      TOKEN_PARAM: 'token',
      API_ROOT: '/api',
      EVENTS_PATH: '/api/events',
      UPLOAD_PATH: '/api/upload',
      state: '/api/state',
    });
  });

  it('no method of the contract is answered at the events or the upload path', () => {
    const paths = METHOD_NAMES.map(apiPath);
    expect(new Set(paths).size).toBe(METHOD_NAMES.length);
    expect(paths).not.toContain(EVENTS_PATH);
    expect(paths).not.toContain(UPLOAD_PATH);
  });
});
