/**
 * A sidecar's records as plain JSON, for tests that compute what the app must show from the file
 * itself: only the fields they read, typed loosely; no validation.
 */
export interface LooseRecord {
  t: string;
  i?: number;
  to?: number | string;
  at?: number;
  from?: string;
  reasoning_artifacts_filtered?: number;
  msg?: { role: string; content: string };
  r?: { id: string; minted_at: number; ptr: { index: number; bytes: number }; kept_bytes?: number };
}

/** Each non-empty line of `text` parsed, with its 1-based line number. */
export function looseRecords(text: string): { line: number; rec: LooseRecord }[] {
  return text
    .split('\n')
    .map((l, k) => ({ l, line: k + 1 }))
    .filter(({ l }) => l !== '')
    .map(({ l, line }) => ({ line, rec: JSON.parse(l) as LooseRecord }));
}
