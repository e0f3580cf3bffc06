import { SOURCE_NAMES, type SourceName } from '../../src/config.js';
import { sendJson, startFixture, type FixtureBase } from './fixture-common.js';

/**
 * A listing source of any kind that answers every data request with one page body as set
 * (hostile or not): a page of millions of tiny items, a deeply nested page, a page with a
 * token-bearing URL. robots.txt as fixture-common sets it (default 404: none).
 */
export interface ListingPageFixture extends FixtureBase {
  /** The body every data request gets (200, application/json); a number answers that status instead. */
  body: Buffer | number;
}

export async function startListingPageFixture(body: Buffer | number): Promise<ListingPageFixture> {
  return startFixture({ body } as { body: Buffer | number }, (_url, _req, res, self) => {
    if (typeof self.body === 'number') return sendJson(res, self.body, { error: `HTTP ${self.body}` });
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(self.body.length) });
    res.end(self.body);
  });
}

/** Where each source's list page keeps its items: a member of the page object, or the page itself (null). */
export const ITEMS_KEY: Readonly<Record<SourceName, string | null>> = {
  'mcp-registry': 'servers',
  'a2a-registry': 'agents',
  'a2aregistry-org': 'agents',
  'hf-spaces': null,
  neuronto: 'items',
  smithery: 'servers',
};

/** A list page of `source` whose items are the JSON texts given, built as bytes (no array of millions of values). */
export function pageOf(source: SourceName, itemTexts: { count: number; text: string } | readonly string[]): Buffer {
  const items = Array.isArray(itemTexts)
    ? `[${itemTexts.join(',')}]`
    : `[${new Array((itemTexts as { count: number }).count).fill((itemTexts as { text: string }).text).join(',')}]`;
  const key = ITEMS_KEY[source];
  const count = Array.isArray(itemTexts) ? itemTexts.length : (itemTexts as { count: number }).count;
  return Buffer.from(key === null ? items : `{"${key}":${items},"total":${count}}`);
}

export { SOURCE_NAMES };
