/**
 * The packaging config as electron-builder will read it: `electron-builder.yml` at the repository
 * root, parsed by a strict reader that refuses any YAML it cannot read unambiguously (so a value
 * this test sees is the value electron-builder sees).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROTOCOL_SCHEME } from '../../shared/links/protocolLink';
import { parseStrictYaml } from '../../tools/testing/strictYaml';
import type { YamlValue } from '../../tools/testing/strictYaml';

const ROOT = join(import.meta.dirname, '../..');

function builderConfig(): { [key: string]: YamlValue } {
  const config = parseStrictYaml(readFileSync(join(ROOT, 'electron-builder.yml'), 'utf8'));
  if (typeof config !== 'object' || Array.isArray(config)) throw new Error('electron-builder.yml is not a mapping');
  return config;
}

/**
 * The fuses (electron-builder's `electronFuses`, @electron/fuses' FuseV1Options), spelled out here
 * on purpose: loosening one in electron-builder.yml fails this file.
 */
const FUSES = {
  runAsNode: false,
  enableNodeOptionsEnvironmentVariable: false,
  enableNodeCliInspectArguments: false,
  enableCookieEncryption: true,
  enableEmbeddedAsarIntegrityValidation: true,
  onlyLoadAppFromAsar: true,
  grantFileProtocolExtraPrivileges: false,
} as const;

describe('electron-builder.yml', () => {
  it('sets every Electron fuse: RunAsNode, NODE_OPTIONS and --inspect off; cookie encryption, ASAR integrity and ASAR-only loading on', () => {
    const fuses = builderConfig().electronFuses;
    expect(fuses, 'electronFuses').toBeTypeOf('object');
    for (const [name, value] of Object.entries(FUSES)) {
      expect(Object.hasOwn(fuses as object, name), `${name} is set explicitly`).toBe(true);
      expect((fuses as Record<string, YamlValue>)[name], name).toBe(value);
    }
    // A fuse added later (or a misspelt one, which electron-builder would ignore) must be reviewed here.
    expect(Object.keys(fuses as object).sort()).toEqual(Object.keys(FUSES).sort());
  });

  it('packs the app into one asar archive, which the ASAR fuses then protect', () => {
    const config = builderConfig();
    expect(config.asar).toBe(true);
    expect(config).not.toHaveProperty('asarUnpack');
    expect(config.files).toEqual(['dist/**', 'package.json']);
  });
});

describe('electron-builder.yml protocols (SPEC §12)', () => {
  it('registers exactly the session-inspector scheme, the one the app parses', () => {
    expect(builderConfig().protocols).toEqual([{ name: 'Session Inspector link', schemes: [PROTOCOL_SCHEME] }]);
  });
});

describe('the strict YAML reader', () => {
  it('reads mappings, sequences of scalars and of mappings, booleans, integers and strings', () => {
    const text = [
      '# a comment',
      'name: Session Inspector',
      'quoted: "yes"',
      'count: 12',
      'on_off:',
      '  first: true',
      '  second: false',
      'list:',
      '  - dist/**',
      "  - 'a: b'",
      'maps:',
      '  - from: samples',
      '    to: samples',
      '  - nested:',
      '      deep: x',
      '',
    ].join('\n');
    expect(parseStrictYaml(text)).toEqual({
      name: 'Session Inspector',
      quoted: 'yes',
      count: 12,
      on_off: { first: true, second: false },
      list: ['dist/**', 'a: b'],
      maps: [{ from: 'samples', to: 'samples' }, { nested: { deep: 'x' } }],
    });
  });

  it.each([
    ['a tab', 'a:\n\tb: true'],
    ['a flow collection', 'a: [1, 2]'],
    ['a flow mapping', 'a: {b: 1}'],
    ['an anchor', 'a: &x 1'],
    ['an alias', 'a: *x'],
    ['a tag', 'a: !!str 1'],
    ['a block scalar', 'a: |\n  text'],
    ['a trailing comment', 'a: b # c'],
    ['a duplicate key', 'a: 1\na: 2'],
    ['a key with no value', 'a:\nb: 1'],
    ['a YAML 1.1 boolean', 'runAsNode: no'],
    ['another YAML 1.1 boolean', 'runAsNode: off'],
    ['a capitalised boolean', 'runAsNode: False'],
    ['a key YAML 1.1 reads as a boolean', 'on: 1'],
    ['null', 'a: null'],
    ['a tilde', 'a: ~'],
    ['a float', 'a: 1.5'],
    ['an octal-looking number', 'a: 0755'],
    ['a document marker', '---\na: 1'],
    ['misaligned keys', 'a:\n  b: 1\n c: 2'],
    ['a sequence item among keys', 'a: 1\n- b'],
    ['an escape in a quoted string', 'a: "x\\ny"'],
    ['an empty document', '# nothing\n'],
  ])('refuses %s rather than guess', (_what, text) => {
    expect(() => parseStrictYaml(text)).toThrow(/strict YAML/);
  });
});
