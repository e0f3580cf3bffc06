import { describe, expect, it } from 'vitest';
import { cardsSeen } from '../../src/processors/verdicts/search-cards.js';
import { probeEvent, probeExchange } from '../helpers/probe-events.js';

const doc = (role: string, sha: string) => ({
  ...probeExchange(role, `https://a.example/${role}`, 200),
  bodyKept: 'document' as const,
  bodySha256: sha,
});

describe('the cards a batch of probes judged, for the search index', () => {
  it("takes each A2A agent's newest probe's last card document, and nothing from MCP probes or bodies not kept", () => {
    const A = 'https://a.example/a2a';
    const B = 'https://b.example/a2a';
    const cards = cardsSeen([
      probeEvent(2000, 'p2', A, 'a2a', [doc('card', 'new')]),
      probeEvent(1000, 'p1', A, 'a2a', [doc('card', 'old')]),
      probeEvent(1000, 'p3', B, 'a2a', [doc('redirect', 'hop'), doc('well-known', 'b-card')]),
      probeEvent(1000, 'p4', 'https://c.example/a2a', 'a2a', [probeExchange('card', 'https://c.example/card', 404)]),
      probeEvent(1000, 'p5', 'https://m.example/mcp', 'mcp', [doc('resource-metadata', 'meta')]),
    ]);
    expect(Object.fromEntries(cards)).toEqual({ [A]: 'new', [B]: 'b-card' });
  });
});
