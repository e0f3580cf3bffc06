import { describe, expect, it } from 'vitest';
import { agentId, agentKey, normalizeUrl, siteOf } from '../../src/identity/agent-key.js';

describe('normalizeUrl', () => {
  it.each([
    ['HTTPS://MCP.Example.COM/mcp', 'https://mcp.example.com/mcp'],
    ['https://mcp.example.com:443/mcp', 'https://mcp.example.com/mcp'],
    ['http://mcp.example.com:80/mcp', 'http://mcp.example.com/mcp'],
    ['https://mcp.example.com:8443/mcp', 'https://mcp.example.com:8443/mcp'],
    ['https://mcp.example.com/mcp/', 'https://mcp.example.com/mcp'],
    ['https://mcp.example.com/', 'https://mcp.example.com'],
    ['https://mcp.example.com', 'https://mcp.example.com'],
    ['https://mcp.example.com/a//b/', 'https://mcp.example.com/a/b'],
    ['https://mcp.example.com/%7Euser/%2fx', 'https://mcp.example.com/~user/%2Fx'],
    ['https://mcp.example.com/mcp#frag', 'https://mcp.example.com/mcp'],
    ['https://mcp.example.com/mcp?key=A&b=%7e', 'https://mcp.example.com/mcp?key=A&b=~'],
    ['https://user:pw@mcp.example.com/mcp', 'https://mcp.example.com/mcp'],
    ['  https://mcp.example.com/mcp  ', 'https://mcp.example.com/mcp'],
  ])('%s → %s', (input, expected) => {
    expect(normalizeUrl(input)).toBe(expected);
  });

  it.each(['ftp://x.example/', 'not a url', '', 'javascript:alert(1)', '/relative'])('rejects %j', (input) => {
    expect(normalizeUrl(input)).toBeNull();
  });

  it('is idempotent', () => {
    for (const u of ['HTTPS://A.example:443/x/?q=1#f', 'http://b.example//%7e/']) {
      const once = normalizeUrl(u)!;
      expect(normalizeUrl(once)).toBe(once);
    }
  });
});

describe('agentKey', () => {
  it('keys MCP servers by the normalized endpoint', () => {
    const spellings = ['https://MCP.acme.dev/mcp', 'https://mcp.acme.dev:443/mcp', 'https://mcp.acme.dev/mcp/'];
    const keys = new Set(spellings.map((u) => agentKey('mcp', { endpointUrl: u })));
    expect([...keys]).toEqual(['https://mcp.acme.dev/mcp']);
  });

  it('keys A2A agents by the card URL without its well-known suffix, else the endpoint', () => {
    expect(agentKey('a2a', { cardUrl: 'https://Travel.acme.dev/.well-known/agent-card.json' })).toBe('https://travel.acme.dev');
    expect(agentKey('a2a', { cardUrl: 'https://travel.acme.dev/.well-known/agent.json' })).toBe('https://travel.acme.dev');
    expect(agentKey('a2a', { cardUrl: 'https://acme.dev/agents/x/.well-known/agent-card.json' })).toBe('https://acme.dev/agents/x');
    expect(agentKey('a2a', { cardUrl: 'https://acme.dev/cards/x.json' })).toBe('https://acme.dev/cards/x.json');
    expect(agentKey('a2a', { endpointUrl: 'https://acme.dev/a2a/' })).toBe('https://acme.dev/a2a');
    expect(agentKey('a2a', {})).toBeNull();
  });

  it('gives one key to the spellings the listing sources use for one agent', () => {
    // Cross-source dedupe: host case, an explicit default port, a trailing slash, the legacy well-known name.
    const a2a = [
      { cardUrl: 'https://Shared-Agent.example/.well-known/agent-card.json' },
      { cardUrl: 'https://shared-agent.example:443/.well-known/agent-card.json' },
      { cardUrl: 'https://shared-agent.example/.well-known/agent.json' },
      { cardUrl: 'HTTPS://shared-agent.example/.well-known/agent-card.json#card' },
    ];
    expect(new Set(a2a.map((u) => agentKey('a2a', u)))).toEqual(new Set(['https://shared-agent.example']));
    const mcp = ['https://MCP.Shared.example/mcp', 'https://mcp.shared.example:443/mcp', 'https://mcp.shared.example/mcp/'];
    expect(new Set(mcp.map((u) => agentKey('mcp', { endpointUrl: u })))).toEqual(new Set(['https://mcp.shared.example/mcp']));
    // A query string is part of the identity; a different port or scheme is another agent.
    expect(agentKey('mcp', { endpointUrl: 'https://m.example/mcp?tenant=a' })).not.toBe(
      agentKey('mcp', { endpointUrl: 'https://m.example/mcp?tenant=b' }),
    );
    expect(agentKey('mcp', { endpointUrl: 'https://m.example:8443/mcp' })).not.toBe(
      agentKey('mcp', { endpointUrl: 'https://m.example/mcp' }),
    );
    expect(agentKey('mcp', { endpointUrl: 'http://m.example/mcp' })).not.toBe(agentKey('mcp', { endpointUrl: 'https://m.example/mcp' }));
    // An HF Space endpoint keeps its path; the trailing slash Gradio documents goes.
    expect(agentKey('mcp', { endpointUrl: 'https://acme-weather.hf.space/gradio_api/mcp/' })).toBe(
      'https://acme-weather.hf.space/gradio_api/mcp',
    );
  });

  it('derives a stable short id and the registrable site', () => {
    expect(agentId('https://mcp.acme.dev/mcp')).toMatch(/^[0-9a-f]{16}$/);
    expect(agentId('https://mcp.acme.dev/mcp')).toBe(agentId('https://mcp.acme.dev/mcp'));
    expect(siteOf('https://a.b.acme.co.uk/x')).toBe('acme.co.uk');
    expect(siteOf('https://acme-weather.hf.space/gradio_api/mcp/')).toBe('acme-weather.hf.space');
    expect(siteOf('http://127.0.0.1:8080/')).toBe('127.0.0.1');
  });
});
