import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { jsonObjectOrNull } from '../../../src/util/text.js';
import { fetchA2ACardChain, type A2AChainOptions } from '../../../src/producers/probe/index.js';
import { usePeers } from '../../helpers/peer-lifecycle.js';
import { startA2AAgent } from '../../helpers/peers.js';

const opts: A2AChainOptions = { contact: 'probes@veronikai.test', allowLoopback: true, timeoutMs: 2000, maxRetries: 0 };

const { track: agent, hostile: hostileServer } = usePeers();

describe('fetchA2ACardChain against real A2A SDK agents', () => {
  it('card at the listing URL: one GET, the chain stops', async () => {
    const p = await agent(startA2AAgent({ listingPath: '/agents/alpha/card.json', wellKnown: false }));
    const r = await fetchA2ACardChain(p.url, opts);
    expect(r.cardStep).toBe(0);
    expect(r.exchanges).toHaveLength(1);
    expect(r.steps.map((s) => s.outcome)).toEqual(['fetched', 'not_needed', 'not_needed']);
    expect(r.exchanges[0]).toMatchObject({ status: 200, errorClass: null, url: p.url });
    expect(r.exchanges[0]!.requestHeaders.accept).toBe('application/json');
    expect(jsonObjectOrNull(r.exchanges[0]!)).toMatchObject({ name: 'VeronikAI Test Agent' });
    expect(p.paths).toEqual(['/agents/alpha/card.json']);
  });

  it('card only at /.well-known/agent-card.json', async () => {
    const p = await agent(startA2AAgent({ wellKnown: true }));
    const r = await fetchA2ACardChain(p.url, opts);
    expect(r.cardStep).toBe(1);
    expect(r.exchanges.map((e) => [new URL(e.url).pathname, e.status])).toEqual([
      ['/', 404],
      ['/.well-known/agent-card.json', 200],
    ]);
    expect(r.steps[2]!.outcome).toBe('not_needed');
  });

  it('card only at the legacy /.well-known/agent.json', async () => {
    const p = await agent(startA2AAgent({ wellKnown: false, legacy: true }));
    const r = await fetchA2ACardChain(p.url, opts);
    expect(r.cardStep).toBe(2);
    expect(r.exchanges.map((e) => e.status)).toEqual([404, 404, 200]);
    expect(r.steps.map((s) => s.kind)).toEqual(['listing', 'agent-card', 'legacy-agent-card']);
    expect(r.steps.map((s) => s.jsonObject)).toEqual([false, false, true]);
    expect(jsonObjectOrNull(r.exchanges[2]!)).toMatchObject({ name: 'VeronikAI Test Agent' });
  });

  it('an HTML 200 at the listing URL is not a card: the chain goes on, to the end', async () => {
    const p = await agent(startA2AAgent({ listingPath: '/about', listingHtml: true, wellKnown: false, legacy: false }));
    const r = await fetchA2ACardChain(p.url, opts);
    expect(r.cardStep).toBeNull();
    expect(r.exchanges.map((e) => e.status)).toEqual([200, 404, 404]);
    expect(r.steps.every((s) => s.outcome === 'fetched' && !s.jsonObject)).toBe(true);
  });

  it('a listing URL that is the well-known URL is not fetched twice', async () => {
    const p = await agent(startA2AAgent({ wellKnown: false, legacy: true }));
    const r = await fetchA2ACardChain(`${p.origin}/.well-known/agent-card.json`, opts);
    expect(r.steps.map((s) => s.outcome)).toEqual(['fetched', 'duplicate', 'fetched']);
    expect(r.exchanges).toHaveLength(2);
    expect(r.cardStep).toBe(2);
  });

  it('a listing URL that redirects to the card: the hops are in the chain', async () => {
    const p = await agent(startA2AAgent({ wellKnown: true }));
    const listing = `${hostileServer().url}/redirect?to=${encodeURIComponent(`${p.origin}/.well-known/agent-card.json`)}`;
    const r = await fetchA2ACardChain(listing, opts);
    expect(r.cardStep).toBe(0);
    expect(r.exchanges.map((e) => e.status)).toEqual([302, 200]);
    expect(r.steps[0]!.exchanges).toHaveLength(2);
  });
});

describe('fetchA2ACardChain: failures are observations', () => {
  it('an unreachable origin is not asked three times', async () => {
    const s = net.createServer();
    await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
    const port = (s.address() as net.AddressInfo).port;
    await new Promise<void>((r) => s.close(() => r()));
    const r = await fetchA2ACardChain(`http://127.0.0.1:${port}/card.json`, opts);
    expect(r.exchanges).toHaveLength(1);
    expect(r.exchanges[0]!.errorClass).toBe('refused');
    expect(r.steps.map((s) => s.outcome)).toEqual(['fetched', 'origin_unreachable', 'origin_unreachable']);
    expect(r.cardStep).toBeNull();
  });

  it('a blocked listing URL: refused, nothing else tried', async () => {
    const r = await fetchA2ACardChain('http://192.168.1.10/agents/card.json', opts);
    expect(r.exchanges).toHaveLength(1);
    expect(r.exchanges[0]).toMatchObject({ errorClass: 'blocked_address', status: null });
    expect(r.steps.map((s) => s.outcome)).toEqual(['fetched', 'origin_unreachable', 'origin_unreachable']);
  });

  it('a card over 512 KB is body_too_large and the chain continues on the same origin', async () => {
    const r = await fetchA2ACardChain(`${hostileServer().url}/huge-chunked`, opts);
    expect(r.exchanges[0]).toMatchObject({ status: 200, errorClass: 'body_too_large', bodyTruncated: true });
    expect(r.exchanges[0]!.body.length).toBe(512 * 1024);
    expect(r.exchanges.map((e) => e.status)).toEqual([200, 404, 404]);
  });

  it('an invalid listing URL yields one invalid_url exchange', async () => {
    const r = await fetchA2ACardChain('card.json', opts);
    expect(r.exchanges).toHaveLength(1);
    expect(r.exchanges[0]!.errorClass).toBe('invalid_url');
    expect(r.steps.map((s) => s.outcome)).toEqual(['fetched', 'invalid_url', 'invalid_url']);
  });

  it('never decides up/down: the result carries exchanges and steps only', async () => {
    const p = await agent(startA2AAgent({ wellKnown: true }));
    const r = await fetchA2ACardChain(p.url, opts);
    expect(Object.keys(r).sort()).toEqual(['cardStep', 'exchanges', 'steps']);
  });
});
