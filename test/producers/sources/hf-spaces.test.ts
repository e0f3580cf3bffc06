import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHfSpacesSource, nextLink, toSpaceListing } from '../../../src/producers/sources/hf-spaces.js';
import { space, startFixtureHfSpaces, type HfSpacesFixture } from '../../helpers/fixture-hf-spaces.js';
import { sourceHarness } from './harness.js';

describe('Hugging Face Spaces tagged mcp-server', () => {
  let fx: HfSpacesFixture;
  let h: ReturnType<typeof sourceHarness>;
  beforeEach(async () => {
    const spaces = Array.from({ length: 9 }, (_, i) => space(`owner${i}/tool-${i}`));
    spaces.push(
      space('acme/sleepy', { stage: 'SLEEPING' }),
      space('acme/building', { stage: 'BUILDING' }),
      space('acme/dockerized', { sdk: 'docker' }),
      space('acme/untagged', { tags: ['gradio'] }),
    );
    // The server caps limit at 5 whatever we ask for: 12 tagged Spaces make 3 pages.
    fx = await startFixtureHfSpaces(spaces, { maxLimit: 5 });
    h = sourceHarness();
  });
  afterEach(() => fx.close());
  const run = (full = false) => h.run(createHfSpacesSource(), fx.url, { full });

  it('follows the Link header, asks for the runtime, and gives an endpoint only to RUNNING Gradio Spaces', async () => {
    const s = await run();
    expect(s).toMatchObject({ complete: true, mode: 'full', pages: 3, items: 12, new: 12, invalid: 0 });
    expect(fx.requests[0]).toMatch(/^\/api\/spaces\?filter=mcp-server&limit=100&expand=author&.*expand=runtime.*expand=subdomain/);
    expect(fx.requests[1]).toMatch(/cursor=/);
    expect(h.sink.fetches.map((f) => f.nextCursor === null)).toEqual([false, false, true]);
    const byId = new Map(h.listed().map((l) => [l.itemId, l]));
    expect(byId.get('owner3/tool-3')).toMatchObject({
      protocol: 'mcp',
      endpointUrl: 'https://owner3-tool-3.hf.space/gradio_api/mcp/',
      endpointTransport: 'streamable-http',
      name: 'Space owner3/tool-3',
    });
    for (const id of ['acme/sleepy', 'acme/building', 'acme/dockerized']) {
      expect(byId.get(id)).toMatchObject({ status: 'active', endpointUrl: null });
    }
    expect(byId.has('acme/untagged')).toBe(false);
    // Never a request to a Space itself: a request wakes a sleeping Space.
    expect(h.urls.every((u) => new URL(u).origin === fx.url)).toBe(true);
    expect(h.urls.some((u) => u.includes('hf.space'))).toBe(false);
  });

  it('revalidates with If-None-Match: a 304 is a successful fetch with nothing new, and nothing is delisted', async () => {
    await run();
    h.clear();
    const s = await run();
    expect(fx.notModified).toBe(3);
    expect(s).toMatchObject({ complete: true, pages: 3, items: 0, new: 0, changed: 0, delisted: 0, errors: 0 });
    expect(h.sink.fetches.every((f) => f.ok && f.notModified && f.status === 304)).toBe(true);
    expect(fx.requestHeaders.slice(-3).every((hd) => typeof hd['if-none-match'] === 'string')).toBe(true);

    // One Space wakes up (page 3 changes), another leaves the tag (page 1 changes).
    const sleepy = fx.spaces.findIndex((x) => x.id === 'acme/sleepy');
    fx.spaces[sleepy] = space('acme/sleepy', { stage: 'RUNNING' });
    fx.spaces.splice(0, 1);
    h.clear();
    const third = await run();
    expect(third).toMatchObject({ complete: true, changed: 1, delisted: 1 });
    expect(h.delisted()).toEqual(['owner0/tool-0']);
    expect(h.listed().find((l) => l.itemId === 'acme/sleepy')).toMatchObject({
      endpointUrl: 'https://acme-sleepy.hf.space/gradio_api/mcp/',
    });
    // --full ignores the ETags
    h.clear();
    expect(await run(true)).toMatchObject({ items: 11, new: 0, changed: 0 });
  });

  it('refuses a Link rel="next" that leaves the source origin', async () => {
    fx.linkOrigin = 'http://127.0.0.2:1';
    const s = await run();
    expect(s).toMatchObject({ complete: false, pages: 1, items: 0 });
    expect(s.failure).toMatch(/^invalid_shape: Link rel="next" leaves the source's origin/);
  });

  it('parses Link headers with several links and unquoted rel', () => {
    const base = 'https://huggingface.co/api/spaces?filter=mcp-server';
    expect(nextLink('<https://huggingface.co/api/spaces?cursor=abc>; rel="next"', base)).toBe(
      'https://huggingface.co/api/spaces?cursor=abc',
    );
    expect(nextLink('<https://x.example/p1>; rel="prev", </api/spaces?cursor=z>; rel=next', base)).toBe(
      'https://huggingface.co/api/spaces?cursor=z',
    );
    expect(nextLink('<https://x.example/p1>; rel="prev"', base)).toBeNull();
    expect(nextLink(undefined, base)).toBeNull();
  });

  it('maps odd Spaces defensively', () => {
    expect(toSpaceListing({ id: 'no-slash' })).toMatchObject({ status: 'invalid' });
    expect(toSpaceListing(space('a/b', { subdomain: null }))).toMatchObject({ status: 'active', endpointUrl: null });
    expect(toSpaceListing(space('a/b', { subdomain: 'evil.example.com/x' }))).toMatchObject({ endpointUrl: null });
    expect(toSpaceListing(space('a/b', { extra: { private: true } }))).toMatchObject({ status: 'invalid', invalidReason: 'private Space' });
  });
});
