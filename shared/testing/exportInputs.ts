/**
 * Synthetic call inputs for the provider request tests (shared/export/): any order of system,
 * user, assistant, tool and range messages; unique call ids; results that answer an issued id, a
 * later one or one never issued; arguments that are or are not JSON objects; images in users' messages.
 */
import fc from 'fast-check';
import type { ExportInput, InputMessage, Piece } from '../export/request';
import type { Role } from '../format/types';

const text = fc.constantFrom('ok', 'line one\nline two', 'ünïcödé ✓', '{"a":1}');
const image: fc.Arbitrary<Piece> = fc.constantFrom<Piece>({ image: { media_type: 'image/png', data: 'iVBORw0KGgo=' } }, { image: { url: 'https://example.com/a.png' } });
const pieces: fc.Arbitrary<Piece[]> = fc.array(fc.oneof({ weight: 4, arbitrary: text.map((t): Piece => ({ text: t })) }, { weight: 1, arbitrary: image }), { maxLength: 3 });

/** A message: role, pieces, and for an assistant how many calls it makes; a tool result names an id by number. */
const draft = fc.record({
  role: fc.constantFrom<Role | null>('system', 'user', 'assistant', 'assistant', 'tool', 'tool', 'tool', null),
  pieces,
  calls: fc.integer({ min: 0, max: 3 }),
  answers: fc.integer({ min: 0, max: 12 }),
  args: fc.constantFrom('{"cmd":"ls"}', '{}', 'not json', '[1,2]'),
});

/** Inputs whose call ids are unique; a result answers one of the ids issued so far, or one never issued. */
export const exportInputs: fc.Arbitrary<ExportInput> = fc.array(draft, { maxLength: 25 }).map((drafts) => {
  let issued = 0;
  const messages: InputMessage[] = drafts.map((d, index) => {
    // Only a user's message carries images here (an assistant's or a tool's are left out by some APIs, and named).
    const only = d.role === 'user' || d.role === null ? d.pieces : d.pieces.filter((p) => 'text' in p);
    const m: InputMessage = { index, role: d.role, pieces: only };
    if (d.role === 'assistant' && d.calls > 0) m.tool_calls = Array.from({ length: d.calls }, () => ({ id: `call_${issued++}`, name: 'shell', arguments: d.args }));
    if (d.role === 'tool') m.tool_call_id = `call_${d.answers}`;
    return m;
  });
  return { format: 'supercode', call: 1, calls: 1, model: 'm', expanded: false, messages, instructions: [], left_out: [] };
});
