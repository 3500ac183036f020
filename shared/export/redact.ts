/**
 * Secrets out of exported documents (SPEC §16 `--redact`; the list is docs/export-documents.md's).
 * Every match of a pattern is replaced by `[REDACTED:kind]`, and each kind is counted. The
 * patterns err toward redacting: a string that looks like a key is taken for one.
 *
 * Invariant (held by the property tests): no pattern matches anywhere in `redact(text).text`.
 * A replacement never matches a pattern itself (the marker holds `[`, `:` and `]`, which no
 * token pattern takes, and the patterns that take anything skip a marker), and removing a match
 * can join its neighbours into a new one only through a replacement: the passes repeat until
 * nothing matches.
 */

/** One kind of secret and the pattern that finds it (a JavaScript regular expression source). */
export interface SecretPattern {
  kind: string;
  /** What it finds, for the documentation. */
  description: string;
  source: string;
}

/** A replacement, also what `(?!MARK)` keeps a pattern off. */
const MARK = '\\[REDACTED:';
/** A run of token characters ends at something that is not one. */
const TOKEN_END = '(?![A-Za-z0-9_-])';

/**
 * In priority order: where two patterns match at the same place, the earlier one names the kind.
 * Group names are the kinds (valid identifiers, no repeats).
 */
export const SECRET_PATTERNS: readonly SecretPattern[] = [
  {
    kind: 'private_key',
    description: 'a private key block, `-----BEGIN … PRIVATE KEY-----` to its END line (to the end of the text when it has none)',
    source: '-----BEGIN[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----[\\s\\S]*?(?:-----END[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----|$)',
  },
  { kind: 'anthropic_api_key', description: 'Anthropic API and admin keys: `sk-ant-…`', source: `sk-ant-[A-Za-z0-9_-]{8,}${TOKEN_END}` },
  { kind: 'openai_api_key', description: 'OpenAI keys: `sk-…`, `sk-proj-…`, `sk-svcacct-…`, `sk-admin-…`', source: `sk-[A-Za-z0-9_-]{16,}${TOKEN_END}` },
  { kind: 'stripe_key', description: 'Stripe secret and restricted keys: `sk_live_…`, `rk_test_…`', source: `(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{10,}${TOKEN_END}` },
  { kind: 'google_api_key', description: 'Google API keys: `AIza…`', source: `AIza[0-9A-Za-z_-]{20,}${TOKEN_END}` },
  { kind: 'github_token', description: 'GitHub tokens: `ghp_`, `gho_`, `ghu_`, `ghs_`, `ghr_`, `github_pat_`', source: `(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})${TOKEN_END}` },
  { kind: 'gitlab_token', description: 'GitLab personal access tokens: `glpat-…`', source: `glpat-[A-Za-z0-9_-]{20,}${TOKEN_END}` },
  { kind: 'slack_token', description: 'Slack tokens (`xoxb-`, `xoxp-`, `xoxa-`, `xoxr-`, `xoxs-`, `xoxo-`, `xapp-`) and webhook URLs', source: `(?:xox[abposr]-[A-Za-z0-9-]{10,}|xapp-[A-Za-z0-9-]{10,}|https://hooks\\.slack\\.com/services/[A-Za-z0-9/_-]{10,})${TOKEN_END}` },
  { kind: 'huggingface_token', description: 'Hugging Face tokens: `hf_…`', source: `hf_[A-Za-z0-9]{30,}${TOKEN_END}` },
  { kind: 'npm_token', description: 'npm tokens: `npm_…`', source: `npm_[A-Za-z0-9]{30,}${TOKEN_END}` },
  { kind: 'aws_access_key', description: 'AWS access key ids: `AKIA…`, `ASIA…` (and `ABIA`, `ACCA`) with 16 more characters', source: '(?<![A-Za-z0-9])(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}(?![A-Za-z0-9])' },
  {
    kind: 'aws_secret_key',
    description: 'AWS secret access keys: a 40-character base64 word within 300 characters after an access key id or a name such as `aws_secret_access_key`',
    source:
      // The word first, the look back only where one stands (a look back at every position is 300 times slower).
      '(?<![A-Za-z0-9/+=])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])(?<=(?:(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}|\\[REDACTED:aws_access_key\\]|[Ss][Ee][Cc][Rr][Ee][Tt]_?[Aa][Cc][Cc][Ee][Ss][Ss]_?[Kk][Ee][Yy]|[Aa][Ww][Ss]_?[Ss][Ee][Cc][Rr][Ee][Tt])[\\s\\S]{0,300}[A-Za-z0-9/+]{40})',
  },
  { kind: 'jwt', description: 'JSON Web Tokens: `eyJ….eyJ….…`', source: 'eyJ[A-Za-z0-9_-]{4,}\\.eyJ[A-Za-z0-9_-]{4,}\\.[A-Za-z0-9_-]*' },
  { kind: 'bearer_token', description: 'the token after `Bearer ` (any case), and after `Authorization: Basic `', source: `(?<=\\b(?:[Bb][Ee][Aa][Rr][Ee][Rr]|Authorization:\\s{0,4}Basic)[ \\t]{1,8})(?!${MARK})[A-Za-z0-9._~+/-]{8,}=*` },
  { kind: 'url_password', description: 'the password in a URL: `scheme://user:PASSWORD@host`', source: `(?<=\\b[A-Za-z][A-Za-z0-9+.-]{0,30}://[^\\s:/?#@]{0,200}:)(?!${MARK})[^\\s@/?#]{1,200}(?=@)` },
  {
    kind: 'secret_assignment',
    description: 'the value given (quoted, JSON-escaped or bare) to a name such as `password`, `passwd`, `secret`, `api_key`, `apikey`, `x-api-key`, `access_token`, `auth_token`, `client_secret` (`=` or `:`, quoted or not, 8 characters or more)',
    source: `(?<=\\b(?:[Pp]assword|PASSWORD|[Pp]asswd|PASSWD|[Ss]ecret|SECRET|[Cc]lient_secret|CLIENT_SECRET|[Aa]pi_?[Kk]ey|API_?KEY|[Xx]-[Aa]pi-[Kk]ey|[Aa]ccess_token|ACCESS_TOKEN|[Aa]uth_token|AUTH_TOKEN)(?:\\\\?["'])?[ \\t]{0,4}[:=][ \\t]{0,4}(?:\\\\?["'])?)(?!${MARK})[^\\s"'\`,;{}()<>\\[\\]]{8,}`,
  },
];

const KIND_OF_GROUP = SECRET_PATTERNS.map((p) => p.kind);
/** One alternation, each pattern in a named group: the leftmost match wins, ties to the earlier pattern. */
const ANY_SECRET = new RegExp(SECRET_PATTERNS.map((p) => `(?<${p.kind}>${p.source})`).join('|'), 'g');

/** Counts of what was replaced, by kind. */
export type RedactionCounts = Record<string, number>;

/** Passes after which a text still changing is redacted whole (never reached by real text: each pass only meets replacements). */
const MAX_PASSES = 8;

function kindOf(groups: Record<string, string | undefined> | undefined): string {
  for (const kind of KIND_OF_GROUP) if (groups?.[kind] !== undefined) return kind;
  return 'secret';
}

/** Whether any pattern matches `text` (what the invariant says never holds after `redact`). */
export function hasSecret(text: string): boolean {
  ANY_SECRET.lastIndex = 0;
  const found = ANY_SECRET.test(text);
  ANY_SECRET.lastIndex = 0;
  return found;
}

/** `text` with every secret replaced by `[REDACTED:kind]`, each replacement counted in `counts`. */
export function redact(text: string, counts: RedactionCounts = {}): { text: string; counts: RedactionCounts } {
  let out = text;
  for (let pass = 0; pass < MAX_PASSES; pass++) {
    let replaced = false;
    out = out.replace(ANY_SECRET, (...args: unknown[]) => {
      const groups = args[args.length - 1] as Record<string, string | undefined>;
      const kind = kindOf(groups);
      counts[kind] = (counts[kind] ?? 0) + 1;
      replaced = true;
      return `[REDACTED:${kind}]`;
    });
    if (!replaced) return { text: out, counts };
  }
  if (hasSecret(out)) {
    counts['secret'] = (counts['secret'] ?? 0) + 1;
    return { text: '[REDACTED:secret]', counts };
  }
  return { text: out, counts };
}

/** A redactor that keeps one tally over every text it is given (a whole document's). */
export function redactor(): { redact: (text: string) => string; counts: RedactionCounts } {
  const counts: RedactionCounts = {};
  return { redact: (text) => redact(text, counts).text, counts };
}
