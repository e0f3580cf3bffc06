/**
 * Seed 003 §7, "We do not store probe response bodies", on the probe event as a worker emits it
 * (ProbeEngine.probe, the API every caller had before documents were kept apart): no card,
 * error page or stream on the event, only the headers the judgement reads, and the MCP answer
 * reduced to its classification excerpt.
 */
import { describe, expect, it } from 'vitest';
import { eventCodec } from '../../../src/events/codec.js';
import { JUDGED_HEADERS } from '../../../src/http/client.js';
import { ProbeEngine } from '../../../src/producers/probe/probe-agent.js';
import { usePeers } from '../../helpers/peer-lifecycle.js';
import { startA2AAgent, startMcpLegacySse, startMcpWithBearerAuth } from '../../helpers/peers.js';

const engine = () =>
  new ProbeEngine({ contact: 'probes@veronikai.test', allowLoopback: true, timeoutMs: 2000, bodyWindowMs: 300, maxRetries: 0 });
const { track: peer } = usePeers();
const judged = (headers: Record<string, string>) => Object.keys(headers).filter((h) => !JUDGED_HEADERS.includes(h));

describe('what a probe event keeps', () => {
  it('an A2A probe: the 404 page and the card are not on the event, only the judged headers are', async () => {
    const p = await peer(startA2AAgent({ listingPath: '/agents/alpha/card.json', wellKnown: false, legacy: true }));
    const ev = eventCodec().decodeAs(
      'Probe',
      eventCodec().encode('Probe', await engine().probe({ protocol: 'a2a', url: `${p.origin}/missing/card.json`, runId: 'r' })),
    );
    expect(ev.exchanges.map((e) => [e.role, e.status])).toEqual([
      ['card', 404],
      ['well-known', 404],
      ['legacy', 200],
    ]);
    expect(ev.exchanges.map((e) => e.body.length)).toEqual([0, 0, 0]);
    expect(ev.exchanges.flatMap((e) => judged(e.headers))).toEqual([]);
  });

  it('MCP probes: the metadata document is not on the event, the legacy SSE stream only up to its first event', async () => {
    const bearer = await peer(startMcpWithBearerAuth());
    const b = await engine().probe({ protocol: 'mcp', url: bearer.url, runId: 'r' });
    expect(b.exchanges.map((e) => [e.role, e.status, e.body.length])).toEqual([
      ['mcp-get', 401, 0],
      ['resource-metadata', 200, 0],
    ]);
    const sse = await peer(startMcpLegacySse());
    const s = await engine().probe({ protocol: 'mcp', url: sse.url, runId: 'r', transport: 'sse' });
    const first = s.exchanges[0]!.body.toString();
    expect(first).toMatch(/^event: endpoint\r?\ndata: [^\n]*\r?\n\r?\n$/);
    expect([...b.exchanges, ...s.exchanges].flatMap((e) => judged(e.headers))).toEqual([]);
  });
});
