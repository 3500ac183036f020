/**
 * `JSON.parse` of one record's text, capturing no stack trace when it throws
 * (docs/streaming-import.md "Lines that do not parse"). A file of garbage lines throws once a line,
 * and V8 captured each SyntaxError's stack: on 130,000 such lines, about as long as everything else
 * reading them took. The error is the one `JSON.parse` throws, its message V8's own; only its
 * `stack` is empty. Nothing else changes: a text that parses gives the same value.
 */
const errors = Error as { stackTraceLimit?: number };

export function jsonParse(text: string): unknown {
  const limit = errors.stackTraceLimit;
  errors.stackTraceLimit = 0;
  try {
    return JSON.parse(text) as unknown;
  } finally {
    errors.stackTraceLimit = limit;
  }
}
