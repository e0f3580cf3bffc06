import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findSecrets } from '../../../src/conformance/inspect/secrets.js';
import { embeddedCredential, isCredentialEnvName, isCredentialHeader } from '../../../src/conformance/plugin/credentials.js';
import { renderPluginSarif, renderPluginTerminal } from '../../../src/conformance/plugin/index.js';
import { PLUGIN_FIXTURES, checkOne, outcomes } from './helpers.js';

/**
 * PLG-021: no credentials in mcp.json headers (§7.2.1) or env (§9.2). The fixtures' values are
 * fake: the GitHub-token-shaped one is a readable phrase repeated ("N0tRealFakeT0kenQZ" twice)
 * that still passes the detector's entropy test, so it exercises the detector without being a token.
 */
const FAKE_TOKEN = 'ghp_N0tRealFakeT0kenQZN0tRealFakeT0kenQZ';
const LITERALS = [FAKE_TOKEN, 'N0tRealFakeT0ken', 'not-a-real-token', 'fake-key', 'session=fake', 'hunter2', '${OPENAI_API_KEY}'];

const headers = (): ReturnType<typeof checkOne> => checkOne(join(PLUGIN_FIXTURES, 'fail/PLG-021-header-credential'));
const env = (): ReturnType<typeof checkOne> => checkOne(join(PLUGIN_FIXTURES, 'fail/PLG-021-env-credential'));

describe('PLG-021 credentials in headers and env', () => {
  it('the fixture token is GitHub-token-shaped and passes the entropy test, so the detector (not the name) catches it', () => {
    const [hit, ...rest] = findSecrets(FAKE_TOKEN);
    expect(rest).toEqual([]);
    expect(hit).toMatchObject({ kind: 'GitHub token', redacted: 'ghp_…[redacted, 40 chars]' });
    expect(hit!.entropy).toBeGreaterThanOrEqual(3.5);
    // Its neutral names leave the detector as the only reason it is flagged.
    expect(isCredentialHeader('X-Upstream')).toBe(false);
    expect(isCredentialEnvName('UPSTREAM_CONFIG')).toBe(false);
  });

  it('flags each credential-bearing header and the token-shaped value, and nothing else', () => {
    const r = headers();
    expect(r.findings.map((f) => f.pointer)).toEqual([
      '/mcpServers/authorization/headers/Authorization',
      '/mcpServers/api-key/headers/x-api-key',
      '/mcpServers/cookie/headers/Cookie',
      '/mcpServers/token-shaped/headers/X-Upstream',
    ]);
    expect(r.findings.every((f) => f.line !== null && f.column !== null)).toBe(true);
    expect(r.findings.find((f) => f.pointer!.endsWith('X-Upstream'))!.message).toContain(
      'holds a GitHub token (ghp_…[redacted, 40 chars])',
    );
    expect(r.findings[0]!.message).toMatch(/credential-bearing header with a literal value \(…\[redacted, 23 chars\]\).*§7\.2\.1/);
    // A package rule: which servers a client loads does not change.
    expect(r.components.mcp).toEqual({ state: 'valid', servers: 5, valid: 5 });
  });

  it('flags credential-named env variables with literal text and the token-shaped value; ${PLUGIN_DATA} paths and empty values pass', () => {
    const r = env();
    expect(r.findings.map((f) => f.pointer)).toEqual([
      '/mcpServers/password/env/DB_PASSWORD',
      '/mcpServers/unexpanded-reference/env/OPENAI_API_KEY',
      '/mcpServers/token-shaped/env/UPSTREAM_CONFIG',
    ]);
    expect(r.findings.every((f) => /§9\.2/.test(f.message))).toBe(true);
    expect(r.components.mcp).toEqual({ state: 'valid', servers: 4, valid: 4 });
  });

  it('never prints a value: terminal, JSON and SARIF show the redacted form only', () => {
    for (const r of [headers(), env()]) {
      const out = [renderPluginTerminal(r), JSON.stringify(r), JSON.stringify(renderPluginSarif(r))].join('\n');
      for (const lit of LITERALS) expect(out, lit).not.toContain(lit);
      expect(out).toContain('[redacted, ');
    }
  });

  it('a server that fails PLG-017 leaves PLG-021 blocked, never passed', () => {
    const r = checkOne(join(PLUGIN_FIXTURES, 'fail/PLG-017-variants'));
    expect(r.rules.find((x) => x.id === 'PLG-021')!.outcome).toBe('blocked');
  });

  it('--rule PLG-021: a LIMITED PASS on the valid package, a failure on the fixture, not applicable without servers', () => {
    const v = checkOne(join(PLUGIN_FIXTURES, 'valid'), { rule: 'PLG-021' });
    expect(v.result).toBe('pass');
    expect(outcomes(v, 'pass')).toContain('PLG-021');
    expect(renderPluginTerminal(v)).toContain('✓ LIMITED PASS');
    expect(checkOne(join(PLUGIN_FIXTURES, 'fail/PLG-021-env-credential'), { rule: 'PLG-021' }).exitCode).toBe(1);
    expect(checkOne(join(PLUGIN_FIXTURES, 'minimal'), { rule: 'PLG-021' }).result).toBe('n/a');
  });

  it('credential-bearing header names', () => {
    for (const h of [
      'Authorization',
      'proxy-authorization',
      'Cookie',
      'X-API-Key',
      'X-Api-Key',
      'Api-Key',
      'apikey',
      'X-Goog-Api-Key',
      'Ocp-Apim-Subscription-Key',
      'Private-Token',
      'X-Auth-Token',
      'X-Amz-Security-Token',
      'X-Client-Secret',
    ])
      expect(isCredentialHeader(h), h).toBe(true);
    for (const h of ['X-Tenant', 'X-Api-Version', 'X-Idempotency-Key', 'X-Token-Type', 'Accept', 'User-Agent', 'Mcp-Protocol-Version'])
      expect(isCredentialHeader(h), h).toBe(false);
  });

  it('credential-like env names', () => {
    for (const n of [
      'GITHUB_TOKEN',
      'TOKEN',
      'CLIENT_SECRET',
      'DB_PASSWORD',
      'OPENAI_API_KEY',
      'APIKEY',
      'AWS_SECRET_ACCESS_KEY',
      'SSH_PRIVATE_KEY',
      'npm_token',
    ])
      expect(isCredentialEnvName(n), n).toBe(true);
    for (const n of ['CONFIG', 'DATA_DIR', 'MAX_TOKENS', 'TOKEN_CACHE_DIR', 'GOOGLE_APPLICATION_CREDENTIALS', 'AUTH_MODE', 'LOG_LEVEL'])
      expect(isCredentialEnvName(n), n).toBe(false);
  });

  it('values: headers are never expanded; env expands only ${PLUGIN_ROOT} and ${PLUGIN_DATA}', () => {
    // §7.2.1: no expansion in headers, so even a reference-looking value is the credential sent.
    expect(embeddedCredential('headers', 'Authorization', 'Bearer ${API_TOKEN}')).toEqual({
      what: 'is a credential-bearing header with a literal value',
      redacted: '…[redacted, 19 chars]',
    });
    expect(embeddedCredential('headers', 'Authorization', '')).toBeNull();
    expect(embeddedCredential('headers', 'X-Tenant', 'public-tenant')).toBeNull();
    // §9.2: a placeholder makes the value a path the client supplies; other ${…} text stays literal.
    expect(embeddedCredential('env', 'GITHUB_TOKEN', '${PLUGIN_DATA}/gh-token')).toBeNull();
    expect(embeddedCredential('env', 'GITHUB_TOKEN', '${GITHUB_TOKEN}')).not.toBeNull();
    expect(embeddedCredential('env', 'CONFIG', '${PLUGIN_ROOT}/config.json')).toBeNull();
    // The detector applies to every entry whatever its name, and to env values with a placeholder too.
    expect(embeddedCredential('env', 'X', `${FAKE_TOKEN}\${PLUGIN_ROOT}`)).toMatchObject({ what: 'holds a GitHub token' });
    // Token-shaped documentation text (a mask) is not a secret for the detector.
    expect(findSecrets(`ghp_${'x'.repeat(36)}`)).toEqual([]);
    expect(embeddedCredential('env', 'NOTE', `ghp_${'x'.repeat(36)}`)).toBeNull();
  });
});
