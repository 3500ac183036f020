/**
 * Tests: an Inspect `.eval`'s samples read independently of the importer (the zip's central
 * directory walked by hand, each entry inflated with node:zlib), and what each should count.
 */
import { readFileSync } from 'node:fs';
import { inflateRawSync } from 'node:zlib';

type Obj = Record<string, unknown>;

/** Every `samples/<id>_epoch_<n>.json` of a zip by session id, parsed: the central directory walked by hand, each entry inflated with node:zlib. */
export function rawSamples(path: string): Map<string, Obj> {
  const out = new Map<string, Obj>();
  for (const [name, value] of rawEntries(path, (n) => n.startsWith('samples/'))) {
    const m = /^samples\/(.+)_epoch_(\d+)\.json$/.exec(name);
    if (m) out.set(`${m[1]}_epoch_${m[2]}`, value as Obj);
  }
  return out;
}

/** Every JSON entry of a zip by name (or those `only` names), parsed: the central directory walked by hand, each entry inflated with node:zlib. */
export function rawEntries(path: string, only?: (name: string) => boolean): Map<string, unknown> {
  const zip = readFileSync(path);
  const end = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  const count = zip.readUInt16LE(end + 10);
  let at = zip.readUInt32LE(end + 16);
  const out = new Map<string, unknown>();
  for (let k = 0; k < count; k++) {
    if (zip.readUInt32LE(at) !== 0x02014b50) throw new Error(`${path}: no central directory record at byte ${at}`);
    const method = zip.readUInt16LE(at + 10);
    const compressed = zip.readUInt32LE(at + 20);
    const nameLength = zip.readUInt16LE(at + 28);
    const name = zip.toString('utf8', at + 46, at + 46 + nameLength);
    const local = zip.readUInt32LE(at + 42);
    at += 46 + nameLength + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32);
    if (!name.endsWith('.json') || (only && !only(name))) continue;
    const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    const data = zip.subarray(start, start + compressed);
    if (method !== 0 && method !== 8) throw new Error(`${name}: method ${method} is neither stored nor deflate`);
    out.set(name, JSON.parse((method === 8 ? inflateRawSync(data) : data).toString('utf8')));
  }
  return out;
}

/**
 * What a sample shows when opened, by hand from its record: its `messages`, and one more when its
 * last `model` event's output message is not among them (the sample ended on that call: FORMATS.md
 * "Inspect AI", the output ends the view).
 */
export function expectedCount(sample: Obj): number {
  const messages = sample.messages as unknown[];
  const ids = new Set(messages.map((m) => (typeof m === 'object' && m !== null ? (m as Obj).id : undefined)));
  const models = (sample.events as Obj[]).filter((e) => e.event === 'model');
  const last = models.at(-1);
  const output = last ? (((last.output as Obj).choices as Obj[])[0]?.message as Obj) : undefined;
  return messages.length + (output && !ids.has(output.id) ? 1 : 0);
}

export const expectedCounts = (path: string): Map<string, number> => new Map([...rawSamples(path)].map(([id, s]) => [id, expectedCount(s)]));
