/**
 * Inspect logs read raw for tests (plain JSON.parse and yauzl, never the importer): every sample
 * with its session id, the log's Inspect version, and each sample's model events that are calls
 * of its history.
 */
import { readFileSync } from 'node:fs';
import yauzl from 'yauzl';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

export interface RawSample {
  /** `<id>_epoch_<n>`, the session id the loader gives it. */
  id: string;
  sample: Obj;
}

/** A `.eval` archive's entries as text, by name. */
export function zipEntries(path: string): Promise<Map<string, string>> {
  return new Promise((resolve, reject) => {
    yauzl.open(path, { lazyEntries: true }, (e, zip) => {
      if (e || !zip) return reject(e ?? new Error('no zip'));
      const out = new Map<string, string>();
      zip.on('entry', (entry: yauzl.Entry) => {
        zip.openReadStream(entry, (e2, stream) => {
          if (e2 || !stream) return reject(e2 ?? new Error('no stream'));
          const chunks: Buffer[] = [];
          stream.on('data', (c: Buffer) => chunks.push(c));
          stream.on('end', () => {
            out.set(entry.fileName, Buffer.concat(chunks).toString('utf8'));
            zip.readEntry();
          });
        });
      });
      zip.on('end', () => resolve(out));
      zip.readEntry();
    });
  });
}

const sessionId = (s: Obj): string => `${String(s.id)}_epoch_${typeof s.epoch === 'number' ? s.epoch : 1}`;

/** Every sample of a `.json` or `.eval` log. */
export async function rawInspectSamples(path: string): Promise<RawSample[]> {
  if (path.endsWith('.json')) {
    const doc = JSON.parse(readFileSync(path, 'utf8')) as { samples?: unknown[] };
    return (doc.samples ?? []).filter(isObj).map((sample) => ({ id: sessionId(sample), sample }));
  }
  const entries = await zipEntries(path);
  return [...entries]
    .filter(([name]) => /^samples\/.+_epoch_\d+\.json$/.test(name))
    .map(([, text]) => JSON.parse(text) as unknown)
    .filter(isObj)
    .map((sample) => ({ id: sessionId(sample), sample }));
}

/**
 * A sample's model events that produced a message of its history, in order: call N is the N-th
 * (a scorer's or a compaction's own call is none). An output with an id produced the history
 * message of that id; without ids, the call whose input is the history before an assistant message.
 */
export function rawInspectCalls(sample: Obj): Obj[] {
  const messages = Array.isArray(sample.messages) ? sample.messages : [];
  const ids = new Set(messages.flatMap((m) => (isObj(m) && typeof m.id === 'string' ? [m.id] : [])));
  const transcript = isObj(sample.transcript) ? sample.transcript : {};
  const events: unknown[] = Array.isArray(sample.events) && sample.events.length > 0 ? sample.events : Array.isArray(transcript.events) ? transcript.events : [];
  return events.filter((e): e is Obj => {
    if (!isObj(e) || e.event !== 'model' || !isObj(e.output)) return false;
    const choice: unknown = Array.isArray(e.output.choices) ? e.output.choices[0] : undefined;
    const id = isObj(choice) && isObj(choice.message) ? choice.message.id : undefined;
    const next: unknown = Array.isArray(e.input) ? messages[e.input.length] : undefined;
    return typeof id === 'string' ? ids.has(id) : isObj(next) && next.role === 'assistant';
  });
}

/** `v` with every `attachment://<hash>` string replaced by the sample's attachment of that hash. */
export function withAttachments(v: unknown, attachments: Obj): unknown {
  if (typeof v === 'string') {
    const got = v.startsWith('attachment://') ? attachments[v.slice('attachment://'.length)] : undefined;
    return typeof got === 'string' ? got : v;
  }
  if (Array.isArray(v)) return v.map((x) => withAttachments(x, attachments));
  if (isObj(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, withAttachments(x, attachments)]));
  return v;
}
