/** Tool-call arguments as the row shows them: indented JSON, or the text as written (docs/deep-json.md). */
import { describe, expect, it } from 'vitest';
import { prettyArguments } from './toolCalls';

const nested = (depth: number): string => `{"cmd":${'['.repeat(depth)}"make"${']'.repeat(depth)}}`;

describe('prettyArguments', () => {
  it('indents arguments that are JSON, and keeps the rest as written', () => {
    expect(prettyArguments('{"cmd":"make","args":[1]}')).toBe('{\n  "cmd": "make",\n  "args": [\n    1\n  ]\n}');
    expect(prettyArguments('{"cmd": cut off')).toBe('{"cmd": cut off');
  });

  it('shows deeply nested arguments as written: no line per level, no stack overflow', () => {
    // 2,000 levels stringify without overflowing, but indented they would be 2,000 lines of up to 4,000 spaces.
    for (const depth of [100, 2_000, 6_000, 100_000]) expect(prettyArguments(nested(depth))).toBe(nested(depth));
    expect(prettyArguments(nested(60))).toContain('\n');
  });
});
