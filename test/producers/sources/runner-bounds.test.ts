/**
 * The runner's own bounds: every draft passes one finaliser (capped fields, an oversized
 * server.json or an over-long id or URL made `invalid`), sources share one invalid-draft helper,
 * and pages are decoded as UTF-8 with a BOM ignored and invalid text recorded.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createA2aRegistryOrgSource } from '../../../src/producers/sources/a2aregistry-org.js';
import { SOURCE_LIMITS } from '../../../src/producers/sources/limits.js';
import { boundedRaw, capText, finalizeDraft, httpUrl, invalidDraft } from '../../../src/producers/sources/item.js';
import type { ListingDraft } from '../../../src/producers/sources/types.js';
import { startFixture, type FixtureBase } from '../../helpers/fixture-common.js';
import { sourceHarness } from './harness.js';

const active = (extra: Partial<ListingDraft> = {}): ListingDraft => ({
  ...invalidDraft(boundedRaw({ id: 'x' }), 'mcp'),
  itemId: 'owner/server',
  name: 'Server',
  description: 'A server',
  version: '1.0.0',
  endpointUrl: 'https://x.example/mcp',
  endpointTransport: 'streamable-http',
  serverJson: '{"name":"owner/server"}',
  status: 'active',
  ...extra,
});

describe('finalizeDraft: one finaliser for every listing draft', () => {
  it('cuts text fields to their caps, marked, and is idempotent', () => {
    const d = finalizeDraft(
      active({ name: 'n'.repeat(10_000), description: 'd'.repeat(1_000_000), version: 'v'.repeat(1000), updatedAt: 'u'.repeat(1000) }),
    );
    expect(d.status).toBe('active');
    expect(d.name).toHaveLength(SOURCE_LIMITS.nameMaxChars);
    expect(d.description).toHaveLength(SOURCE_LIMITS.descriptionMaxChars);
    expect(d.description.endsWith('…')).toBe(true);
    expect(d.version).toHaveLength(SOURCE_LIMITS.versionMaxChars);
    expect(d.updatedAt).toHaveLength(SOURCE_LIMITS.shortFieldMaxChars);
    expect(finalizeDraft(d)).toEqual(d);
    expect(finalizeDraft(active())).toEqual(active());
  });

  it('an oversized server.json, item id or URL makes the listing invalid with the reason', () => {
    const json = finalizeDraft(active({ serverJson: JSON.stringify({ pad: 'x'.repeat(SOURCE_LIMITS.serverJsonMaxBytes) }) }));
    expect(json).toMatchObject({ status: 'invalid', serverJson: null, itemId: 'owner/server' });
    expect(json.invalidReason).toMatch(/^server\.json is \d+ bytes, over the 262144-byte cap$/);
    const id = finalizeDraft(active({ itemId: 'i'.repeat(5000) }));
    expect(id.itemId).toMatch(/^invalid:[0-9a-f]{8}$/);
    expect(id).toMatchObject({ status: 'invalid', invalidReason: expect.stringMatching(/^item id is 5000 characters long/) });
    const url = finalizeDraft(active({ endpointUrl: `https://x.example/${'p'.repeat(SOURCE_LIMITS.urlMaxChars)}` }));
    expect(url).toMatchObject({
      status: 'invalid',
      endpointUrl: null,
      invalidReason: expect.stringMatching(/^endpointUrl is \d+ characters long/),
    });
    // a tombstone only loses the field; an already invalid draft keeps its reason first
    expect(
      finalizeDraft(active({ status: 'deleted', endpointUrl: `https://x.example/${'p'.repeat(SOURCE_LIMITS.urlMaxChars)}` })),
    ).toMatchObject({ status: 'deleted', endpointUrl: null });
    const both = finalizeDraft({ ...invalidDraft(boundedRaw({}), 'a2a', 'item has no "id"'), serverJson: 'x'.repeat(300 * 1024) });
    expect(both.invalidReason).toMatch(/^item has no "id"; server\.json is/);
  });

  it('capText never splits a surrogate pair; httpUrl refuses templates and over-long URLs', () => {
    expect(capText('😀😀😀', 4)).toBe('😀…');
    expect(capText('a😀😀', 4)).toBe('a😀…');
    expect(httpUrl('https://x.example/{tenant}/mcp')).toBeNull();
    expect(httpUrl(`https://x.example/${'p'.repeat(SOURCE_LIMITS.urlMaxChars)}`)).toBeNull();
    expect(httpUrl(' https://x.example/mcp ')).toBe('https://x.example/mcp');
  });

  it('invalidDraft: the one invalid listing of an item every source starts from', () => {
    const raw = boundedRaw({ nope: true });
    expect(invalidDraft(raw, 'a2a', 'item has no "id"')).toEqual({
      itemId: expect.stringMatching(/^invalid:[0-9a-f]{8}$/),
      protocol: 'a2a',
      name: '',
      description: '',
      version: null,
      endpointUrl: null,
      endpointTransport: null,
      cardUrl: null,
      serverJson: null,
      status: 'invalid',
      invalidReason: 'item has no "id"',
      updatedAt: null,
      raw: '{"nope":true}',
      rawTruncated: false,
    });
    expect(invalidDraft(raw, 'mcp', 'why', 'given/id').itemId).toBe('given/id');
  });
});

describe('listing pages are decoded as UTF-8', () => {
  let fx: FixtureBase & { body: Buffer };
  afterEach(() => fx?.close());

  async function serve(body: Buffer) {
    fx = await startFixture({ body }, (_url, _req, res, self) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(self.body.length) });
      res.end(self.body);
    });
  }
  const page = (name: Buffer) =>
    Buffer.concat([Buffer.from('{"agents":[{"id":"a1","name":"'), name, Buffer.from('","url":"https://a1.example/a2a"}],"total":1}')]);

  it('a page with a UTF-8 BOM is read as JSON', async () => {
    await serve(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), page(Buffer.from('Agent'))]));
    const h = sourceHarness();
    const s = await h.run(createA2aRegistryOrgSource(), fx.url);
    expect(s).toMatchObject({ complete: true, items: 1, errors: 0 });
    expect(h.sink.fetches[0]).toMatchObject({ ok: true, errorClass: null });
  });

  it('a page that is not valid UTF-8 is read, and the event and the summary say so', async () => {
    await serve(page(Buffer.from([0x41, 0xff, 0x42])));
    const h = sourceHarness();
    const s = await h.run(createA2aRegistryOrgSource(), fx.url);
    expect(s).toMatchObject({ complete: true, items: 1, errors: 0 });
    expect(s.notes.join()).toMatch(/invalid_utf8/);
    expect(h.sink.fetches[0]).toMatchObject({ ok: true, errorClass: 'invalid_utf8', error: expect.stringMatching(/not valid UTF-8/) });
    expect(h.listed()[0]!.name).toBe('A\uFFFDB');
  });
});
