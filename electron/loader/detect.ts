/**
 * Opening a file and finding the format adapter that claims it, by content. Adapters are asked in
 * order; the first that claims the file wins.
 */
import { claudeCodeFormat } from './claudeCode/index';
import { codexFormat } from './codex/index';
import { nativeFormat } from './native/index';
import { openHandsFormat } from './openhands/index';
import { sweAgentFormat } from './sweAgent/index';
import { inspectFormat } from './inspect/index';
import { isLoadError, openReadOnly, safeClose, unreadable } from './common/openFile';
import { osReason } from './common/osError';
import type { DetectContext, FormatAdapter, LoadError, SessionSource } from './common/source';
import { IN_MEMORY_LIMIT } from './content/largeStrings';

/** Every format the loader reads. Importers (SPEC §10) join here, each from its own folder. */
export const FORMAT_ADAPTERS: readonly FormatAdapter[] = [nativeFormat, claudeCodeFormat, codexFormat, sweAgentFormat, inspectFormat, openHandsFormat];

/**
 * The source of `path` in the first format that claims it; else the error of the first adapter
 * (with one adapter, its own `unrecognized_file` reason). On error the file is closed.
 */
export function detectSource(path: string, context: DetectContext, adapters: readonly FormatAdapter[] = FORMAT_ADAPTERS): { source: SessionSource } | { error: LoadError } {
  const opened = openReadOnly(path, context.roots);
  if (isLoadError(opened)) return { error: opened };
  const file = opened;
  const forFile = context.inMemoryUpToBytes !== undefined && file.size <= context.inMemoryUpToBytes ? { ...context, largeStringBytes: IN_MEMORY_LIMIT, keptStringChars: IN_MEMORY_LIMIT } : context;
  let first: LoadError | undefined;
  try {
    for (const adapter of adapters) {
      const found = adapter.detect(file, forFile);
      if (found.ok) return { source: found.source };
      // A file of this adapter's format that cannot be opened is not another format's: its error is the answer.
      if (found.error.code !== 'unrecognized_file') {
        first = found.error;
        break;
      }
      first ??= found.error;
    }
  } catch (e) {
    first = unreadable(path, osReason(e));
  }
  safeClose(file.fd);
  if (first?.code === 'unrecognized_file' && adapters.length > 1) {
    return { error: { code: 'unrecognized_file', message: `${first.message} (the supported formats are ${adapters.map((a) => (a.reads ? `${a.name} (${a.reads})` : a.name)).join(', ')})` } };
  }
  return { error: first ?? { code: 'unrecognized_file', message: `${path}: no format reader is installed` } };
}
