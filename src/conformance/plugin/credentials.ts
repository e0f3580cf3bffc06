import { findSecrets, redact } from '../inspect/secrets.js';
import { hasPlaceholder } from './paths.js';

/**
 * Credentials embedded in mcp.json `headers` (§7.2.1) or `env` (§9.2), for PLG-021. Both
 * sections say the values are visible package data, not a secret mechanism, and that Agent
 * Plugins v1 has no credential-reference field: authorization is client-managed. Whether a
 * string is a secret is decided heuristically, so the rule flags three things:
 * - a credential-shaped string (provider key prefix, bearer token, JWT, private key) that the
 *   shared detector (src/conformance/inspect/secrets.ts) finds, in any header or env value;
 * - any non-empty value of a credential-bearing header: headers are never expanded (§7.2.1),
 *   so whatever is written there is sent as the credential itself;
 * - a value of an env variable named like a credential, unless it uses `${PLUGIN_ROOT}` or
 *   `${PLUGIN_DATA}`, the only expansion env has (§9.2): then it names a file, not a secret.
 *   Other `${…}` text stays literal (§9.2), so `${GITHUB_TOKEN}` is passed as written.
 * The value itself is never returned: only its redacted form.
 */

export interface EmbeddedCredential {
  /** What was found, as a predicate of the entry, without the value. */
  what: string;
  /** The value as it may be shown: a short public prefix at most, then `…[redacted, N chars]`. */
  redacted: string;
}

// Header fields whose value is a credential: RFC 9110 §11.6 (Authorization, Proxy-Authorization),
// RFC 6265 (Cookie), and the API-key and token headers services use (X-API-Key, Private-Token, …).
const CREDENTIAL_HEADER =
  /^(?:authorization|proxy-authorization|cookie)$|(?:^|[-_])(?:api[-_]?key|access[-_]?key|secret[-_]?key|private[-_]?key|subscription[-_]?key|auth[-_]?key|token|secret|password|passwd|credentials?)$/i;

// Environment names that carry a credential: …TOKEN, …SECRET, …PASSWORD, …API_KEY and the like.
// Not …CREDENTIALS: such variables usually name a file (GOOGLE_APPLICATION_CREDENTIALS).
const CREDENTIAL_ENV = /(?:token|secret|password|passwd|api_?key|access_key|secret_key|private_key)$/i;

export function isCredentialHeader(name: string): boolean {
  return CREDENTIAL_HEADER.test(name);
}

export function isCredentialEnvName(name: string): boolean {
  return CREDENTIAL_ENV.test(name);
}

/** The credential a header or env entry embeds, or null. */
export function embeddedCredential(field: 'headers' | 'env', name: string, value: string): EmbeddedCredential | null {
  const hit = findSecrets(value, 1)[0];
  if (hit) return { what: `holds a ${hit.kind}`, redacted: hit.redacted };
  if (value === '') return null;
  if (field === 'headers' && isCredentialHeader(name))
    return { what: 'is a credential-bearing header with a literal value', redacted: redact(value, 0) };
  if (field === 'env' && isCredentialEnvName(name) && !hasPlaceholder(value))
    return { what: 'is named like a credential and set to literal text', redacted: redact(value, 0) };
  return null;
}
