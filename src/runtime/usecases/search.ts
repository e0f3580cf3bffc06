import { CHECKER_VERSION } from '../../conformance/version.js';
import type { Config } from '../../config.js';
import { openRawReader, warehouseOver } from '../instance-query.js';
import { checkerVersionServed, checkerVersionShown } from '../../warehouse/read/checker-version.js';
import { rankedSearch, type SearchFilters, type SearchResult } from '../../warehouse/read/ranked-search.js';

/**
 * `veronikai search`: the ranked search (docs/SEARCH.md) over the configured embedded warehouse,
 * through the running instance when one holds it, with the checker version the API serves.
 */
export async function searchIndex(
  config: Config,
  q: string,
  opts: { filters?: SearchFilters; limit: number; offset?: number },
): Promise<SearchResult & { checkerVersion: string }> {
  const { reader } = await openRawReader(config, { timeoutMs: 30_000 });
  const wh = warehouseOver(reader);
  try {
    const checkerVersion = (await checkerVersionServed(wh)) ?? (await checkerVersionShown(wh)) ?? CHECKER_VERSION;
    return {
      checkerVersion,
      ...(await rankedSearch(wh, { q, checkerVersion, limit: opts.limit, offset: opts.offset ?? 0, filters: opts.filters })),
    };
  } finally {
    await reader.close();
  }
}
