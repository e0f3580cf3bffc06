/**
 * The read API over a large index (issues 15 and 16): p50 and p99 latency of every route — agent
 * list, agent page, search, ranked search (GET /search), daily stats, census, dashboard — through the real Fastify app (inject)
 * on the API's own read-only connection, over 100,000 and then 1,000,000 synthetic agents with 90
 * days of daily history each, in one run; then, on the largest index with 100,000,000 raw checks
 * added, the same routes under 8 concurrent clients against the bare ClickHouse queries of each
 * (the very statements and parameters the route ran, recorded, replayed on the same connection by
 * 8 concurrent clients). The index is made with INSERT … SELECT from numbers() into the real tables
 * through the migrations (test/api/synthetic-index.ts), the 1,000,000 by adding 900,000 agents to
 * the first 100,000. Prints the largest p99(1M)/p99(100k) over the routes, and ends with the
 * largest p99(API)/p99(bare) over the routes.
 *
 *   npx tsx bench/api.ts [requests per route, default 30] [sizes, default 100000,1000000] [days, default 90] [checks, default 100000000]
 *
 * Each route's requests vary what they ask for (random agents and cursors, several searches); the
 * routes are taken in turn, after three warm-ups each, once the engine's merges have settled. The
 * data directory is a temporary one, removed at the end.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { encodeCursor } from '../src/api/format.js';
import { buildApi } from '../src/api/server.js';
import { agentId } from '../src/identity/agent-key.js';
import { EmbeddedWarehouse } from '../src/warehouse/embedded.js';
import * as limits from '../src/warehouse/limits.js';
import { migrate } from '../src/warehouse/migrate.js';
import type { QueryParams, ReadOnlyWarehouse } from '../src/warehouse/warehouse.js';
import { addSyntheticAgents, addSyntheticChecks, finishSyntheticIndex, syntheticKey, TOPICS } from '../test/api/synthetic-index.js';

const requests = Number(process.argv[2] ?? 30);
const sizes = (process.argv[3] ?? '100000,1000000').split(',').map(Number);
const days = Number(process.argv[4] ?? 90);
const checksTotal = Number(process.argv[5] ?? 100_000_000);
const CLIENTS = 8;
const CV = 'bench-api-checker';

// The API's connection as the platform opens it (a checkout from before API_CONNECTION: read-only with the deadline).
const lim = limits as Record<string, unknown>;
const apiConnection = (lim.API_CONNECTION as object | undefined) ?? { readOnly: true, timeoutMs: lim.API_QUERY_DEADLINE_MS as number };

// A deterministic generator, so both checkouts ask the same questions.
let seed = 16;
const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
const pick = (n: number) => Math.floor(rand() * n);

type Route = 'agent list' | 'agent page' | 'search' | 'ranked search' | 'daily stats' | 'census' | 'dashboard';
const ROUTES: Record<Route, (n: number) => string> = {
  'agent list': (n) => `/agents?limit=50&cursor=${encodeCursor(syntheticKey(pick(n)))}`,
  // A hidden agent's page is a 404 by design (every 997th synthetic agent, test/api/synthetic-index.ts): ask for listed ones.
  'agent page': (n) => {
    let i = pick(n);
    while (i % 997 === 996) i = pick(n);
    return `/agents/${agentId(syntheticKey(i))}`;
  },
  search: (n) => {
    const k = pick(4);
    const q = k === 0 ? TOPICS[pick(10)]! : k === 1 ? `a${pick(n)}` : k === 2 ? `${TOPICS[pick(10)]} agent ${pick(10)}` : 'developers';
    return `/stats/agents?q=${encodeURIComponent(q.toLowerCase())}`;
  },
  // GET /search (docs/SEARCH.md): words, a sentence, a key being typed, a typo.
  'ranked search': (n) => {
    const k = pick(5);
    const topic = TOPICS[pick(10)]!.toLowerCase();
    const q =
      k === 0
        ? topic
        : k === 1
          ? `a${pick(n)}`
          : k === 2
            ? `${topic} agent ${pick(n)}`
            : k === 3
              ? `a synthetic ${topic} server with tools for developers`
              : 'weathr';
    return `/search?q=${encodeURIComponent(q)}&explain=1`;
  },
  'daily stats': () => '/stats/daily',
  census: () => '/stats/census',
  dashboard: () => '/',
};

const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)]!;
};

/** Waits (up to 10 minutes) until the engine has no merge running, so the figures are not the generation's aftermath. */
async function settle(wh: EmbeddedWarehouse): Promise<void> {
  const t0 = Date.now();
  while (Date.now() - t0 < 600_000) {
    const [m] = await wh.query<{ n: number }>('SELECT toUInt32(count()) AS n FROM system.merges');
    if (Number(m?.n ?? 0) === 0) break;
    await new Promise((r) => setTimeout(r, 1000));
  }
  console.log(`  merges settled in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
}

/**
 * Every route `requests` times after three warm-ups each, the routes taken in turn (round robin),
 * so load from elsewhere on a shared machine falls on every route alike.
 */
async function measure(dir: string, n: number): Promise<Record<Route, { p50: number; p99: number }>> {
  const reader = new EmbeddedWarehouse(dir, apiConnection);
  const app = buildApi({ warehouse: reader });
  await app.ready();
  const routes = Object.entries(ROUTES) as Array<[Route, (n: number) => string]>;
  const times = new Map<Route, number[]>(routes.map(([r]) => [r, []]));
  const out = {} as Record<Route, { p50: number; p99: number }>;
  try {
    for (let i = 0; i < 3; i++) for (const [, url] of routes) await app.inject({ method: 'GET', url: url(n) });
    for (let i = 0; i < requests; i++) {
      for (const [route, url] of routes) {
        const u = url(n);
        const t0 = performance.now();
        const res = await app.inject({ method: 'GET', url: u });
        times.get(route)!.push(performance.now() - t0);
        if (res.statusCode !== 200) throw new Error(`${u}: HTTP ${res.statusCode} ${res.body.slice(0, 200)}`);
      }
    }
    for (const [route] of routes) {
      const xs = times.get(route)!;
      out[route] = { p50: quantile(xs, 0.5), p99: quantile(xs, 0.99) };
      console.log(
        `  ${route.padEnd(12)} p50 ${out[route].p50.toFixed(1).padStart(7)} ms   p99 ${out[route].p99.toFixed(1).padStart(7)} ms`,
      );
    }
  } finally {
    await app.close();
    await reader.close();
  }
  return out;
}

/** A connection that records each statement (and its parameters) it is asked to run. */
class Recording implements ReadOnlyWarehouse {
  calls: Array<[string, QueryParams | undefined]> = [];
  constructor(private readonly inner: EmbeddedWarehouse) {}
  get kind() {
    return this.inner.kind;
  }
  get readOnly() {
    return this.inner.readOnly;
  }
  query<T>(sql: string, params?: QueryParams): Promise<T[]> {
    this.calls.push([sql, params]);
    return this.inner.query<T>(sql, params);
  }
  stream<T>(sql: string, params?: QueryParams): AsyncIterable<T[]> {
    this.calls.push([sql, params]);
    return this.inner.stream<T>(sql, params);
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}

/** Runs `jobs` with `clients` concurrent workers taking the next job in turn; each job's time by its route. */
async function concurrently<J extends { route: Route }>(
  jobs: J[],
  clients: number,
  run: (job: J) => Promise<void>,
): Promise<Map<Route, number[]>> {
  const times = new Map<Route, number[]>();
  let next = 0;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (next < jobs.length) {
        const job = jobs[next++]!;
        const t0 = performance.now();
        await run(job);
        const xs = times.get(job.route) ?? [];
        xs.push(performance.now() - t0);
        times.set(job.route, xs);
      }
    }),
  );
  return times;
}

type Figures = Record<Route, { api: { p50: number; p99: number }; bare: { p50: number; p99: number } }>;

/**
 * Every route under CLIENTS concurrent clients, `requests` × CLIENTS requests each (the routes
 * interleaved), through the API, then the same requests' recorded statements run bare.
 */
async function measureAgainstBare(dir: string, n: number): Promise<Figures> {
  const reader = new EmbeddedWarehouse(dir, apiConnection);
  const recording = new Recording(reader);
  const app = buildApi({ warehouse: recording });
  await app.ready();
  const routes = Object.entries(ROUTES) as Array<[Route, (n: number) => string]>;
  const jobs: Array<{ route: Route; url: string; statements: Array<[string, QueryParams | undefined]> }> = [];
  for (let i = 0; i < requests * CLIENTS; i++) for (const [route, url] of routes) jobs.push({ route, url: url(n), statements: [] });
  try {
    // One pass alone records each request's statements (and warms the caches for both sides).
    for (const job of jobs) {
      recording.calls = [];
      const res = await app.inject({ method: 'GET', url: job.url });
      if (res.statusCode !== 200) throw new Error(`${job.url}: HTTP ${res.statusCode} ${res.body.slice(0, 200)}`);
      job.statements = recording.calls;
    }
    // API and bare in alternating rounds, so load that comes and goes on a shared machine falls on both alike.
    const api = new Map<Route, number[]>();
    const bare = new Map<Route, number[]>();
    const add = (into: Map<Route, number[]>, from: Map<Route, number[]>) => {
      for (const [route, xs] of from) into.set(route, [...(into.get(route) ?? []), ...xs]);
    };
    const ROUNDS = 4;
    for (let r = 0; r < ROUNDS; r++) {
      const round = jobs.filter((_, i) => i % ROUNDS === r);
      add(
        api,
        await concurrently(round, CLIENTS, async (job) => {
          const res = await app.inject({ method: 'GET', url: job.url });
          if (res.statusCode !== 200) throw new Error(`${job.url}: HTTP ${res.statusCode}`);
        }),
      );
      add(
        bare,
        await concurrently(round, CLIENTS, async (job) => {
          for (const [sql, params] of job.statements) await reader.query(sql, params);
        }),
      );
    }
    const out = {} as Figures;
    console.log(`  ${CLIENTS} concurrent clients, ${requests * CLIENTS} requests per route:`);
    for (const [route] of routes) {
      const a = api.get(route)!;
      const b = bare.get(route)!;
      out[route] = { api: { p50: quantile(a, 0.5), p99: quantile(a, 0.99) }, bare: { p50: quantile(b, 0.5), p99: quantile(b, 0.99) } };
      const f = out[route];
      console.log(
        `  ${route.padEnd(12)} API p50 ${f.api.p50.toFixed(1).padStart(7)} ms p99 ${f.api.p99.toFixed(1).padStart(7)} ms` +
          `   bare p50 ${f.bare.p50.toFixed(1).padStart(7)} ms p99 ${f.bare.p99.toFixed(1).padStart(7)} ms   p99/bare ${(f.api.p99 / f.bare.p99).toFixed(2)}`,
      );
    }
    return out;
  } finally {
    await app.close();
    await reader.close();
  }
}

const root = mkdtempSync(join(tmpdir(), 'veronikai-bench-api-'));
const dir = join(root, 'warehouse');
const writer = new EmbeddedWarehouse(dir);
const results: Array<{ n: number; r: Record<Route, { p50: number; p99: number }> }> = [];
let againstBare: Figures;
let checksInIndex: number;
const log = (l: string) => console.log(l);
try {
  await migrate(writer);
  let from = 0;
  for (const n of sizes) {
    console.log(`index of ${n} agents, ${days} days of history each (${requests} requests per route):`);
    const t0 = Date.now();
    await addSyntheticAgents(writer, { from, to: n, days, checkerVersion: CV, log });
    await finishSyntheticIndex(writer, { agents: n, days, checkerVersion: CV, log });
    const [c] = await writer.query<{ h: string }>('SELECT count() AS h FROM agent_daily_history');
    console.log(
      `  generated in ${((Date.now() - t0) / 1000).toFixed(0)} s (${Number(c?.h ?? 0).toLocaleString('en-US')} history rows in all)`,
    );
    from = n;
    await settle(writer);
    results.push({ n, r: await measure(dir, n) });
  }
  const n = sizes[sizes.length - 1]!;
  console.log(`index of ${n} agents with ${checksTotal.toLocaleString('en-US')} raw checks added:`);
  await addSyntheticChecks(writer, { agents: n, total: checksTotal, days, checkerVersion: CV, log });
  const [c] = await writer.query<{ c: string }>('SELECT count() AS c FROM checks');
  checksInIndex = Number(c?.c ?? 0);
  await settle(writer);
  againstBare = await measureAgainstBare(dir, n);
} finally {
  await writer.close();
  rmSync(root, { recursive: true, force: true });
}

const [small, large] = [results[0]!, results[results.length - 1]!];
console.log(`\nroute          p99(${small.n})  p99(${large.n})  ratio`);
let worst = 0;
let worstRoute = '';
for (const route of Object.keys(ROUTES) as Route[]) {
  const ratio = large.r[route].p99 / small.r[route].p99;
  if (ratio > worst) [worst, worstRoute] = [ratio, route];
  console.log(
    `${route.padEnd(14)} ${small.r[route].p99.toFixed(1).padStart(9)} ms ${large.r[route].p99.toFixed(1).padStart(9)} ms  ${ratio.toFixed(2)}`,
  );
}
console.log(
  `api: p99(${large.n === 1_000_000 ? '1M' : large.n})/p99(${small.n === 100_000 ? '100k' : small.n}) max = ${worst.toFixed(2)} ` +
    `(agents ${small.n} and ${large.n}, ${days} days of history each, ${requests} requests per route; worst: ${worstRoute})`,
);
let bareWorst = 0;
let bareRoute = '';
for (const [route, f] of Object.entries(againstBare) as Array<[Route, Figures[Route]]>) {
  const r = f.api.p99 / f.bare.p99;
  if (r > bareWorst) [bareWorst, bareRoute] = [r, route];
}
const w = againstBare[bareRoute as Route];
console.log(
  `api: p99/bare = ${bareWorst.toFixed(2)} (agents ${large.n}, checks ${checksInIndex}, ${CLIENTS} concurrent clients, ` +
    `${requests * CLIENTS} requests per route; worst: ${bareRoute}, p99 ${w.api.p99.toFixed(1)} ms vs bare ${w.bare.p99.toFixed(1)} ms)`,
);
