import { describe, expect, it } from 'vitest';
import { OptOutList, parseOptOutList } from '../../src/identity/opt-out.js';

describe('opt-out list', () => {
  const list = new OptOutList(
    parseOptOutList([
      { match: 'https://Agent.Example.com:443/.well-known/agent-card.json', mode: 'unchecked', reason: 'owner asked by e-mail' },
      { match: 'host:MCP.hidden.example', mode: 'hidden', reason: 'owner asked to be hidden' },
      { match: 'host:*.quiet.example', mode: 'unchecked', reason: 'whole domain' },
      { match: 'https://both.example/mcp', mode: 'unchecked', reason: 'u' },
      { match: 'host:both.example', mode: 'hidden', reason: 'h' },
    ]),
  );

  it('matches an agent key in any spelling, a host, or a host suffix; hidden wins', () => {
    expect(list.lookup({ agent_key: 'https://agent.example.com' })).toEqual({ mode: 'unchecked', reason: 'owner asked by e-mail' });
    expect(list.lookup({ agent_key: 'https://mcp.hidden.example/mcp' })).toEqual({ mode: 'hidden', reason: 'owner asked to be hidden' });
    expect(list.lookup({ agent_key: 'https://x.example', endpoint_url: 'https://a.b.quiet.example/a2a' })).toMatchObject({ mode: 'unchecked' });
    expect(list.lookup({ agent_key: 'https://quiet.example/mcp' })).toBeNull();
    expect(list.lookup({ agent_key: 'https://both.example/mcp' })).toMatchObject({ mode: 'hidden' });
    expect(list.lookup({ agent_key: 'https://other.example/mcp' })).toBeNull();
  });

  it('refuses a malformed list, naming the entry', () => {
    expect(() => parseOptOutList({})).toThrow(/JSON array/);
    expect(() => parseOptOutList([{ match: 'host:x.example', mode: 'gone' }])).toThrow(/\[0\]\.mode/);
    expect(() => parseOptOutList([{ match: 'ftp://x', mode: 'hidden' }])).toThrow(/\[0\]\.match/);
    expect(() => parseOptOutList([{ match: 'host:a b', mode: 'hidden' }])).toThrow(/host:<hostname>/);
  });
});
