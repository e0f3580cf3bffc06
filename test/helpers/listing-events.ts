import type { ListingEvent } from '../../src/events/types.js';

/**
 * An active MCP registry listing of a streamable-HTTP server at `${origin}/mcp/${i}` (test data);
 * `over` sets what a test tells apart (id, time, item id, name).
 */
export function mcpListing(i: number, origin: string, over: Partial<ListingEvent> = {}): ListingEvent {
  return {
    id: `listing-${i}`,
    observedAt: Date.now(),
    runId: 'crawl',
    fetchId: 'fetch',
    source: 'mcp-registry',
    itemId: `io.github.server${i}/server`,
    protocol: 'mcp',
    name: `Server ${i}`,
    description: 'fault test',
    version: '1.0.0',
    endpointUrl: `${origin}/mcp/${i}`,
    endpointTransport: 'streamable-http',
    cardUrl: null,
    serverJson: null,
    status: 'active',
    invalidReason: null,
    updatedAt: null,
    raw: '{}',
    rawTruncated: false,
    ...over,
  };
}
