/**
 * How deep a parsed JSON value nests, measured and capped without recursion.
 *
 * V8's JSON.parse is iterative and reads any depth, but nearly everything after it recurses once per
 * level: JSON.stringify (a RangeError near 4,000 levels from an empty stack), structured clone and
 * postMessage (near 2,000 levels of objects), zod, canonicalising walks and React. A session file is
 * untrusted, so every value read from one is held to MAX_JSON_DEPTH levels right after it is parsed:
 * a native record deeper than that is refused (a finding, its index a hole), an imported record keeps
 * its shape and has its too-deep parts replaced by DEEP_MARKER (a finding naming the line or path).
 * See docs/deep-json.md.
 */

/**
 * The deepest nesting a value read from a session file may have. Real records nest a few tens of
 * levels (serde_json's default limit is 128); 1,000 leaves every recursive consumer above at least
 * half its stack even when it is itself called from deep inside the worker or the renderer.
 */
export const MAX_JSON_DEPTH = 1000;

/** What stands in place of an array or object nested deeper than MAX_JSON_DEPTH. */
export const DEEP_MARKER = `[nested deeper than ${MAX_JSON_DEPTH} levels; not shown]`;

/** How many cut places `capDepth` names (it counts them all). */
const NAMED_CUTS = 20;
/** How many leading steps of a path are named. */
const NAMED_STEPS = 6;

type Container = Record<string, unknown> | unknown[];

const isContainer = (v: unknown): v is Container => typeof v === 'object' && v !== null;

/**
 * True when `value` holds an array or object at a depth greater than `limit` (a scalar is depth 0,
 * `[]` depth 1). Iterative; stops at the first one found.
 */
export function deeperThan(value: unknown, limit: number = MAX_JSON_DEPTH): boolean {
  if (!isContainer(value)) return false;
  const stack: { v: Container; depth: number }[] = [{ v: value, depth: 1 }];
  for (let top = stack.pop(); top; top = stack.pop()) {
    if (top.depth > limit) return true;
    for (const child of Array.isArray(top.v) ? top.v : Object.values(top.v)) {
      if (isContainer(child)) stack.push({ v: child, depth: top.depth + 1 });
    }
  }
  return false;
}

/** Where `capDepth` cut: how many places, and the paths of the first few (`messages[2].input.a…`). */
export interface DepthCut {
  count: number;
  paths: string[];
}

interface Frame {
  v: Container;
  depth: number;
  parent: Frame | undefined;
  key: string | number;
}

function step(key: string | number): string {
  if (typeof key === 'number') return `[${key}]`;
  return /^[A-Za-z_$][\w$]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key.slice(0, 40))}]`;
}

/** The path of a frame from the root, its first NAMED_STEPS steps (then `…`). */
function pathOf(frame: Frame): string {
  const keys: (string | number)[] = [];
  for (let f: Frame | undefined = frame; f?.parent; f = f.parent) keys.push(f.key);
  keys.reverse();
  const named = keys.slice(0, NAMED_STEPS).map(step).join('');
  const path = named.startsWith('.') ? named.slice(1) : named;
  return keys.length > NAMED_STEPS ? `${path}…` : path || '(the whole value)';
}

/**
 * Replaces, in place, every array or object of `value` at a depth greater than `limit` by
 * DEEP_MARKER; answers where it cut, or undefined when nothing was that deep. `value` must be a
 * fresh JSON.parse result (its `__proto__` keys are own data properties and stay so). Iterative.
 */
export function capDepth(value: unknown, limit: number = MAX_JSON_DEPTH): DepthCut | undefined {
  if (!isContainer(value)) return undefined;
  let cut: DepthCut | undefined;
  const stack: Frame[] = [{ v: value, depth: 1, parent: undefined, key: '' }];
  for (let top = stack.pop(); top; top = stack.pop()) {
    const { v, depth } = top;
    const keys: (string | number)[] = Array.isArray(v) ? v.map((_, i) => i) : Object.keys(v);
    for (const key of keys) {
      const child = (v as Record<string | number, unknown>)[key];
      if (!isContainer(child)) continue;
      const frame: Frame = { v: child, depth: depth + 1, parent: top, key };
      if (frame.depth <= limit) {
        stack.push(frame);
        continue;
      }
      cut ??= { count: 0, paths: [] };
      if (cut.paths.length < NAMED_CUTS) cut.paths.push(pathOf(frame));
      cut.count++;
      Object.defineProperty(v, key, { value: DEEP_MARKER, writable: true, enumerable: true, configurable: true });
    }
  }
  return cut;
}

/**
 * `capDepth` of a value `JSON.parse` read from `text`. A text that cannot nest deeper than `limit`
 * is not walked: one shorter than 2 × (limit + 1) UTF-16 units (each level opens and closes in it),
 * or one holding no more than `limit` of `{` and `[` (each level opens with one; those inside
 * strings only add to the count). The walk of every record of a long session was some 2% of
 * `check`'s time, and of every file 3–4 % of indexing a library of small sessions
 * (docs/deep-json.md).
 */
export function capParsedDepth(value: unknown, text: string, limit: number = MAX_JSON_DEPTH): DepthCut | undefined {
  if (text.length < 2 * (limit + 1)) return undefined;
  return text.length <= COUNTED_MAX_CHARS && !opensMoreThan(text, limit) ? undefined : capDepth(value, limit);
}

/**
 * The longest text whose brackets are counted before its value is walked. Counting stops early in a
 * text dense with them, but reads all of one with few, whose value's walk is short (at most `limit`
 * containers, some 0.2 µs each): a text of 64 MB holding one string took 13 ms to count
 * (docs/deep-json.md).
 */
const COUNTED_MAX_CHARS = 256 * 1024;

/** Whether `text` holds more than `n` of `{` and `[` together (counted only until it does). */
function opensMoreThan(text: string, n: number): boolean {
  let count = 0;
  for (let at = text.indexOf('{'); at !== -1; at = text.indexOf('{', at + 1)) if (++count > n) return true;
  for (let at = text.indexOf('['); at !== -1; at = text.indexOf('[', at + 1)) if (++count > n) return true;
  return false;
}

/** The words of a finding for a value `capDepth` cut: `${where} is nested deeper than N levels …`. */
export function depthCutMessage(where: string, cut: DepthCut): string {
  const at = cut.paths.length > 0 ? ` (at ${cut.paths.slice(0, 3).join(', ')}${cut.count > 3 ? ` and ${cut.count - 3} more` : ''})` : '';
  return `${where} is nested deeper than ${MAX_JSON_DEPTH} levels${at}; what lies deeper is shown as "${DEEP_MARKER}"`;
}
