import { afterEach, describe, expect, it } from 'vitest';
import { createA2aRegistrySource, toA2aRegistryListing } from '../../../src/producers/sources/a2a-registry.js';
import { createA2aRegistryOrgSource, toA2aRegistryOrgListing } from '../../../src/producers/sources/a2aregistry-org.js';
import { a2aAgent, startFixtureA2aRegistry, type A2aRegistryFixture } from '../../helpers/fixture-a2a-registry.js';
import { orgAgent, startFixtureA2aRegistryOrg, type A2aRegistryOrgFixture } from '../../helpers/fixture-a2aregistry-org.js';
import { faults } from '../../helpers/fixture-common.js';
import { sourceHarness } from './harness.js';

const card = (i: number) => `https://agent${i}.example.com/.well-known/agent-card.json`;

describe('A2A Registry (api.a2a-registry.org)', () => {
  let fx: A2aRegistryFixture;
  afterEach(() => fx?.close());

  it('reads every 1-based page and stops where a repeated last page adds nothing new', async () => {
    fx = await startFixtureA2aRegistry(
      Array.from({ length: 50 }, (_, i) => a2aAgent(`id-${i}`, card(i))),
      { omitTotal: true },
    );
    const h = sourceHarness();
    const s = await h.run(createA2aRegistrySource(), fx.url);
    // pages 1-3 hold 50 agents; page 4 repeats page 3 and ends the pass
    expect(s).toMatchObject({ complete: true, mode: 'full', pages: 4, items: 50, new: 50, errors: 0 });
    expect(fx.requests).toEqual([1, 2, 3, 4].map((p) => `/public/agents?page=${p}`));
    expect(new Set(h.listed().map((l) => l.itemId)).size).toBe(50);
    expect(h.listed()[0]).toMatchObject({ protocol: 'a2a', itemId: 'id-0', name: 'Agent id-0', cardUrl: card(0), endpointUrl: null });
  });

  it('stops at `total`, reads the `results` variant, stops on an empty page', async () => {
    fx = await startFixtureA2aRegistry(
      Array.from({ length: 40 }, (_, i) => a2aAgent(`id-${i}`, card(i))),
      { listKey: 'results', beyondEnd: 'empty' },
    );
    const h = sourceHarness();
    expect(await h.run(createA2aRegistrySource(), fx.url)).toMatchObject({ complete: true, pages: 2, items: 40 });
    fx.omitTotal = true;
    h.clear();
    expect(await h.run(createA2aRegistrySource(), fx.url)).toMatchObject({ complete: true, pages: 3, items: 40, new: 0, changed: 0 });
  });

  it('records private or URL-less agents as invalid, with the reason', () => {
    expect(toA2aRegistryListing(a2aAgent('p', card(1), { visibility: 'private' }))).toMatchObject({
      status: 'invalid',
      invalidReason: 'visibility is private',
    });
    expect(toA2aRegistryListing(a2aAgent('n', null))).toMatchObject({ itemId: 'n', status: 'invalid' });
    expect(toA2aRegistryListing({ displayName: 'no id' })).toMatchObject({ status: 'invalid', invalidReason: 'item has no "id"' });
    expect(toA2aRegistryListing(a2aAgent('e', null, { url: 'https://e.example/a2a' }))).toMatchObject({
      status: 'active',
      endpointUrl: 'https://e.example/a2a',
    });
  });

  it('delists an agent a later complete pass no longer lists; a failed pass delists nothing', async () => {
    fx = await startFixtureA2aRegistry(Array.from({ length: 30 }, (_, i) => a2aAgent(`id-${i}`, card(i))));
    const h = sourceHarness();
    await h.run(createA2aRegistrySource(), fx.url);
    fx.agents.splice(3, 1);
    fx.faultAt.set(fx.dataRequests + 2, faults.status(502));
    h.clear();
    expect(await h.run(createA2aRegistrySource(), fx.url)).toMatchObject({ complete: false, delisted: 0 });
    expect(h.delisted()).toEqual([]);
    h.clear();
    expect(await h.run(createA2aRegistrySource(), fx.url)).toMatchObject({ complete: true, delisted: 1 });
    expect(h.delisted()).toEqual(['id-3']);
    expect(h.sink.listingEvents.find((l) => l.status === 'delisted')).toMatchObject({ source: 'a2a-registry', protocol: 'a2a' });
  });
});

describe('a2aregistry.org', () => {
  let fx: A2aRegistryOrgFixture;
  afterEach(() => fx?.close());

  it('advances the offset by what came back when the server caps the limit', async () => {
    fx = await startFixtureA2aRegistryOrg(
      Array.from({ length: 23 }, (_, i) => orgAgent(`uuid-${i}`, card(i))),
      { maxLimit: 7 },
    );
    const h = sourceHarness();
    const s = await h.run(createA2aRegistryOrgSource(), `${fx.url}/api`);
    expect(s).toMatchObject({ complete: true, mode: 'full', pages: 4, items: 23 });
    expect(fx.requests).toEqual([0, 7, 14, 21].map((o) => `/api/agents?limit=100&offset=${o}`));
    expect(h.listed()[0]).toMatchObject({
      protocol: 'a2a',
      itemId: 'uuid-0',
      cardUrl: card(0),
      endpointUrl: 'https://agent0.example.com/a2a/v1',
      version: '1.0.0',
    });
  });

  it('does not trust a pass during which the listing moved: nothing is delisted', async () => {
    fx = await startFixtureA2aRegistryOrg(
      Array.from({ length: 20 }, (_, i) => orgAgent(`uuid-${i}`, card(i))),
      { maxLimit: 5 },
    );
    const h = sourceHarness();
    await h.run(createA2aRegistryOrgSource(), `${fx.url}/api`);
    // An agent is removed between page 1 and page 2: every later offset shifts by one, one agent is never seen.
    fx.onPage = (offset, self) => {
      if (offset === 5) {
        self.agents.splice(0, 1);
        self.onPage = null;
      }
    };
    h.clear();
    const s = await h.run(createA2aRegistryOrgSource(), `${fx.url}/api`);
    expect(s).toMatchObject({ complete: true, delisted: 0, items: 19 });
    // uuid-5 slid from offset 5 to offset 4 and was never seen: delisting it would be wrong.
    expect(h.listed().map((l) => l.itemId)).not.toContain('uuid-5');
    expect(s.notes.join()).toMatch(/listing changed during the pass \(total 20 → 19\)/);
    h.clear();
    const again = await h.run(createA2aRegistryOrgSource(), `${fx.url}/api`);
    expect(again).toMatchObject({ complete: true, items: 19 });
    expect(h.delisted()).toEqual(['uuid-0']);
  });

  it('maps hidden and URL-less agents to invalid listings', () => {
    expect(toA2aRegistryOrgListing(orgAgent('h', card(1), { hidden: true }))).toMatchObject({
      status: 'invalid',
      invalidReason: 'hidden by the registry',
    });
    expect(toA2aRegistryOrgListing(orgAgent('x', null, { url: null }))).toMatchObject({ status: 'invalid' });
  });
});
