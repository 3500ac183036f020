/**
 * One planted secret of every kind `redact` knows (shared/export/redact.ts), each with a part that
 * appears nowhere else (`tell`), so a test can look for any trace of it in a document. The values
 * have the shapes of real ones; none is a working key.
 */
export interface PlantedSecret {
  kind: string;
  /** The text as it would appear in a session (with its context: a header, a name, a URL). */
  text: string;
  /** The secret part: must not appear in a redacted document. */
  tell: string;
}

export const PLANTED_SECRETS: readonly PlantedSecret[] = [
  { kind: 'private_key', text: '-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAplantedRSAkeyBodyLine1\nplantedRSAkeyBodyLine2==\n-----END RSA PRIVATE KEY-----', tell: 'plantedRSAkeyBodyLine2' },
  { kind: 'anthropic_api_key', text: 'ANTHROPIC_KEY sk-ant-api03-PlantedAnthropicKey0123456789abcdefXYZ-AAAA', tell: 'PlantedAnthropicKey0123456789' },
  { kind: 'openai_api_key', text: 'key: sk-proj-PlantedOpenAIKey0123456789abcdefghijT3BlbkFJ', tell: 'PlantedOpenAIKey0123456789' },
  { kind: 'stripe_key', text: 'stripe sk_live_PlantedStripe0123456789abcd', tell: 'PlantedStripe0123456789' },
  { kind: 'google_api_key', text: 'maps AIzaSyPlantedGoogleKey0123456789abcdefgh', tell: 'PlantedGoogleKey0123456789' },
  { kind: 'github_token', text: 'token ghp_PlantedGitHubToken0123456789abcdefghij and github_pat_11PlantedFineGrained0123456789_abcdefghij', tell: 'PlantedGitHubToken0123456789' },
  { kind: 'gitlab_token', text: 'glpat-PlantedGitLab0123456789ab', tell: 'PlantedGitLab0123456789' },
  { kind: 'slack_token', text: 'slack xoxb-1234567890-PlantedSlackBot0123', tell: 'PlantedSlackBot0123' },
  { kind: 'huggingface_token', text: 'HF hf_PlantedHuggingFace0123456789abcdefghijk', tell: 'PlantedHuggingFace0123456789' },
  { kind: 'npm_token', text: '//registry.npmjs.org/:_authToken npm_PlantedNpmToken0123456789abcdefghijklmn', tell: 'PlantedNpmToken0123456789' },
  { kind: 'aws_access_key', text: 'aws AKIAPLANTEDAWSKEY012 secret wJalrXUtnFEMI/K7MDENG/PlantedAwsSecret00', tell: 'AKIAPLANTEDAWSKEY012' },
  { kind: 'aws_secret_key', text: 'aws_secret_access_key = Zm9vYmFyPlantedAwsSecretKey0123456789ABC', tell: 'PlantedAwsSecretKey0123456789' },
  { kind: 'jwt', text: 'cookie eyJhbGciOiJIUzI1NiJ9.eyJQbGFudGVkSldUIjoiMSJ9.PlantedJwtSignature0123456789', tell: 'PlantedJwtSignature0123456789' },
  { kind: 'bearer_token', text: 'Authorization: Bearer PlantedBearerToken0123456789.abc', tell: 'PlantedBearerToken0123456789' },
  { kind: 'url_password', text: 'DATABASE_URL=postgres://admin:PlantedUrlPassword99@db.example.com:5432/app', tell: 'PlantedUrlPassword99' },
  { kind: 'secret_assignment', text: 'config password = "PlantedPassword0123"', tell: 'PlantedPassword0123' },
];

/** Every planted secret, one a line. */
export const ALL_PLANTED = PLANTED_SECRETS.map((s) => s.text).join('\n');
