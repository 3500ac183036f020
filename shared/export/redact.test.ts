import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SECRET_PATTERNS, hasSecret, redact } from './redact';
import { ALL_PLANTED, PLANTED_SECRETS } from './testing/secrets';

/** Pieces that build strings close to secrets: prefixes, token characters, separators, markers. */
const piece = fc.oneof(
  fc.constantFrom(...PLANTED_SECRETS.map((s) => s.text)),
  fc.constantFrom('sk-', 'sk-ant-', 'ghp_', 'AKIA', 'AIza', 'eyJ', 'Bearer ', 'bearer\t', 'https://', 'u:', '@', ':', '=', 'password=', 'secret: ', '"', "'", '[REDACTED:', ']', '-----BEGIN PRIVATE KEY-----', '-----END PRIVATE KEY-----', 'xoxb-', '.', '/', '+', '\n', ' '),
  fc.string({ unit: fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghij0123456789_-'.split('')), minLength: 1, maxLength: 45 }),
  fc.string({ maxLength: 8 }),
);
const secretish = fc.array(piece, { maxLength: 12 }).map((parts) => parts.join(''));

describe('redact', () => {
  it.each(PLANTED_SECRETS.map((s) => [s.kind, s]))('finds a planted %s and names its kind', (_kind, planted) => {
    const { text, counts } = redact(`before ${planted.text} after`);
    expect(text).not.toContain(planted.tell);
    expect(text).toContain(`[REDACTED:${planted.kind}]`);
    expect(counts[planted.kind]).toBeGreaterThanOrEqual(1);
    expect(text.startsWith('before ') && text.endsWith(' after')).toBe(true);
  });

  it('documents one pattern for each planted kind, and each kind once', () => {
    const kinds = SECRET_PATTERNS.map((p) => p.kind);
    expect(new Set(kinds).size).toBe(kinds.length);
    expect(new Set(PLANTED_SECRETS.map((s) => s.kind))).toEqual(new Set(kinds));
  });

  it('counts every replacement over one tally', () => {
    const counts = {};
    redact(ALL_PLANTED, counts);
    redact(PLANTED_SECRETS[1]?.text ?? '', counts);
    expect(counts).toMatchObject({ anthropic_api_key: 2, github_token: 2, private_key: 1 });
  });

  it('finds a value given to a secret name in JSON, and in JSON inside a JSON string', () => {
    const inner = JSON.stringify({ password: 'hunter2hunter2', api_key: 'abcdefgh12345678' });
    for (const t of [inner, JSON.stringify({ cmd: inner })]) {
      const { text, counts } = redact(t);
      expect(text).not.toContain('hunter2hunter2');
      expect(text).not.toContain('abcdefgh12345678');
      expect(counts).toEqual({ secret_assignment: 2 });
    }
  });

  it('redacts a private key block whose END line was cut off, to the end of the text', () => {
    const { text } = redact('key:\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAA\nmore');
    expect(text).toBe('key:\n[REDACTED:private_key]');
  });

  it('leaves ordinary prose and code alone', () => {
    for (const t of ['hello world', 'const token = getToken();', 'Basic concepts of skiing', 'see https://example.com/a:b@c', 'git sha 0123456789abcdef0123456789abcdef01234567']) expect(redact(t)).toEqual({ text: t, counts: {} });
  });

  it('never leaves a pattern match (property)', () => {
    fc.assert(
      fc.property(secretish, (s) => {
        const { text } = redact(s);
        expect(hasSecret(text)).toBe(false);
      }),
      { numRuns: 2000 },
    );
  });

  it('changes nothing in a text with no match, and is idempotent (property)', () => {
    fc.assert(
      fc.property(secretish, (s) => {
        const once = redact(s).text;
        expect(redact(once)).toEqual({ text: once, counts: {} });
        if (!hasSecret(s)) expect(once).toBe(s);
      }),
      { numRuns: 1000 },
    );
  });
});
