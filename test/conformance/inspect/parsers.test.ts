import { describe, expect, it } from 'vitest';
import {
  authServerCandidates,
  bearerChallenge,
  cardCandidates,
  parseWwwAuthenticate,
  prmCandidates,
  readReply,
} from '../../../src/conformance/inspect/index.js';

describe('inspect parsers', () => {
  it('reads Bearer challenges with quoted and token parameters, among other schemes', () => {
    const v =
      'Basic realm="x", Bearer error="invalid_token", error_description="The \\"token\\" expired", resource_metadata="https://a.example/.well-known/oauth-protected-resource/mcp", scope=mcp';
    expect(parseWwwAuthenticate(v).map((c) => c.scheme)).toEqual(['Basic', 'Bearer']);
    expect(bearerChallenge(v)!.params).toMatchObject({
      error: 'invalid_token',
      error_description: 'The "token" expired',
      resource_metadata: 'https://a.example/.well-known/oauth-protected-resource/mcp',
      scope: 'mcp',
    });
    expect(bearerChallenge('Bearer')).toEqual({ scheme: 'Bearer', params: {} });
    expect(bearerChallenge(undefined)).toBeNull();
  });

  it('reads JSON-RPC replies in event streams', () => {
    expect(
      readReply('event: message\r\ndata: {"jsonrpc":"2.0","id":7,"result":{"a":1}}\r\n\r\n', { 'content-type': 'text/event-stream' }, 7),
    ).toMatchObject({ kind: 'result', result: { a: 1 } });
    expect(readReply('<html>', { 'content-type': 'text/html' }, 1)).toMatchObject({ kind: 'none' });
  });

  it('builds the RFC 9728 and issuer metadata URLs (both path forms, independently)', () => {
    expect(prmCandidates('https://a.example/v1/mcp', null).map((c) => c.url)).toEqual([
      'https://a.example/.well-known/oauth-protected-resource/v1/mcp',
      'https://a.example/.well-known/oauth-protected-resource',
    ]);
    expect(prmCandidates('https://a.example/mcp', 'https://b.example/prm').map((c) => c.form)).toEqual(['resource_metadata']);
    expect(authServerCandidates('https://id.example/tenant1')).toEqual({
      oidc: [
        { url: 'https://id.example/.well-known/openid-configuration/tenant1', form: 'path-inserted' },
        { url: 'https://id.example/tenant1/.well-known/openid-configuration', form: 'path-appended' },
      ],
      oauth: [
        { url: 'https://id.example/.well-known/oauth-authorization-server/tenant1', form: 'path-inserted' },
        { url: 'https://id.example/tenant1/.well-known/oauth-authorization-server', form: 'path-appended' },
      ],
    });
    expect(authServerCandidates('https://id.example/').oidc).toEqual([
      { url: 'https://id.example/.well-known/openid-configuration', form: 'root' },
    ]);
  });

  it('looks for the card at a given .json URL, then the current and legacy well-known paths', () => {
    expect(cardCandidates('https://a.example/agents/x.json')).toEqual([
      'https://a.example/agents/x.json',
      'https://a.example/.well-known/agent-card.json',
      'https://a.example/.well-known/agent.json',
    ]);
    expect(cardCandidates('https://a.example/mcp')).toEqual([
      'https://a.example/.well-known/agent-card.json',
      'https://a.example/.well-known/agent.json',
    ]);
  });
});
