/**
 * The MCP Registry at its real size through the crawl and the dedupe processor (issue 15).
 *
 *   npx tsx bench/crawl.ts [version records, default 83000]
 *
 * A registry emulator (in this process) holds RECORDS version records, 3 versions per server
 * (so about 27,700 servers), about 55% of the servers with a remote endpoint, 2% of them deleted,
 * and answers GET /v0.1/servers as the official registry does (test/helpers/fixture-mcp-registry.ts
 * is the reference: opaque cursors, `metadata.nextCursor`, pages of at most 100, `version=latest`,
 * `updated_since` including deleted rows), from indexes built once, so the emulator costs little.
 *
 * The real crawl (src/runtime/crawl.ts crawlOnce, the mcp-registry source, page delay 0, no page
 * budget) reads it into a real Kafka topic: a full pass, then (after 1% more servers are
 * deleted and 3% updated) an incremental pass whose deleted rows become tombstones. Then the
 * real dedupe processor (src/processors/dedupe.ts) reads the whole listings topic into the
 * embedded warehouse (chdb), committing as it goes; it is timed until its group has committed
 * every message.
 *
 * Figures: the crawl's wall time beyond the pacing (the page delay is 0, so all of it), its
 * events/s, dedupe's events/s, the peak RSS of this process in each phase (it holds the
 * emulator, the crawl, the Kafka client and the embedded warehouse). The ratio is dedupe's
 * throughput over the crawl's: at R ≥ 1 the processor keeps up with the crawl, so it never
 * limits it (a crawl is also paced at 250 ms a page in production, 4 pages a second).
 *
 * The broker: VERONIKAI_KAFKA_BROKERS when set, else a local one started for the run
 * (src/stack/kafka/) and stopped at the end. Topics get a prefix of their own.
 */
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/config.js';
import { lagOf, spanTotal, topicSpans } from '../src/kafka/lag.js';
import { createLogger } from '../src/log.js';
import { createProcessors } from '../src/processors/index.js';
import { SOURCE_LIMITS } from '../src/producers/sources/limits.js';
import type { SourceSummary } from '../src/producers/sources/index.js';
import { startPlatform } from '../src/runtime/platform.js';
import { crawl } from '../src/runtime/roles.js';
import { freePort, startBroker, type BrokerHandle } from '../src/stack/kafka/index.js';
import { entry, type RegistryEntry } from '../test/helpers/fixture-mcp-registry.js';

const RECORDS = Number(process.argv[2] ?? 83_000);
const VERSIONS = 3;
const PAGE = 100;
const OFFICIAL = 'io.modelcontextprotocol.registry/official';

// ---- the emulator ----

interface Row {
  /** Sort key: name, then version (as the registry pages). */
  key: string;
  e: RegistryEntry;
}

const meta = (e: RegistryEntry) => e._meta[OFFICIAL];

/** RECORDS version records: server k has versions 1.0.0 … 1.(VERSIONS-1).0, the last one latest. */
function makeRecords(n: number): { rows: Row[]; servers: number } {
  const rows: Row[] = [];
  const servers = Math.ceil(n / VERSIONS);
  for (let k = 0; k < servers; k++) {
    const versions = Math.min(VERSIONS, n - k * VERSIONS);
    const ns = `io.github.owner${k % 9000}`;
    const name = `${ns}/server-${k.toString(36)}`;
    const remote = k % 20 < 11; // ~55% with a remote endpoint, as the real registry (14,000 of 25,000)
    for (let v = 0; v < versions; v++) {
      const latest = v === versions - 1;
      const e = entry(name, {
        version: `1.${v}.0`,
        description: `An MCP server for ${['issues', 'calendars', 'databases', 'search', 'documents', 'payments'][k % 6]} (server ${k}), version ${v}`,
        updatedAt: new Date(Date.UTC(2025, 8, 1) + k * 60_000 + v * 1000).toISOString(),
        status: latest && k % 50 === 7 ? 'deleted' : 'active',
        isLatest: latest,
        remoteUrl: remote
          ? `https://mcp-${k.toString(36)}.${['example.com', 'example.net', 'example.org'][k % 3]}/${k % 4 === 0 ? 'sse' : 'mcp'}`
          : null,
        type: remote && k % 4 === 0 ? 'sse' : 'streamable-http',
        extra: {
          ...(k % 3 === 0 ? { websiteUrl: `https://owner${k % 9000}.example.com/` } : {}),
          packages: [
            {
              registryType: k % 2 === 0 ? 'npm' : 'pypi',
              identifier: k % 2 === 0 ? `@owner${k % 9000}/server-${k.toString(36)}` : `server-${k.toString(36)}`,
              version: `1.${v}.0`,
              transport: { type: 'stdio' },
              environmentVariables: k % 5 === 0 ? [{ name: 'API_KEY', description: 'Your API key', isRequired: true, isSecret: true }] : [],
            },
          ],
        },
      });
      rows.push({ key: `${name}\u0000${String(v).padStart(4, '0')}`, e });
    }
  }
  rows.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return { rows, servers };
}

interface Emulator {
  url: string;
  listRequests: number;
  /** Deletes and updates a share of the servers (their latest record), as of now. */
  mutate(deleteEvery: number, updateEvery: number): { deleted: number; updated: number };
  close(): Promise<void>;
}

async function startEmulator(rows: Row[]): Promise<Emulator> {
  // Views by query, built once per distinct query and reused for every page of it.
  const views = new Map<string, Row[]>();
  const view = (latest: boolean, includeDeleted: boolean, since: number | null): Row[] => {
    const id = `${latest}|${includeDeleted}|${since}`;
    let v = views.get(id);
    if (!v) {
      v = rows.filter(
        (r) =>
          (!latest || meta(r.e).isLatest) &&
          (includeDeleted || meta(r.e).status !== 'deleted') &&
          (since === null || Date.parse(meta(r.e).updatedAt) > since),
      );
      views.set(id, v);
    }
    return v;
  };
  const send = (res: ServerResponse, status: number, body: unknown): void => {
    const text = JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    res.end(text);
  };
  const state = { listRequests: 0 };
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://registry');
    if (url.pathname === '/robots.txt') return send(res, 404, { title: 'Not Found', status: 404 });
    if (url.pathname !== '/v0.1/servers') return send(res, 404, { title: 'Not Found', status: 404 });
    state.listRequests++;
    const q = url.searchParams;
    const limit = q.has('limit') ? Number(q.get('limit')) : 30;
    if (!Number.isInteger(limit) || limit < 1 || limit > PAGE) return send(res, 422, { title: 'Unprocessable Entity', status: 422 });
    const sinceText = q.get('updated_since');
    const since = sinceText === null ? null : Date.parse(sinceText);
    if (since !== null && Number.isNaN(since))
      return send(res, 400, { title: 'Bad Request', status: 400, detail: 'invalid updated_since format' });
    const v = view(q.get('version') === 'latest', since !== null || q.get('include_deleted') === 'true', since);
    let from = 0;
    const cursor = q.get('cursor');
    if (cursor) {
      let after: string;
      try {
        after = (JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { after: string }).after;
      } catch {
        return send(res, 400, { title: 'Bad Request', status: 400, detail: 'invalid cursor' });
      }
      // First row after the cursor's key (binary search over the sorted view).
      let lo = 0;
      let hi = v.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (v[mid]!.key <= after) lo = mid + 1;
        else hi = mid;
      }
      from = lo;
    }
    const page = v.slice(from, from + limit);
    const metadata: Record<string, unknown> = { count: page.length };
    if (from + limit < v.length)
      metadata.nextCursor = Buffer.from(JSON.stringify({ after: page[page.length - 1]!.key })).toString('base64url');
    send(res, 200, { servers: page.map((r) => r.e), metadata });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get listRequests() {
      return state.listRequests;
    },
    mutate(deleteEvery, updateEvery) {
      const now = new Date().toISOString();
      let deleted = 0;
      let updated = 0;
      let k = 0;
      for (const r of rows) {
        const m = meta(r.e);
        if (!m.isLatest || m.status === 'deleted') continue;
        k++;
        if (k % deleteEvery === 3) {
          m.status = 'deleted';
          m.updatedAt = now;
          deleted++;
        } else if (k % updateEvery === 5) {
          r.e.server.description = `${String(r.e.server.description)} (updated)`;
          m.updatedAt = now;
          updated++;
        }
      }
      views.clear();
      return { deleted, updated };
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

// ---- run ----

const mb = (b: number): string => `${Math.round(b / 2 ** 20)} MB`;
const fmt = (x: number, d = 0): string => x.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });

/** The largest RSS of this process between start() and stop(), sampled every 50 ms. */
function rssPeak(): { stop: () => number } {
  let peak = process.memoryUsage().rss;
  const t = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 50);
  return {
    stop: () => {
      clearInterval(t);
      return Math.max(peak, process.memoryUsage().rss);
    },
  };
}

async function main(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'veronikai-bench-crawl-'));
  let broker: BrokerHandle | null = null;
  let brokers = process.env.VERONIKAI_KAFKA_BROKERS?.trim() ?? '';
  const log = createLogger('bench-crawl', { level: 'warn' });
  const t0 = performance.now();
  const { rows, servers } = makeRecords(RECORDS);
  const emulator = await startEmulator(rows);
  const deletedAtStart = rows.filter((r) => meta(r.e).isLatest && meta(r.e).status === 'deleted').length;
  console.log(`VeronikAI crawl benchmark: node ${process.version}`);
  console.log(
    `registry emulator: ${fmt(rows.length)} version records, ${fmt(servers)} servers (${VERSIONS} versions each), ` +
      `${fmt(deletedAtStart)} deleted; pages of ${PAGE}; built in ${fmt((performance.now() - t0) / 1000, 1)} s`,
  );
  try {
    if (!brokers) {
      const port = await freePort();
      const controllerPort = await freePort([port]);
      console.log('starting a local broker (src/stack/kafka/)…');
      broker = await startBroker({
        dataDir: join(root, 'broker'),
        cacheDir: loadConfig().cacheDir,
        port,
        controllerPort,
        logger: log,
        heap: '1g',
      });
      brokers = broker.brokers;
    }
    const config = loadConfig(
      {
        dataDir: join(root, 'data'),
        brokers,
        sourceUrl: [`mcp-registry=${emulator.url}`],
        pageDelay: ['mcp-registry=0ms'],
        maxPages: ['mcp-registry=*'],
        canaryUrl: [],
      },
      {},
    );
    const prefix = `bench-crawl-${Date.now()}.`;
    const platform = await startPlatform(config, {
      log,
      clientId: 'bench-crawl',
      api: false,
      processors: false,
      probes: false,
      topicPrefix: prefix,
    });
    try {
      const topic = platform.kafka.topics.listings;
      const admin = platform.kafka.kafka.admin();
      await admin.connect();

      // A new topic's partitions take a moment to get a leader on a fresh broker; wait for them, so the
      // crawl is not timed with the producer's first retries.
      for (const t0 = Date.now(); Date.now() - t0 < 30_000;) {
        const md = await admin.fetchTopicMetadata({ topics: Object.values(platform.kafka.topics) });
        if (md.topics.every((tp) => tp.partitions.every((p) => p.leader >= 0))) break;
        await new Promise((r) => setTimeout(r, 200));
      }
      await new Promise((r) => setTimeout(r, 2000));

      // Phase 1: the crawl (a full pass, then changes, then an incremental pass).
      const passes: Array<{ s: SourceSummary; ms: number }> = [];
      const crawlRss = rssPeak();
      let t = performance.now();
      const [full] = await crawl(platform, { sources: ['mcp-registry'], full: true });
      passes.push({ s: full!, ms: performance.now() - t });
      const changes = emulator.mutate(100, 33);
      t = performance.now();
      const [incr] = await crawl(platform, { sources: ['mcp-registry'] });
      passes.push({ s: incr!, ms: performance.now() - t });
      const crawlPeak = crawlRss.stop();
      const crawlMs = passes.reduce((a, p) => a + p.ms, 0);
      const events = Number(spanTotal(await topicSpans(admin, topic)));
      for (const { s, ms } of passes) {
        console.log(
          `crawl ${s.mode.padEnd(11)} ${fmt(ms / 1000, 2).padStart(6)} s: ${fmt(s.pages)} pages, ${fmt(s.items)} items (new ${fmt(s.new)}, changed ${fmt(s.changed)}, delisted ${fmt(s.delisted)}, invalid ${fmt(s.invalid)}), ` +
            `${s.complete ? 'complete' : `INCOMPLETE: ${s.failure}`}`,
        );
      }
      console.log(`  between the passes: ${fmt(changes.deleted)} servers deleted, ${fmt(changes.updated)} updated`);
      if (!passes.every((p) => p.s.complete)) throw new Error('a crawl pass was incomplete');
      const pages = passes.reduce((a, p) => a + p.s.pages, 0);
      console.log(
        `  (at the production page delay, ${SOURCE_LIMITS.defaultPageDelayMs} ms, these ${fmt(pages)} pages would add ${fmt((pages * SOURCE_LIMITS.defaultPageDelayMs) / 1000, 1)} s of pacing)`,
      );
      const crawlRate = events / (crawlMs / 1000);
      console.log(
        `crawl: ${fmt(events)} listing events in ${fmt(crawlMs / 1000, 2)} s, all of it beyond the pacing (page delay 0), ${fmt(crawlRate)} events/s; ` +
          `peak RSS ${mb(crawlPeak)}`,
      );

      // Phase 2: dedupe over the whole topic.
      const deps = {
        kafka: platform.kafka.kafka,
        warehouse: platform.warehouse,
        topics: platform.kafka.topics,
        logger: log,
        sign: generateKeyPairSync('ed25519').privateKey,
        groupPrefix: prefix,
      };
      const [dedupe] = createProcessors(deps, ['dedupe']);
      const dedupeRss = rssPeak();
      t = performance.now();
      await dedupe!.start();
      const spans = new Map([[topic, await topicSpans(admin, topic)]]);
      // Timed from its first commit (the group's join is not its throughput) to its last.
      let first: { at: number; behind: number } | null = null;
      for (;;) {
        const behind = Number(await lagOf(admin, dedupe!.groupId, [topic], spans));
        if (first === null && behind < events) first = { at: performance.now(), behind };
        if (behind === 0) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      const dedupeAllMs = performance.now() - t;
      const dedupeMs = performance.now() - first!.at;
      const dedupePeak = dedupeRss.stop();
      await dedupe!.stop();
      const dedupeRate = first!.behind / (dedupeMs / 1000);
      const [agents] = await platform.warehouse.query<{ all: string; active: string }>(
        'SELECT toUInt64(count()) AS all, toUInt64(countIf(active)) AS active FROM agents FINAL',
      );
      const [listings] = await platform.warehouse.query<{ n: string }>('SELECT toUInt64(count()) AS n FROM listings FINAL');
      console.log(
        `dedupe: ${fmt(events)} events in ${fmt(dedupeAllMs / 1000, 2)} s from its start (the group's join included); ${fmt(first!.behind)} of them between its first and last commit in ${fmt(dedupeMs / 1000, 2)} s: ${fmt(dedupeRate)} events/s; ` +
          `peak RSS ${mb(dedupePeak)}`,
      );
      console.log(
        `  warehouse: ${fmt(Number(listings?.n ?? 0))} listings, ${fmt(Number(agents?.all ?? 0))} agents (${fmt(Number(agents?.active ?? 0))} active)`,
      );
      await admin.disconnect();

      const r = dedupeRate / crawlRate;
      console.log('');
      console.log(
        `crawl: dedupe/crawl = ${r.toFixed(2)} (records ${rows.length}, servers ${servers}, events ${events}, crawl ${fmt(crawlMs / 1000, 1)} s, ` +
          `${fmt(crawlRate)} events/s, dedupe ${fmt(dedupeRate)} events/s, peak RSS ${mb(crawlPeak)} crawl / ${mb(dedupePeak)} dedupe)`,
      );
    } finally {
      await platform.close();
    }
  } finally {
    await emulator.close();
    await broker?.stop(15_000);
    rmSync(root, { recursive: true, force: true });
  }
}

await main();
