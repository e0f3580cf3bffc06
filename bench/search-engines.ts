/**
 * Which engine serves the ranked search: p99 of one search at a time over 100,000 and then
 * 1,000,000 synthetic agents (test/api/synthetic-index.ts with its search index), for the index's
 * BM25F in ClickHouse over impact-ordered postings (`rankedSearch` on the embedded engine, the
 * API's read-only connection) and for an in-process library (MiniSearch, BM25 with prefix and
 * fuzzy matching, name boosted) holding the same agents' text in memory, in one run and on the
 * same queries. Also prints the library's build time and heap. Ends with the SQL engine's
 * p99(1M)/p99(100k).
 *
 *   npx tsx bench/search-engines.ts [queries per size, default 200] [sizes, default 100000,1000000]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import MiniSearch from 'minisearch';
import { EmbeddedWarehouse } from '../src/warehouse/embedded.js';
import { API_CONNECTION } from '../src/warehouse/limits.js';
import { migrate } from '../src/warehouse/migrate.js';
import { rankedSearch } from '../src/warehouse/read/ranked-search.js';
import { addSyntheticAgents, TOPICS } from '../test/api/synthetic-index.js';
import { AUDIENCES } from '../test/api/synthetic-search.js';

const queries = Number(process.argv[2] ?? 200);
const sizes = (process.argv[3] ?? '100000,1000000').split(',').map(Number);

let seed = 24;
const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
const pick = (n: number) => Math.floor(rand() * n);
const question = (n: number): string => {
  switch (pick(6)) {
    case 0:
      return TOPICS[pick(10)]!.toLowerCase();
    case 1:
      return `a${pick(n)}`;
    case 2:
      return `${TOPICS[pick(10)]} agent ${pick(n)}`;
    case 3:
      return `a synthetic ${TOPICS[pick(10)]!.toLowerCase()} server with tools for ${AUDIENCES[pick(3)]}`;
    case 4:
      return 'weathr';
    default:
      return 'developers';
  }
};
const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil(q * xs.length) - 1)]!;
const doc = (n: number) => ({
  id: n,
  name: `${TOPICS[n % 10]} Agent ${n}`,
  url: `a${n} example dev mcp`,
  description: `A synthetic ${TOPICS[n % 10]!.toLowerCase()} server with tools for ${AUDIENCES[n % 3]} number ${n % 997}`,
});

const root = mkdtempSync(join(tmpdir(), 'veronikai-bench-search-'));
const dir = join(root, 'warehouse');
const writer = new EmbeddedWarehouse(dir);
const lib = new MiniSearch<ReturnType<typeof doc>>({ fields: ['name', 'url', 'description'], storeFields: [] });
const results: Array<{ n: number; sql: number; js: number }> = [];
try {
  await migrate(writer);
  let from = 0;
  for (const n of sizes) {
    await addSyntheticAgents(writer, { from, to: n, days: 1, checkerVersion: 'bench-search' });
    const t0 = performance.now();
    for (let i = from; i < n; i++) if (i % 50 !== 49 && i % 997 !== 996) lib.add(doc(i));
    const build = performance.now() - t0;
    from = n;
    const reader = new EmbeddedWarehouse(dir, API_CONNECTION);
    const qs = Array.from({ length: queries }, () => question(n));
    const sql: number[] = [];
    const js: number[] = [];
    try {
      for (const q of qs.slice(0, 5)) await rankedSearch(reader, { q, limit: 20, checkerVersion: null });
      for (const q of qs) {
        // Taken in turn, so load from elsewhere falls on both alike.
        let s = performance.now();
        await rankedSearch(reader, { q, limit: 20, checkerVersion: null });
        sql.push(performance.now() - s);
        s = performance.now();
        lib
          .search(q, {
            prefix: (term, i, terms) => i === terms.length - 1,
            fuzzy: (term) => (term.length >= 5 ? 1 : 0),
            boost: { name: 5 },
          })
          .slice(0, 20);
        js.push(performance.now() - s);
      }
    } finally {
      await reader.close();
    }
    const heap = process.memoryUsage().heapUsed / 2 ** 20;
    results.push({ n, sql: quantile(sql, 0.99), js: quantile(js, 0.99) });
    console.log(
      `${n} agents: ClickHouse BM25F p50 ${quantile(sql, 0.5).toFixed(1)} ms p99 ${quantile(sql, 0.99).toFixed(1)} ms; ` +
        `MiniSearch p50 ${quantile(js, 0.5).toFixed(1)} ms p99 ${quantile(js, 0.99).toFixed(1)} ms (built in ${(build / 1000).toFixed(1)} s, heap ${heap.toFixed(0)} MiB)`,
    );
  }
} finally {
  await writer.close();
  rmSync(root, { recursive: true, force: true });
}
const [small, large] = [results[0]!, results[results.length - 1]!];
console.log(
  `search-engines: p99 sql(${large.n})/sql(${small.n}) = ${(large.sql / small.sql).toFixed(2)} ` +
    `(queries ${queries} per size; sql p99 ${small.sql.toFixed(1)} → ${large.sql.toFixed(1)} ms, minisearch p99 ${small.js.toFixed(1)} → ${large.js.toFixed(1)} ms)`,
);
