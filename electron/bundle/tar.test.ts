/** shared/links/tar.ts against the system's `tar`: what it extracts is exactly what was written. */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { ustar } from '../../shared/links/tar';
import { tempDir } from '../../tools/testing/files';

const tmp = tempDir('session-inspector-tar-test-');
afterAll(() => tmp.cleanup());
let serial = 0;

/** Extracts `archive` with `tar -xf` into a new folder; returns it. */
function extract(archive: Uint8Array): string {
  const dir = tmp.path(`x-${serial++}`);
  execFileSync('mkdir', [dir]);
  const file = `${dir}.tar`;
  writeFileSync(file, archive);
  execFileSync('tar', ['-xf', file, '-C', dir]);
  return dir;
}

const nameArb = fc.stringMatching(/^[a-z0-9._-]{1,40}$/).filter((n) => n !== '.' && n !== '..');

describe('ustar', () => {
  it('tar -xf extracts every file byte for byte, and nothing else', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.record({ name: nameArb, bytes: fc.uint8Array({ maxLength: 2000 }) }), { selector: (f) => f.name, minLength: 1, maxLength: 6 }), (files) => {
        const dir = extract(ustar([{ name: 'repro/' }, ...files.map((f) => ({ name: `repro/${f.name}`, bytes: f.bytes }))]));
        expect(readdirSync(dir)).toEqual(['repro']);
        expect(readdirSync(join(dir, 'repro')).sort()).toEqual(files.map((f) => f.name).sort());
        for (const f of files) expect(new Uint8Array(readFileSync(join(dir, 'repro', f.name)))).toEqual(f.bytes);
      }),
      { numRuns: 25 },
    );
  });

  it('sizes on a block boundary, empty files, a UTF-8 name and a long path split into prefix and name', () => {
    const long = `${'d'.repeat(120)}/${'n'.repeat(90)}.json`;
    const files = [
      { name: 'exact.bin', bytes: new Uint8Array(1024).fill(7) },
      { name: 'empty', bytes: new Uint8Array(0) },
      { name: 'fïlé.txt', bytes: new TextEncoder().encode('ünïcode\n') },
      { name: long, bytes: new TextEncoder().encode('{}\n') },
    ];
    const archive = ustar(files);
    expect(archive.length % 512).toBe(0);
    const dir = extract(archive);
    for (const f of files) {
      expect(statSync(join(dir, f.name)).isFile()).toBe(true);
      expect(new Uint8Array(readFileSync(join(dir, f.name)))).toEqual(f.bytes);
    }
  });

  it('the same entries give the same bytes; a name ustar cannot hold is refused', () => {
    const entries = [{ name: 'a', bytes: new Uint8Array([1, 2, 3]) }];
    expect(ustar(entries)).toEqual(ustar(entries));
    expect(() => ustar([{ name: 'x'.repeat(101), bytes: new Uint8Array(0) }])).toThrow(/longer than ustar holds/);
  });
});
