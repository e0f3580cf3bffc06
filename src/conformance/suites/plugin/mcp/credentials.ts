import { escapePointer, isObject, own, quote } from '../../../../core/json-util.js';
import { embeddedCredential } from '../../../plugin/credentials.js';
import type { Rule } from '../../../rule.js';
import { fail } from '../run.js';
import { ap } from '../spec.js';
import type { ServerInput } from './input.js';

/**
 * PLG-021: no credential in a header or env value (§7.2.1, §9.2); the value is only ever shown
 * redacted. A package rule only: a client cannot tell a secret from other text, so whether the
 * server loads is not changed by it.
 */

export const CREDENTIALS: Rule<ServerInput, boolean> = {
  id: 'PLG-021',
  suite: 'agentPlugins',
  component: 'mcp',
  severity: 'fail',
  basis: 'spec',
  needs: 'document',
  prerequisites: ['PLG-017'],
  title: 'No credentials in headers or env',
  description:
    'A header or env value embeds a credential: a credential-shaped string (provider key prefix, bearer token, JWT, private key; entropy-tested), any literal value of a credential-bearing header (Authorization, Cookie, X-API-Key, …; headers are never expanded), or a literal value of an env variable named like a credential (…TOKEN, …SECRET, …PASSWORD, …API_KEY) that uses neither ${PLUGIN_ROOT} nor ${PLUGIN_DATA}. Heuristic: the value is reported redacted; the package does not conform, and which servers a client loads is not judged by this rule.',
  ...ap('§7.2.1 Streamable HTTP and legacy HTTP+SSE (headers); §9.2 Placeholder expansion (env)', 'streamable-http-and-legacy-httpsse'),
  check: checkCredentials,
};

function checkCredentials({ run, base, name, entry, stdio }: ServerInput): boolean {
  const field = stdio ? 'env' : 'headers';
  const map = own(entry, field);
  if (!isObject(map)) return true;
  let ok = true;
  for (const key of Object.keys(map)) {
    const found = embeddedCredential(field, key, own(map, key) as string);
    if (found === null) continue;
    const what = field === 'headers' ? `header ${quote(key)}` : `env variable ${quote(key)}`;
    const why =
      field === 'headers'
        ? '(§7.2.1): header values are visible package data, sent as written (never expanded)'
        : '(§9.2): env values are visible package data, expanded only for ${PLUGIN_ROOT} and ${PLUGIN_DATA}';
    fail(
      run,
      CREDENTIALS,
      'mcp.json',
      `${base}/${field}/${escapePointer(key)}`,
      `Server ${quote(name)}: ${what} ${found.what} (${found.redacted}); plugins must not embed credentials or other secrets in ${field} ${why}; credentials are client-managed.`,
    );
    ok = false;
  }
  if (ok) run.rec.pass(CREDENTIALS);
  return ok;
}
