/**
 * The `N more reductions` lists a user opened are kept by the store, not by the row: a row mounted
 * again (scrolled away and back, its rows fetched again) shows its list as the user left it.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createAppStore } from './store';
import { fakeHost } from './testing/fakeHost';

describe('open reduction lists', () => {
  it('each toggle flips only its own list; a list is open exactly when it was toggled an odd number of times', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom('Message 2 tool|r10', 'Message 7 tool|r3', 'Range 4|r900'), { maxLength: 30 }), (toggles) => {
        const store = createAppStore(fakeHost().api);
        for (const key of toggles) store.getState().toggleReductionList(key);
        for (const key of ['Message 2 tool|r10', 'Message 7 tool|r3', 'Range 4|r900']) {
          const odd = toggles.filter((k) => k === key).length % 2 === 1;
          expect(store.getState().openReductionLists.has(key)).toBe(odd);
        }
      }),
    );
  });
});
