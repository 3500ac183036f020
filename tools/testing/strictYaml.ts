/**
 * A strict reader for the small part of YAML that `electron-builder.yml` uses, so a test can read
 * the real packaging config (no YAML library is a dependency of this project).
 *
 * What it reads: block mappings (`key: value`, `key:` + an indented block), block sequences
 * (`- scalar`, `- key: value` + more keys of that item), full-line comments, and scalars that
 * every YAML reader takes the same way: `true`, `false`, decimal integers, plain strings, and
 * quoted strings without escapes.
 *
 * What it refuses, with the line number, rather than guess: tabs, flow collections (`[`, `{`),
 * anchors, aliases, tags, block scalars (`|`, `>`), documents markers, trailing comments,
 * duplicate keys, indentation that is neither a child nor a sibling, and plain scalars whose
 * meaning differs between YAML versions or readers (`yes`, `no`, `on`, `off`, `null`, `~`,
 * `True`, floats, octal, …). Invariant: whatever it returns is what a YAML 1.1 or 1.2 reader
 * would return for the same text; anything else throws.
 */

export type YamlValue = string | number | boolean | YamlValue[] | { [key: string]: YamlValue };

interface Line {
  /** 1-based, for messages. */
  number: number;
  indent: number;
  text: string;
}

const KEY = /^[A-Za-z_][A-Za-z0-9_.-]*$/;
/** Plain scalars some YAML reader takes as something other than a string. */
const AMBIGUOUS = /^(?:y|Y|yes|Yes|YES|n|N|no|No|NO|on|On|ON|off|Off|OFF|true|True|TRUE|false|False|FALSE|null|Null|NULL|~|[-+]?\.?[0-9][0-9_.:eExXoObB+-]*|[-+]?\.(?:inf|Inf|INF|nan|NaN|NAN))$/;

function fail(line: Line | undefined, why: string): never {
  throw new Error(line ? `strict YAML, line ${line.number}: ${why}: ${JSON.stringify(line.text)}` : `strict YAML: ${why}`);
}

function scalar(raw: string, line: Line): string | number | boolean {
  if (raw === 'true') return true;
  if (raw === 'false') return false;
  if (/^(?:0|-?[1-9][0-9]*)$/.test(raw)) return Number(raw);
  const quote = raw[0];
  if (quote === '"' || quote === "'") {
    if (raw.length < 2 || raw.at(-1) !== quote) fail(line, 'an unterminated or trailing-text quoted string');
    const inner = raw.slice(1, -1);
    if (inner.includes(quote) || inner.includes('\\')) fail(line, 'a quoted string with quotes or escapes inside');
    return inner;
  }
  if (AMBIGUOUS.test(raw)) fail(line, 'a plain scalar whose type differs between YAML readers (quote it, or write true/false/an integer)');
  if (/^[-?:,[\]{}#&*!|>%@`]/.test(raw)) fail(line, 'a plain scalar starting with a YAML indicator');
  if (raw.includes(': ') || raw.endsWith(':') || raw.includes(' #')) fail(line, 'a plain scalar holding ": " or " #" (a nested mapping or a trailing comment)');
  return raw;
}

/** Splits `key: rest` (rest may be empty); throws on anything that is not a plain key. */
function keyValue(text: string, line: Line): [string, string] {
  const colon = text.indexOf(':');
  if (colon === -1) fail(line, 'expected "key: value"');
  const key = text.slice(0, colon);
  if (!KEY.test(key)) fail(line, 'a key that is not a plain name');
  // YAML 1.1 reads the key `on` (or `yes`, `n`…) as a boolean.
  if (AMBIGUOUS.test(key)) fail(line, 'a key whose type differs between YAML readers');
  const rest = text.slice(colon + 1);
  if (rest !== '' && !rest.startsWith(' ')) fail(line, 'expected a space after the colon');
  return [key, rest.trim()];
}

/** Parses `text`; throws an Error naming the line for anything outside the subset. */
export function parseStrictYaml(text: string): YamlValue {
  const lines: Line[] = [];
  text.split('\n').forEach((raw, i) => {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    const number = i + 1;
    if (line.includes('\t')) fail({ number, indent: 0, text: line }, 'a tab');
    const trimmed = line.trim();
    if (trimmed === '' || trimmed.startsWith('#')) return;
    const indent = line.length - line.trimStart().length;
    if (indent === 0 && (trimmed === '---' || trimmed === '...' || trimmed.startsWith('%'))) fail({ number, indent, text: line }, 'a document marker or directive');
    lines.push({ number, indent, text: trimmed });
  });
  let at = 0;

  /** A block (mapping or sequence) whose lines are indented exactly `indent`. */
  function block(indent: number): YamlValue {
    const first = lines[at];
    if (!first || first.indent !== indent) fail(first, 'unexpected indentation');
    return first.text === '-' || first.text.startsWith('- ') ? sequence(indent) : mapping(indent, {});
  }

  /** The value after `key:` (or `- `): an inline scalar, or the indented block that follows. */
  function valueAfter(rest: string, parentIndent: number, line: Line): YamlValue {
    if (rest !== '') return scalar(rest, line);
    const next = lines[at];
    if (!next || next.indent <= parentIndent) fail(line, 'a key with no value (null is not accepted)');
    return block(next.indent);
  }

  function mapping(indent: number, into: { [key: string]: YamlValue }): { [key: string]: YamlValue } {
    while (at < lines.length) {
      const line = lines[at] as Line;
      if (line.indent < indent) break;
      if (line.indent > indent) fail(line, 'unexpected indentation');
      if (line.text.startsWith('- ') || line.text === '-') fail(line, 'a sequence item among mapping keys');
      const [key, rest] = keyValue(line.text, line);
      if (Object.hasOwn(into, key)) fail(line, `the key ${key} twice`);
      at++;
      into[key] = valueAfter(rest, indent, line);
    }
    return into;
  }

  function sequence(indent: number): YamlValue[] {
    const items: YamlValue[] = [];
    while (at < lines.length) {
      const line = lines[at] as Line;
      if (line.indent < indent) break;
      if (line.indent > indent || !(line.text.startsWith('- ') || line.text === '-')) fail(line, 'expected a sequence item');
      const item = line.text.slice(1).trim();
      at++;
      if (item === '') {
        items.push(valueAfter('', indent, line));
      } else if (/^[A-Za-z_][A-Za-z0-9_.-]*:(?: |$)/.test(item)) {
        // `- key: value`: a mapping whose further keys sit under the key's column.
        const column = indent + (line.text.length - item.length);
        const [key, rest] = keyValue(item, line);
        const map: { [key: string]: YamlValue } = {};
        map[key] = valueAfter(rest, column, line);
        items.push(mapping(column, map));
      } else {
        items.push(scalar(item, line));
      }
    }
    return items;
  }

  if (lines.length === 0) fail(undefined, 'an empty document');
  const root = block(0);
  if (at < lines.length) fail(lines[at], 'unexpected indentation');
  return root;
}
