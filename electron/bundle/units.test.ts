/** The minimizer's units of each file format (electron/bundle/units.ts): what may be removed, and the file a kept set makes. */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SessionFileFormat } from '../../shared/index';
import { fileUnits, jointUnits, sidecarShape, splitLines } from './units';

const ROOT = join(import.meta.dirname, '../..');

const enc = (s: string) => new TextEncoder().encode(s);
const dec = (b: Uint8Array) => new TextDecoder().decode(b);

describe('bundle units', () => {
  it('lines keep their newlines; a torn last line is its own unit and stays last and torn', () => {
    expect(splitLines(enc('a\nb\nc')).map(dec)).toEqual(['a\n', 'b\n', 'c']);
    const u = fileUnits('s.sidecar.jsonl', 'supercode-sidecar', enc('{"t":"header"}\nx\ny\ntorn'));
    // The header is never a unit: every kept set renders it first.
    expect(u.count).toBe(3);
    expect(dec(u.render([]))).toBe('{"t":"header"}\n');
    expect(dec(u.render([0, 2]))).toBe('{"t":"header"}\nx\ntorn');
    expect(dec(u.render([0, 1, 2]))).toBe('{"t":"header"}\nx\ny\ntorn');
  });

  it('a file of a line format with every unit kept is its own bytes, as the app counts on to refuse a bundle too large before making it', () => {
    const real = (dir: string) => readdirSync(join(ROOT, 'e2e/fixtures/real', dir)).filter((n) => n.endsWith('.jsonl')).map((n) => join(ROOT, 'e2e/fixtures/real', dir, n));
    const files: [string, SessionFileFormat][] = [
      ...real('claude-code').map((p): [string, SessionFileFormat] => [p, 'claude-code']),
      ...real('codex').map((p): [string, SessionFileFormat] => [p, 'codex-rollout']),
      [join(ROOT, 'samples/demo.sidecar.jsonl'), 'supercode-sidecar'],
      [join(ROOT, 'samples/session.sidecar.jsonl'), 'supercode-sidecar'],
    ];
    expect(files.length).toBeGreaterThan(10);
    for (const [path, format] of files) {
      const bytes = new Uint8Array(readFileSync(path));
      for (const cut of [bytes, bytes.subarray(0, Math.floor(bytes.length / 2))]) {
        const u = fileUnits('f', format, cut);
        expect(u.count, path).toBeGreaterThan(0);
        expect(Buffer.from(u.render(Array.from({ length: u.count }, (_, k) => k))).equals(cut), path).toBe(true);
      }
    }
  });

  it('a JSONL import has no fixed line and no shapes beyond unknown', () => {
    const u = fileUnits('t.jsonl', 'claude-code', enc('{"a":1}\n{"b":2}\n'));
    expect(u.count).toBe(2);
    expect(u.shapes).toEqual([{}, {}]);
    expect(dec(u.render([1]))).toBe('{"b":2}\n');
  });

  it('a snapshot is its messages and reductions; other fields stay; a snapshot that is not an object is whole', () => {
    const snapshot = { format: 'supercode-session', version: 1, session_id: 's', messages: [{ role: 'user', content: 'a' }, { role: 'tool', content: 'b' }], reductions: [{ id: 'r1', ptr: { index: 1 } }] };
    const u = fileUnits('s.session.json', 'supercode-snapshot', enc(JSON.stringify(snapshot)));
    expect(u.count).toBe(3);
    expect(u.shapes).toEqual([{ message: 0 }, { message: 1 }, { needs: 1 }]);
    expect(JSON.parse(dec(u.render([0, 2])))).toEqual({ ...snapshot, messages: [snapshot.messages[0]], reductions: snapshot.reductions });
    const whole = fileUnits('bad.session.json', 'supercode-snapshot', enc('[1,2'));
    expect(whole.kind).toBe('whole');
    expect(dec(whole.render([]))).toBe('[1,2');
  });

  it('a sidecar record addresses what SPEC §3.1 says it does', () => {
    expect(sidecarShape(enc('{"t":"message","i":4,"msg":{}}\n'))).toEqual({ message: 4 });
    expect(sidecarShape(enc('{"t":"reduction","r":{"ptr":{"index":3},"end":9}}\n'))).toEqual({ needs: 8 });
    expect(sidecarShape(enc('{"t":"reduction","r":{"ptr":{"index":7},"canonical":{"index":2}}}\n'))).toEqual({ needs: 7 });
    expect(sidecarShape(enc('{"t":"model_change","at":5}\n'))).toEqual({ needs: 4 });
    expect(sidecarShape(enc('{"t":"rewind","to":3}\n'))).toEqual({ needs: 2 });
    expect(sidecarShape(enc('npm warn deprecated\n'))).toEqual({});
  });

  it('joint units number file after file and render each file from its own part', () => {
    const a = fileUnits('a.sidecar.jsonl', 'supercode-sidecar', enc('h\n1\n2\n'));
    const b = fileUnits('b.jsonl', 'codex-rollout', enc('x\ny\n'));
    const j = jointUnits([a, b]);
    expect(j.count).toBe(4);
    expect(j.render([1, 3]).map(dec)).toEqual(['h\n2\n', 'y\n']);
  });
});
