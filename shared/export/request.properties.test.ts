/**
 * SPEC §16 provider requests on synthetic inputs (fast-check): whatever the order of messages,
 * orphan results, unanswered calls, system messages in the middle, empty messages and images,
 * every body pairs each tool call with exactly one result of its id, Anthropic's turns alternate
 * with results at the head of the next user turn, and the body gives every message's text in
 * order (docs/export.md, "Provider requests").
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { requestFor } from './callRequest';
import { PROVIDERS, textOf } from './request';
import { bodyAtoms, mergeTexts, paired, pairingViolations, viewAtoms } from '../testing/providerBodies';
import { exportInputs as inputs } from '../testing/exportInputs';

describe('provider requests on synthetic inputs', () => {
  for (const provider of PROVIDERS) {
    it(`${provider}: every tool call is answered by one result of its id, and every result answers a call before it`, () => {
      fc.assert(
        fc.property(inputs, (input) => {
          expect(pairingViolations(provider, requestFor(input, provider).request)).toEqual([]);
        }),
        { numRuns: 300 },
      );
    });

    it(`${provider}: the body gives every message's text and every call in order, orphans as user text, placeholders for the unanswered`, () => {
      fc.assert(
        fc.property(inputs, (input) => {
          const out = requestFor(input, provider);
          const view = input.messages.map((m) => ({ index: m.index, role: m.role, content: textOf(m.pieces), ...(m.tool_call_id ? { tool_call_id: m.tool_call_id } : {}), ...(m.tool_calls ? { tool_calls: m.tool_calls } : {}) }));
          expect(mergeTexts(bodyAtoms(provider, out.request))).toEqual(mergeTexts(paired(viewAtoms(view, provider))));
          // Each change is named.
          const placeholders = bodyAtoms(provider, out.request).filter((a) => a.kind === 'result' && a.text === '(no result recorded)').length;
          expect((out.adjusted ?? []).filter((s) => s.includes('has no recorded result')).length).toBe(placeholders);
        }),
        { numRuns: 300 },
      );
    });
  }

  it("anthropic: only user and assistant turns, alternating, none empty; leading system text in `system`", () => {
    fc.assert(
      fc.property(inputs, (input) => {
        const body = requestFor(input, 'anthropic').request;
        const messages = body.messages as { role: string; content: unknown }[];
        messages.forEach((m, i) => {
          expect(['user', 'assistant']).toContain(m.role);
          if (i > 0) expect(m.role).not.toBe(messages[i - 1]?.role);
        });
        const lead: string[] = [];
        for (const m of input.messages) {
          if (m.role !== 'system') break;
          lead.push(textOf(m.pieces));
        }
        const system = lead.filter((s) => s !== '').join('\n\n');
        expect(body.system).toEqual(system === '' ? undefined : system);
      }),
      { numRuns: 300 },
    );
  });

  it("every image of a user's message reaches the body", () => {
    fc.assert(
      fc.property(inputs, (input) => {
        const images = input.messages.reduce((n, m) => n + m.pieces.filter((p) => 'image' in p).length, 0);
        for (const provider of PROVIDERS) {
          const json = JSON.stringify(requestFor(input, provider).request);
          const found = (json.match(/iVBORw0KGgo=|https:\/\/example\.com\/a\.png/g) ?? []).length;
          expect(found, provider).toBe(images);
        }
      }),
      { numRuns: 200 },
    );
  });
});
