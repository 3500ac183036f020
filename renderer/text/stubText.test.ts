import { describe, expect, it } from 'vitest';
import { stubText } from '../../shared/constants';
import { splitAtStub, stubHiddenBytes } from './stubText';

describe('splitAtStub', () => {
  const stub = stubText('r1', 'tool_output_truncated', 52);

  it('splits a truncated row into its visible prefix and the stub', () => {
    expect(splitAtStub(`PASS a.test.ts\n${stub}`, 'r1')).toEqual({ before: 'PASS a.test.ts\n', stub });
  });

  it('finds the stub of the right id, the last one when the prefix quotes another', () => {
    const quoted = stubText('r1', 'tool_output_elided', 9);
    expect(splitAtStub(`see ${quoted}\n${stub}`, 'r1')?.before).toBe(`see ${quoted}\n`);
    expect(splitAtStub(stub, 'r10')).toBeNull();
    expect(splitAtStub(stubText('r10', 'tool_output_elided', 3), 'r1')).toBeNull();
  });

  it('reads the hidden size a stub states', () => {
    expect(stubHiddenBytes(stub)).toBe(52);
    expect(stubHiddenBytes('no size here')).toBeUndefined();
  });
});
