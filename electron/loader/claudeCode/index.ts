/**
 * Claude Code transcripts (`claude-code`, SPEC §10.1) behind the source seam. Detected by content:
 * the first JSON line is an object whose `type` is a Claude Code record type and that carries
 * Claude Code's envelope (`uuid`, `sessionId`, `leafUuid` or `messageId`). The file is read whole
 * at the first pass and imported by `importClaudeCode`; originals of `<persisted-output>` are read
 * from `<session>/tool-results/` beside it, never written.
 */
import { readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { arrayList } from '../../../shared/index';
import { readExactly } from '../lines';
import type { OpenFile } from '../openFile';
import { safeClose, unreadable } from '../openFile';
import type { FormatAdapter, IndexPass, IndexStop, SessionSource, SourceIndex } from '../source';
import type { ClaudeLine, ImportedSession } from './importer';
import { KNOWN_TYPES, importClaudeCode } from './importer';

const DETECT_BYTES = 1024 * 1024;
const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** True when `value` (a parsed line) is a Claude Code record. */
export function isClaudeRecord(value: unknown): boolean {
  if (!isObj(value) || typeof value.type !== 'string' || !KNOWN_TYPES.has(value.type)) return false;
  return typeof value.uuid === 'string' || typeof value.sessionId === 'string' || typeof value.leafUuid === 'string' || typeof value.messageId === 'string';
}

/** Claims a file whose first parseable line (in its first MB) is a Claude Code record. */
export function looksLikeClaudeCode(head: string): boolean {
  const lines = head.split('\n');
  for (let i = 0; i < lines.length && i < 20; i++) {
    const t = lines[i]!.trim();
    if (t === '') continue;
    try {
      return isClaudeRecord(JSON.parse(t));
    } catch {
      if (i === lines.length - 1) return false; // cut by the head: undecided, not ours
      continue;
    }
  }
  return false;
}

/** Splits a whole file into its lines; a last line without its newline is `torn`. */
export function splitClaudeLines(text: string): ClaudeLine[] {
  const parts = text.split('\n');
  const out: ClaudeLine[] = [];
  for (let i = 0; i < parts.length; i++) {
    const last = i === parts.length - 1;
    if (last && parts[i] === '') break;
    out.push({ line: i + 1, text: parts[i]!.replace(/\r$/, ''), ...(last ? { torn: true } : {}) });
  }
  return out;
}

/** The `tool-results/` folder of a session file: `<dir>/<stem>/tool-results/`. */
export function toolResultsDir(path: string): string {
  return join(dirname(path), basename(path).replace(/\.jsonl$/, ''), 'tool-results');
}

export class ClaudeCodeSource implements SessionSource {
  readonly format = 'claude-code' as const;
  readonly readsAfterIndexing = false;
  private result: SourceIndex | undefined;
  private imported: ImportedSession | undefined;
  private closed = false;

  constructor(
    readonly file: OpenFile,
    private readonly read: IndexPass['read'] | undefined,
    private readonly session?: string,
  ) {}

  /** Parsed whole at the first pass (whatever `end`), then closed. */
  indexTo(_end: number, pass: IndexPass): Promise<IndexStop> {
    if (!this.result) {
      const bytes = readExactly(this.file.fd, 0, this.file.size, this.read ?? pass.read);
      this.close();
      pass.progress.add(this.file.size);
      if (!bytes) {
        this.result = { stopped: [{ code: 'malformed_line', severity: 'error', message: `${this.file.path} shrank while it was read` }] };
      } else {
        const dir = toolResultsDir(this.file.path);
        const imported = importClaudeCode(splitClaudeLines(bytes.toString('utf8')), {
          ...(this.session !== undefined ? { session: this.session } : {}),
          toolResult: (name) => {
            if (name.includes('/') || name.includes('\\') || name === '..' || name === '.') return undefined;
            try {
              return readFileSync(join(dir, name), 'utf8');
            } catch {
              return undefined;
            }
          },
        });
        this.imported = imported;
        this.result = {
          snapshot: {
            session_id: imported.session_id,
            model: imported.model,
            messages: arrayList(imported.messages),
            reductions: imported.reductions,
            findings: imported.findings,
          },
        };
      }
    }
    return Promise.resolve({ offset: this.file.size, line: 1 });
  }

  /** The sessions the file holds (after the first pass). */
  sessions(): ImportedSession['sessions'] {
    return this.imported?.sessions ?? [];
  }

  indexed(): SourceIndex {
    return this.result ?? {};
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    safeClose(this.file.fd);
  }
}

export const claudeCodeFormat: FormatAdapter = {
  name: 'claude-code',
  formats: ['claude-code'],
  detect(file, context) {
    const head = readExactly(file.fd, 0, Math.min(file.size, DETECT_BYTES), context.read);
    if (!head) return { ok: false, error: unreadable(file.path, 'the file shrank while it was being read') };
    if (!looksLikeClaudeCode(head.toString('utf8'))) return { ok: false, error: { code: 'unrecognized_file', message: `${file.path} is not a Claude Code transcript` } };
    return { ok: true, source: new ClaudeCodeSource(file, context.read) };
  },
  assemble(opened) {
    if (opened.length > 1) return { error: { code: 'usage', message: `${opened.length} Claude Code transcripts given: pass one (its subagents and tool-results are found beside it)` } };
    return { sources: [...opened] };
  },
};
