/**
 * Search relevance: nDCG@10 of the index's ranked search against a stock BM25 engine (MiniSearch
 * with its defaults: one BM25 over the same text, its own tokenizer, no stemming, no field
 * weights) on the same agents and queries, in one run.
 *
 * The agents are the shared corpus's real ones (A2A cards, server.json files, MCP Registry items;
 * test/helpers/search-corpus.ts). The judgements are labels someone else assigned: the skill tags
 * the cards' authors gave. Each tag carried by two or more cards is a query (hyphens read as
 * spaces), the cards carrying it are its relevant agents, and the tags themselves are held out of
 * the indexed text of both engines, so an agent is found by what it says of itself.
 *
 *   npx tsx bench/search.ts
 *
 * The index side runs through the real path: corpus rows written to an embedded warehouse, the
 * index writer, then `rankedSearch` on the same connection.
 */
import MiniSearch from 'minisearch';
import { rankedSearch } from '../src/warehouse/read/ranked-search.js';
import { searchDocument } from '../src/warehouse/search/fields.js';
import { corpusAgents, corpusMissing, labelQueries, loadCorpus, ndcgAt } from '../test/helpers/search-corpus.js';
import { withWarehouse } from '../test/helpers/warehouse.js';

const K = 10;
const missing = corpusMissing();
if (missing) {
  console.error(`search: ${missing}`);
  process.exit(2);
}
const agents = corpusAgents();
const queries = labelQueries(agents);

// The stock engine: every field's text in one, as a plain full-text engine would be given it.
const stock = new MiniSearch<{ id: string; text: string }>({ fields: ['text'], storeFields: [] });
stock.addAll(agents.map((a) => ({ id: a.key, text: Object.values(searchDocument(a.source).fields).join('\n') })));

const t = await withWarehouse('bench-search');
let ours = 0;
let base = 0;
try {
  await loadCorpus(t.wh, agents);
  console.log(`query                      index  bm25   relevant`);
  for (const { q, relevant } of queries) {
    const r = await rankedSearch(t.wh, { q, limit: K, checkerVersion: null });
    const a = ndcgAt(
      K,
      r.hits.map((h) => h.key),
      relevant,
    );
    const b = ndcgAt(
      K,
      stock.search(q).map((h) => String(h.id)),
      relevant,
    );
    ours += a;
    base += b;
    console.log(`${q.padEnd(26)} ${a.toFixed(3)}  ${b.toFixed(3)}  ${relevant.size}`);
  }
} finally {
  await t.close();
}
ours /= queries.length;
base /= queries.length;
console.log(`\nmean nDCG@${K}: index ${ours.toFixed(3)}, stock BM25 ${base.toFixed(3)}`);
console.log(
  `search: index/bm25 nDCG@10 = ${(ours / base).toFixed(2)} (queries ${queries.length}, agents ${agents.length}; index ${ours.toFixed(3)}, bm25 ${base.toFixed(3)})`,
);
