import type { ListingEvent } from '../../src/events/types.js';

/** What a test listing carries unless it says otherwise: an active MCP registry item, streamable HTTP. */
const LISTING_DEFAULTS = {
  runId: 'r',
  fetchId: 'f',
  source: 'mcp-registry',
  protocol: 'mcp',
  description: 'A server',
  version: '1.0.0',
  endpointTransport: 'streamable-http',
  cardUrl: null,
  serverJson: null,
  status: 'active',
  invalidReason: null,
  updatedAt: null,
  raw: '{}',
  rawTruncated: false,
} as const satisfies Partial<ListingEvent>;

/** A listing event (test data): the fields a test tells apart, over LISTING_DEFAULTS. */
export function listingEvent(
  fields: Pick<ListingEvent, 'id' | 'observedAt' | 'itemId' | 'name' | 'endpointUrl'> & Partial<ListingEvent>,
): ListingEvent {
  return { ...LISTING_DEFAULTS, ...fields };
}

/**
 * An active MCP registry listing of a streamable-HTTP server at `${origin}/mcp/${i}` (test data);
 * `over` sets what a test tells apart (id, time, item id, name).
 */
export function mcpListing(i: number, origin: string, over: Partial<ListingEvent> = {}): ListingEvent {
  return listingEvent({
    id: `listing-${i}`,
    observedAt: Date.now(),
    runId: 'crawl',
    fetchId: 'fetch',
    itemId: `io.github.server${i}/server`,
    name: `Server ${i}`,
    description: 'fault test',
    endpointUrl: `${origin}/mcp/${i}`,
    ...over,
  });
}
