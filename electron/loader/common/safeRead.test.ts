/** A companion folder looked up inside the roots (docs/safe-reads.md): found, missing, or refused, whatever lies on the way. */
import { mkdirSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../../tools/testing/files';
import { folderWithin, listWithin } from './safeRead';

describe('folderWithin', () => {
  const dir = tempDir('safe-read-folder-');
  afterAll(() => dir.cleanup());
  mkdirSync(dir.path('root'));
  const root = realpathSync(dir.path('root'));
  const outside = dir.path('outside');
  mkdirSync(outside);
  mkdirSync(join(root, 'session', 'subagents'), { recursive: true });
  writeFileSync(join(root, 'session', 'subagents', 'agent-a.jsonl'), '{}\n');
  writeFileSync(join(root, 'file.jsonl'), '{}\n');
  symlinkSync(outside, join(root, 'out'));
  symlinkSync(join(root, 'session'), join(root, 'in'));

  it('finds a folder inside the roots, through a link that stays inside', () => {
    expect(folderWithin(join(root, 'session', 'subagents'), [root])).toMatchObject({ real: join(root, 'session', 'subagents') });
    expect(folderWithin(join(root, 'in', 'subagents'), [root])).toMatchObject({ real: join(root, 'session', 'subagents') });
    expect(listWithin(join(root, 'session', 'subagents'), [root])).toEqual({ names: ['agent-a.jsonl'] });
  });

  it('answers missing for no such folder, a path under a file, and a file', () => {
    expect(folderWithin(join(root, 'other', 'subagents'), [root])).toEqual({ missing: true });
    expect(folderWithin(join(root, 'file.jsonl', 'subagents'), [root])).toEqual({ missing: true });
    expect(folderWithin(join(root, 'file.jsonl'), [root])).toEqual({ missing: true });
    expect(listWithin(join(root, 'session', 'tool-results'), [root])).toEqual({ missing: true });
  });

  it('refuses a folder a link takes out of the roots, and a dangling link is missing', () => {
    expect(folderWithin(join(root, 'out'), [root])).toHaveProperty('refused');
    symlinkSync(join(root, 'gone'), join(root, 'dangling'));
    expect(folderWithin(join(root, 'dangling'), [root])).toEqual({ missing: true });
  });
});
