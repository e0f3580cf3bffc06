/**
 * The credential patterns: provider prefixes, bearer tokens, JWTs and private keys are found and
 * reported redacted; placeholders, prose and low-entropy values are not. Key-shaped strings are
 * generated at run time, so no credential-shaped literal sits in the repository.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { findSecrets, redactText, shannonEntropy } from '../../../src/conformance/inspect/index.js';

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
function random(n: number, alphabet = ALNUM): string {
  const mixed = /\d/.test(alphabet) && /[A-Za-z]/.test(alphabet);
  // Retried until it mixes digits and letters (when the alphabet has both), as a generated key does.
  for (;;) {
    const s = [...randomBytes(n)].map((b) => alphabet[b % alphabet.length]).join('');
    if (!mixed || (/\d/.test(s) && /[A-Za-z]/.test(s))) return s;
  }
}
const b64url = (o: object): string => Buffer.from(JSON.stringify(o)).toString('base64url');

const KEYS: Array<[string, string]> = [
  ['AWS access key id', `AKIA${random(16, UPPER)}`],
  ['GitHub token', `ghp_${random(36)}`],
  ['OpenAI API key', `sk-proj-${random(48)}`],
  ['Anthropic API key', `sk-ant-api03-${random(90)}`],
  ['Google API key', `AIza${random(35)}`],
  ['Slack token', `xoxb-${random(12, '0123456789')}-${random(24)}`],
  ['Stripe key', `sk_live_${random(32)}`],
  ['Hugging Face token', `hf_${random(34)}`],
  ['JSON Web Token', `${b64url({ alg: 'HS256', typ: 'JWT' })}.${b64url({ sub: random(12), iat: 1700000000 })}.${random(43)}`],
];

describe('findSecrets', () => {
  for (const [kind, key] of KEYS) {
    it(`finds a ${kind} in a card and never shows it whole`, () => {
      const text = JSON.stringify({ name: 'Agent', description: `call us with ${key} please` });
      const hits = findSecrets(text);
      expect(hits.map((h) => h.kind)).toEqual([kind]);
      expect(hits[0]!.redacted).toMatch(/…\[redacted, \d+ chars\]$/);
      expect(hits[0]!.redacted).not.toContain(key.slice(-8));
      expect(JSON.stringify(hits)).not.toContain(key);
    });
  }

  it('finds a bearer token and a credential-named member with a random value', () => {
    const bearer = `Bearer ${random(40)}`;
    const cred = `"api_key": "${random(32)}"`;
    const hits = findSecrets(`{"headers": {"Authorization": "${bearer}"}, ${cred}}`);
    expect(hits.map((h) => h.kind).sort()).toEqual(['bearer token', 'credential value']);
  });

  it('finds a private key block', () => {
    const pem = `-----BEGIN RSA PRIVATE KEY-----\\n${random(64)}\\n-----END RSA PRIVATE KEY-----`;
    expect(findSecrets(`{"key": "${pem}"}`).map((h) => h.kind)).toEqual(['private key']);
  });

  it('keeps placeholders, prose and low-entropy values out (the entropy test)', () => {
    const benign = [
      '"description": "Standard Bearer Authorization Header containing Looker access token"',
      '"token": "USDC"',
      '"api_key": "your-api-key-here-please-replace"',
      '"apiKey": "<YOUR_OPENAI_API_KEY_GOES_HERE>"',
      '"password": "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"',
      '"token": "0123456789abcdefghijklmnopqrstuv"',
      'Authorization: Bearer YOUR_ACCESS_TOKEN_GOES_HERE',
      '"id": "task-management-and-risk-assessment-for-deployments"',
      'sk-this-is-a-very-long-hyphenated-slug-without-digits',
      `"secret": "${'x'.repeat(40)}"`,
      `"access_token": "${Buffer.from(JSON.stringify({ alg: 'RS256', typ: 'JWT', kid: 'k1' })).toString('base64url')}"`,
      '"accessToken": "eyJhbGciOiJIUzI1NiJ9"',
    ];
    for (const text of benign) expect(findSecrets(`{${text}}`), text).toEqual([]);
  });

  it('measures entropy in bits per character', () => {
    expect(shannonEntropy('aaaa')).toBe(0);
    expect(shannonEntropy('abcd')).toBe(2);
    expect(shannonEntropy(random(64))).toBeGreaterThan(4.5);
  });

  it('redacts every match and every literal in a text', () => {
    const key = `ghp_${random(36)}`;
    const out = redactText(`token ${key} and owner-secret-value`, ['owner-secret-value']);
    expect(out).not.toContain(key);
    expect(out).not.toContain('owner-secret-value');
    expect(out).toContain('[redacted GitHub token]');
  });
});
