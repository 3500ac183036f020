import { describe, expect, it } from 'vitest';
import { SESSION_FORMATS } from '../../shared/contract';
import { FORMAT_LABELS, countOf, formatBytes, loadedText, sessionLabel, sessionName, sessionNoun, sourceLabel } from './format';

describe('FORMAT_LABELS', () => {
  it('names every session format of the contract, each differently', () => {
    expect(Object.keys(FORMAT_LABELS).sort()).toEqual([...SESSION_FORMATS].sort());
    expect(new Set(Object.values(FORMAT_LABELS)).size).toBe(SESSION_FORMATS.length);
  });
});

describe('countOf', () => {
  it('words one of a thing in the singular and every other count in the plural, grouped by thousands', () => {
    expect([0, 1, 2, 1234].map((n) => countOf(n, 'reduction'))).toEqual(['0 reductions', '1 reduction', '2 reductions', '1,234 reductions']);
    expect([1, 3].map((n) => countOf(n, 'match', 'matches'))).toEqual(['1 match', '3 matches']);
    expect([formatBytes(1), formatBytes(2)]).toEqual(['1 byte', '2 bytes']);
  });
});

describe('sourceLabel', () => {
  it('says where an imported original came from in its importer`s words, and a native one`s view otherwise', () => {
    expect(sourceLabel({ source: 'minted', original_from: 'the tool-results file b1x.txt' })).toBe('Original from the tool-results file b1x.txt');
    expect(sourceLabel({ source: 'recorded' })).toBe('Source recorded');
    expect(sourceLabel(undefined)).toBe('Source unknown');
    // A name from the file is shown as visible text.
    expect(sourceLabel({ original_from: 'the tool-results file a\u202eb.txt' })).toBe('Original from the tool-results file a⟨U+202E⟩b.txt');
  });
});

describe('sessionLabel', () => {
  it('says main or the id, the title, and the message count', () => {
    expect(sessionLabel({ id: 'uuid', messages: 4 }, true)).toBe('Main session (4 messages)');
    expect(sessionLabel({ id: 'a1', title: 'Explore', messages: 1 }, false)).toBe('Session a1: Explore (1 message)');
  });

  it("names each session as its format calls it: an Inspect log's samples (the first too), Claude Code's subagents beside its main session", () => {
    expect(sessionNoun('inspect')).toBe('sample');
    expect(sessionNoun('claude-code')).toBe('subagent');
    for (const format of [...SESSION_FORMATS.filter((f) => f !== 'inspect' && f !== 'claude-code'), null, undefined]) expect(sessionNoun(format)).toBe('session');
    expect(sessionLabel({ id: '1_epoch_1', title: 'Is it?', messages: 3 }, true, 'sample')).toBe('Sample 1_epoch_1: Is it? (3 messages)');
    expect(sessionLabel({ id: '2_epoch_1', messages: 3 }, false, 'sample')).toBe('Sample 2_epoch_1 (3 messages)');
    expect(sessionLabel({ id: 'uuid', messages: 4 }, true, 'subagent')).toBe('Main session (4 messages)');
    expect(sessionLabel({ id: 'a1', title: 'Explore', messages: 1 }, false, 'subagent')).toBe('Subagent a1: Explore (1 message)');
    // An id from the file is visible text, cut at 100 code points.
    expect(sessionName(`a\u202e${'x'.repeat(200)}`, 'sample')).toBe(`Sample a⟨U+202E⟩${'x'.repeat(98)}`);
  });

  it('names what an Inspect log records of a sample: the count it records while the sample is not read yet, its scores and the limit it hit', () => {
    const recorded = { messages: 41, scores: { match: 'C', 'model graded': '0.5' }, limit: 'token' };
    expect(sessionLabel({ id: '3_epoch_1', title: 'Fix it', messages: 0, counting: 'pending', recorded }, false)).toBe('Session 3_epoch_1: Fix it (not read yet; the log records 41 messages, match C, model graded 0.5, token limit)');
    expect(sessionLabel({ id: '3_epoch_1', messages: 42, recorded }, false)).toBe('Session 3_epoch_1 (42 messages, match C, model graded 0.5, token limit)');
    expect(sessionLabel({ id: '4_epoch_1', messages: 2, recorded: { scores: { 'a\u202eb': 'I' }, error: 'boom' } }, false)).not.toMatch(/\u202e/);
  });

  it('says a session not read yet, or one that could not be counted, instead of a count of 0', () => {
    expect(sessionLabel({ id: 's1', messages: 0, counting: 'pending' }, false)).toBe('Session s1 (not read yet)');
    expect(sessionLabel({ id: 's2', title: 'Task', messages: 0, counting: 'failed' }, false)).toBe('Session s2: Task (messages not counted)');
  });

  it('shows hostile ids and titles as visible text on one line: controls, bidi overrides, newlines', () => {
    const label = sessionLabel({ id: 'a\u202eb\u001b[31m', title: 'line one\nline two\u2066x', messages: 2 }, false);
    // eslint-disable-next-line no-control-regex -- control characters are exactly what must not be there
    expect(label).not.toMatch(/[\u0000-\u001f\u202e\u2066\n]/);
    expect(label).toContain('⟨U+202E⟩');
    expect(label).toContain('line one line two');
  });

  it('cuts a long title at 80 characters, never inside a surrogate pair', () => {
    const title = `${'x'.repeat(79)}\u{1F600}${'y'.repeat(50)}`;
    const label = sessionLabel({ id: 's', title, messages: 3 }, false);
    expect(label).toContain(`${'x'.repeat(79)}\u{1F600}…`);
    expect(label).not.toContain('y');
  });
});

describe('loadedText', () => {
  it('says how far a load has read in sizes a person reads, with a whole percent that is 100 only at the end', () => {
    expect(loadedText(331_804_301, 536_901_826)).toEqual({ percent: 61, text: '316.4 MiB of 512.0 MiB (61 %)' });
    expect(loadedText(536_901_825, 536_901_826).percent).toBe(99);
    expect(loadedText(536_901_826, 536_901_826)).toEqual({ percent: 100, text: '512.0 MiB of 512.0 MiB (100 %)' });
    expect(loadedText(0, 0)).toEqual({ percent: 0, text: '0 bytes of 0 bytes (0 %)' });
  });
});
