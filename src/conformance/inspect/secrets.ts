/**
 * Credential patterns for public documents (an agent card is public by definition). Each
 * pattern names a kind; generic ones (a bearer token, a `"token": "…"` value) must also pass
 * an entropy test so ordinary words, placeholders and documentation text do not match. Every
 * match is reported redacted: the kind, a short prefix and the length, never the secret.
 */

export interface SecretMatch {
  kind: string;
  /** The match as it may be shown: a few leading characters, then `…[redacted, N chars]`. */
  redacted: string;
  /** Character offset of the match in the scanned text. */
  offset: number;
  /** Shannon entropy of the secret part, bits per character (rounded to 2 places). */
  entropy: number;
}

interface Pattern {
  kind: string;
  re: RegExp;
  /** Index of the capture group holding the secret part (0 = whole match). */
  group: number;
  /** Characters of the secret part that may be shown (a fixed, public prefix). */
  show: number;
  /** Minimum entropy (bits per character) of the secret part; 0 = no test (the prefix is specific enough). */
  minEntropy: number;
}

// Provider prefixes (documented formats): AWS access key ids, GitHub tokens, OpenAI / Anthropic
// keys, Google API keys, Slack, Stripe, Hugging Face, Groq, SendGrid, npm, GitLab, Twilio.
const PATTERNS: readonly Pattern[] = [
  {
    kind: 'private key',
    re: /-----BEGIN (?:RSA |EC |DSA |OPENSSH |PGP |ENCRYPTED )?PRIVATE KEY(?: BLOCK)?-----[\s\S]{0,8192}?(?:-----END (?:RSA |EC |DSA |OPENSSH |PGP |ENCRYPTED )?PRIVATE KEY(?: BLOCK)?-----|$)/g,
    group: 0,
    show: 0,
    minEntropy: 0,
  },
  { kind: 'AWS access key id', re: /\b((?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16})\b/g, group: 1, show: 4, minEntropy: 3.0 },
  { kind: 'GitHub token', re: /\b((?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36,255})\b/g, group: 1, show: 4, minEntropy: 3.5 },
  { kind: 'GitHub fine-grained token', re: /\b(github_pat_[A-Za-z0-9_]{60,255})\b/g, group: 1, show: 11, minEntropy: 3.5 },
  { kind: 'Anthropic API key', re: /\b(sk-ant-(?:api|admin)\d\d-[A-Za-z0-9_-]{40,})/g, group: 1, show: 7, minEntropy: 3.5 },
  { kind: 'OpenAI API key', re: /\b(sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{32,})/g, group: 1, show: 3, minEntropy: 3.8 },
  { kind: 'Google API key', re: /\b(AIza[0-9A-Za-z_-]{35})\b/g, group: 1, show: 4, minEntropy: 3.5 },
  { kind: 'Slack token', re: /\b(xox[abposr]-[A-Za-z0-9-]{20,})\b/g, group: 1, show: 5, minEntropy: 3.3 },
  { kind: 'Stripe key', re: /\b((?:sk|rk)_live_[A-Za-z0-9]{20,})\b/g, group: 1, show: 8, minEntropy: 3.5 },
  { kind: 'Hugging Face token', re: /\b(hf_[A-Za-z0-9]{30,})\b/g, group: 1, show: 3, minEntropy: 3.5 },
  { kind: 'Groq API key', re: /\b(gsk_[A-Za-z0-9]{48,})\b/g, group: 1, show: 4, minEntropy: 3.5 },
  { kind: 'SendGrid API key', re: /\b(SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43})\b/g, group: 1, show: 3, minEntropy: 3.5 },
  { kind: 'npm token', re: /\b(npm_[A-Za-z0-9]{36})\b/g, group: 1, show: 4, minEntropy: 3.5 },
  { kind: 'GitLab token', re: /\b(glpat-[A-Za-z0-9_-]{20,})\b/g, group: 1, show: 6, minEntropy: 3.5 },
  { kind: 'JSON Web Token', re: /\b(eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{16,})/g, group: 1, show: 3, minEntropy: 4.0 },
  // `Bearer <token>`: a credential in an Authorization-shaped string.
  { kind: 'bearer token', re: /\bBearer\s+([A-Za-z0-9\-._~+/]{20,}=*)/g, group: 1, show: 0, minEntropy: 3.5 },
  // A JSON member named like a credential whose string value looks random.
  {
    kind: 'credential value',
    re: /"(?:api[_-]?key|apikey|x-api-key|secret|client[_-]?secret|access[_-]?token|auth[_-]?token|token|password|passwd|private[_-]?key)"\s*:\s*"([^"\\\s]{24,200})"/gi,
    group: 1,
    show: 0,
    minEntropy: 3.7,
  },
];

/** Shannon entropy of `s` in bits per character. */
export function shannonEntropy(s: string): number {
  if (s.length === 0) return 0;
  const counts = new Map<string, number>();
  for (const c of s) counts.set(c, (counts.get(c) ?? 0) + 1);
  let h = 0;
  const n = [...s].length;
  for (const k of counts.values()) {
    const p = k / n;
    h -= p * Math.log2(p);
  }
  return h;
}

/** Text that documents a credential rather than leaking one (placeholders, examples, masks). */
function isPlaceholder(secret: string): boolean {
  const s = secret.toLowerCase();
  if (/(your|example|sample|placeholder|changeme|replace|dummy|redacted|insert|xxxx|\*\*\*|\.\.\.|<|>|\{|\}|\$)/.test(s)) return true;
  // one character repeated, or a run of the alphabet
  if (/^(.)\1+$/.test(s) || /abcdefghij|0123456789/.test(s)) return true;
  return false;
}

/** Generated keys and tokens mix digits and letters; words, slugs and prose rarely do. */
function looksGenerated(secret: string): boolean {
  return /[0-9]/.test(secret) && /[A-Za-z]/.test(secret);
}

export function redact(match: string, show: number): string {
  const visible = show > 0 ? match.slice(0, Math.min(show, Math.max(0, match.length - 8))) : '';
  return `${visible}…[redacted, ${match.length} chars]`;
}

/** Credential-shaped strings in `text` (at most `max`), each redacted. */
export function findSecrets(text: string, max = 50): SecretMatch[] {
  const out: SecretMatch[] = [];
  const taken: Array<[number, number]> = [];
  for (const p of PATTERNS) {
    p.re.lastIndex = 0;
    for (let m = p.re.exec(text); m !== null; m = p.re.exec(text)) {
      const secret = m[p.group] ?? m[0];
      const start = m.index + (p.group === 0 ? 0 : m[0].indexOf(secret));
      const end = start + secret.length;
      if (taken.some(([a, b]) => start < b && end > a)) continue;
      const entropy = Math.round(shannonEntropy(secret) * 100) / 100;
      if (p.minEntropy > 0) {
        if (entropy < p.minEntropy || isPlaceholder(secret)) continue;
        if (!looksGenerated(secret)) continue;
      }
      if (p.kind === 'JSON Web Token' && !jwtHeaderParses(secret)) continue;
      // A lone JWT header (base64url of {"alg": …}) is public, not a credential.
      if (p.kind === 'credential value' && /^eyJ[A-Za-z0-9_-]+$/.test(secret) && jwtHeaderParses(secret)) continue;
      taken.push([start, end]);
      out.push({ kind: p.kind, redacted: redact(secret, p.show), offset: start, entropy });
      if (out.length >= max) return out;
    }
  }
  return out.sort((a, b) => a.offset - b.offset);
}

/** A JWT's first segment is base64url JSON with an `alg`. */
function jwtHeaderParses(jwt: string): boolean {
  const head = jwt.split('.')[0] ?? '';
  try {
    const b64 = head.replace(/-/g, '+').replace(/_/g, '/');
    const json = JSON.parse(decodeBase64(b64)) as unknown;
    return typeof json === 'object' && json !== null && 'alg' in json;
  } catch {
    return false;
  }
}

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** Base64 to a latin-1 string (pure: no Buffer, no atob dependency on the platform). */
function decodeBase64(s: string): string {
  let bits = 0;
  let value = 0;
  let out = '';
  for (const c of s.replace(/=+$/, '')) {
    const i = B64.indexOf(c);
    if (i < 0) throw new Error('not base64');
    value = (value << 6) | i;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += String.fromCharCode((value >> bits) & 0xff);
    }
  }
  return out;
}

/** `text` with every credential-shaped match (and every given literal) replaced by its redacted form. */
export function redactText(text: string, literals: readonly string[] = []): string {
  let out = text;
  for (const lit of literals) if (lit.length >= 4) out = out.split(lit).join('[redacted]');
  const matches = findSecrets(out, 500);
  // Replace from the end so offsets stay valid; the secret part is found again at its offset.
  for (const m of [...matches].reverse()) {
    const len = Number(/(\d+) chars\]$/.exec(m.redacted)?.[1] ?? 0);
    if (len > 0) out = out.slice(0, m.offset) + `[redacted ${m.kind}]` + out.slice(m.offset + len);
  }
  return out;
}
