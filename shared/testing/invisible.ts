/**
 * Characters a sentence the app shows must never hold raw: C0 and C1 controls, DEL, bidirectional
 * embeddings, overrides, isolates and marks, zero-width characters, line and paragraph separators,
 * the BOM and lone surrogates. Written out here, apart from `shared/format/visibleText.ts`, so a test of
 * a sentence does not trust the escaper it tests.
 */
// eslint-disable-next-line no-control-regex -- control characters are exactly what this looks for
export const RAW_INVISIBLE = /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028\u2029\u202a-\u202e\u2060\u2066-\u2069\ufeff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
