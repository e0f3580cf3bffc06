import { describe, expect, it } from 'vitest';
import { baseExchange } from '../../../src/http/exchange-record.js';
import type { Exchange } from '../../../src/http/types.js';
import type { A2ACardChainResult } from '../../../src/producers/probe/a2a-chain.js';
import { a2aExchanges, mcpExchanges, toProbeExchange } from '../../../src/producers/probe/exchange-roles.js';
import type { McpProbeResult } from '../../../src/producers/probe/mcp-get.js';

function ex(url: string, status: number | null, location?: string): Exchange {
  const e = baseExchange(url, 'GET', {}, new Date('2026-01-02T03:04:05Z'));
  e.status = status;
  if (location !== undefined) e.headers = { location };
  return e;
}

describe('exchange roles', () => {
  it('every hop of one fetch but the last is a redirect', () => {
    const chain = {
      steps: [
        { kind: 'listing', exchanges: [ex('https://a.example/card', 301, '/c2'), ex('https://a.example/c2', 404)] },
        { kind: 'agent-card', exchanges: [ex('https://a.example/.well-known/agent-card.json', 200)] },
        { kind: 'legacy-agent-card', exchanges: [ex('https://a.example/.well-known/agent.json', 200)] },
      ],
    } as unknown as A2ACardChainResult;
    expect(a2aExchanges(chain).map((e) => e.role)).toEqual(['redirect', 'card', 'well-known', 'legacy']);
  });

  it('a metadata exchange is a redirect only when its Location led to the next one', () => {
    const res = {
      exchanges: [ex('https://m.example/mcp', 401)],
      metadataExchanges: [
        ex('https://m.example/.well-known/oauth-protected-resource', 302, '/meta'),
        ex('https://m.example/meta', 200),
        ex('https://m.example/.well-known/oauth-protected-resource/mcp', 302, '/elsewhere'),
        ex('https://m.example/other', 404),
      ],
    } as unknown as McpProbeResult;
    expect(mcpExchanges(res).map((e) => e.role)).toEqual([
      'mcp-get',
      'redirect',
      'resource-metadata',
      'resource-metadata',
      'resource-metadata',
    ]);
  });

  it('records the start as epoch ms and bounds the duration', () => {
    const e = ex('https://a.example/', 200);
    e.durationMs = 2 ** 40;
    expect(toProbeExchange(e, 'card')).toMatchObject({
      startedAt: Date.parse('2026-01-02T03:04:05Z'),
      durationMs: 2 ** 31 - 1,
      role: 'card',
    });
  });
});
