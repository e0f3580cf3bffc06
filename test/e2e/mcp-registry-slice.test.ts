import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApi } from '../../src/api/server.js';
import { eventCodec } from '../../src/events/codec.js';
import type { ListingEvent } from '../../src/events/types.js';
import { agentId } from '../../src/identity/agent-key.js';
import { createEventProducer, type EventProducer } from '../../src/kafka/producer.js';
import { createDedupeProcessor } from '../../src/processors/dedupe.js';
import { createSourceFetchLog } from '../../src/processors/source-fetch-log.js';
import { KafkaObservationSink } from '../../src/producers/kafka-sink.js';
import { createPageFetcher } from '../../src/producers/sources/http-page-fetcher.js';
import { createMcpRegistrySource } from '../../src/producers/sources/mcp-registry.js';
import { runSource } from '../../src/producers/sources/runner.js';
import { MemorySourceStateStore } from '../../src/producers/sources/state.js';
import { waitUntilConsumed } from '../../src/kafka/lag.js';
import { EmbeddedWarehouse } from '../../src/warehouse/embedded.js';
import { entry, faults, startFixtureRegistry, type FixtureRegistry } from '../helpers/fixture-mcp-registry.js';
import { setupKafkaTest, testLogger, uniqueGroupId, type KafkaTestContext } from '../helpers/kafka.js';
import { withWarehouse, type TestWarehouse } from '../helpers/warehouse.js';

/**
 * The foundation's vertical slice over a real broker and the real ClickHouse engine:
 * fixture registry pages → source-fetch and listing events on Kafka → dedupe
 * processor → listings and agents in ClickHouse → the API's JSON.
 */

const REMOTES = 120;
function registryEntries() {
  const entries = Array.from({ length: REMOTES }, (_, i) =>
    entry(`io.github.org${String(i).padStart(3, '0')}/server`, { remoteUrl: `https://mcp${i}.example.org/mcp` }),
  );
  // Two registry names that declare the same remote under different spellings: one agent.
  entries.push(entry('io.github.alias/upper', { remoteUrl: 'https://MCP7.example.org:443/mcp/' }));
  entries.push(entry('io.github.local/pkg-only', { remoteUrl: null }));
  return entries;
}

describe('MCP Registry slice: fixture pages → Kafka → ClickHouse → API', () => {
  let ctx: KafkaTestContext;
  let registry: FixtureRegistry;
  let producer: EventProducer;
  let t: TestWarehouse;
  /** The migrated warehouse directory, opened in turn by the worker processes and this one. */
  let dataDir: string;
  const log = testLogger('slice');
  const state = new MemorySourceStateStore();

  beforeAll(async () => {
    ctx = await setupKafkaTest(import.meta.url, { maxPartitions: 1 });
    registry = await startFixtureRegistry(registryEntries());
    producer = await createEventProducer(ctx.kafka);
    t = await withWarehouse('slice');
    dataDir = join(t.dir, 'warehouse');
    // Free the directory for the workers' own chdb sessions; t.close() in afterAll removes it.
    await t.wh.close();
  });
  afterAll(async () => {
    await producer?.close();
    await registry?.close();
    await ctx?.cleanup();
    await t?.close();
  });

  const crawl = (full = true) =>
    runSource(
      createMcpRegistrySource(),
      {
        fetch: createPageFetcher({ contact: 'test@veronikai.invalid', trustedHosts: ['127.0.0.1'], maxRetries: 0 }),
        sink: new KafkaObservationSink(producer, ctx.topics),
        state,
        log,
        limits: { pageTimeoutMs: 1500 },
      },
      { runId: `run-${Date.now()}`, baseUrl: registry.url, full },
    );

  /** Runs the dedupe processor in a child process (its own chdb session on dataDir). */
  const worker = (group: string, crashAfterSink: boolean) =>
    new Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'dedupe-worker.ts')], {
        env: {
          ...process.env,
          BROKERS: ctx.brokers,
          PREFIX: ctx.prefix,
          GROUP: group,
          DATA_DIR: dataDir,
          CRASH_AFTER_SINK: crashAfterSink ? '1' : '0',
        },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      const timer = setTimeout(() => child.kill('SIGKILL'), 45_000);
      child.on('exit', (code, signal) => {
        clearTimeout(timer);
        resolve({ code, signal, stderr });
      });
    });

  const snapshot = async () => {
    const wh = new EmbeddedWarehouse(dataDir);
    try {
      const agents = await wh.query<{ agent_key: string; sources: string[]; name: string; active: number }>(
        'SELECT agent_key, sources, name, active FROM agents FINAL ORDER BY agent_key',
      );
      const listings = await wh.query<{ n: number }>('SELECT toUInt32(count()) AS n FROM listings FINAL');
      const physical = await wh.query<{ n: number }>('SELECT toUInt32(count()) AS n FROM agents');
      return { agents, listings: listings[0]!.n, physicalAgentRows: physical[0]!.n };
    } finally {
      await wh.close();
    }
  };

  let group: string;

  it('writes one source-fetch event per page and one listing event per item, read back by a separate consumer', async () => {
    const summary = await crawl();
    expect(summary).toMatchObject({ complete: true, pages: 2, items: REMOTES + 2, errors: 0 });

    const seen: ListingEvent[] = [];
    const fetches: string[] = [];
    const consumer = ctx.kafka.consumer({ groupId: uniqueGroupId('reader') });
    await consumer.connect();
    await consumer.subscribe({ topics: [ctx.topics.listings, ctx.topics.sourceFetches], fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ topic, message }) => {
        const ev = eventCodec().decode(message.value);
        if (topic === ctx.topics.listings && ev.name === 'Listing') seen.push(ev.value);
        if (topic === ctx.topics.sourceFetches && ev.name === 'SourceFetch') fetches.push(ev.value.url);
      },
    });
    const deadline = Date.now() + 20_000;
    while ((seen.length < REMOTES + 2 || fetches.length < 2) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    await consumer.disconnect();
    expect(fetches).toHaveLength(2);
    expect(seen).toHaveLength(REMOTES + 2);
    expect(new Set(seen.map((l) => l.itemId)).size).toBe(REMOTES + 2);
    expect(seen.find((l) => l.itemId === 'io.github.org005/server')).toMatchObject({
      source: 'mcp-registry',
      protocol: 'mcp',
      endpointUrl: 'https://mcp5.example.org/mcp',
      status: 'active',
    });
  });

  it('survives a crash between the insert and the offset commit without a visible duplicate', { timeout: 120_000 }, async () => {
    group = uniqueGroupId('dedupe');
    const crashed = await worker(group, true);
    expect(crashed.signal, crashed.stderr).toBe('SIGKILL');
    const offsets = await (async () => {
      const admin = ctx.kafka.admin();
      await admin.connect();
      const r = await admin.fetchOffsets({ groupId: group, topics: [ctx.topics.listings] });
      await admin.disconnect();
      return r[0]!.partitions.map((p) => p.offset);
    })();
    expect(offsets).toEqual(['-1']); // nothing committed: the batch will be read again
    const afterCrash = await snapshot();
    // The sink did write before the kill: 121 agents (two registry names share one remote; pkg-only has none).
    expect(afterCrash.agents).toHaveLength(REMOTES);
    expect(afterCrash.listings).toBe(REMOTES + 2);

    const restarted = await worker(group, false);
    expect(restarted.code, restarted.stderr).toBe(0);
    const afterRestart = await snapshot();
    expect(afterRestart.agents).toEqual(afterCrash.agents);
    expect(afterRestart.listings).toBe(afterCrash.listings);
    // The batch was written twice physically; queries (FINAL) see it once.
    expect(afterRestart.physicalAgentRows).toBeGreaterThan(afterRestart.agents.length);
  });

  it('merges differently spelled remotes into one agent that records its source', async () => {
    const { agents } = await snapshot();
    const seven = agents.find((a) => a.agent_key === 'https://mcp7.example.org/mcp')!;
    expect(seven.sources).toEqual(['mcp-registry']);
    expect(agents.filter((a) => a.agent_key.includes('mcp7.'))).toHaveLength(1);
  });

  it('serves the agents as paged JSON, and the same input twice adds no duplicates', async () => {
    // Crawl the same registry again; the processor (in process this time) catches up.
    expect((await crawl()).complete).toBe(true);
    const wh = new EmbeddedWarehouse(dataDir);
    try {
      const runner = createDedupeProcessor({ kafka: ctx.kafka, warehouse: wh, topics: ctx.topics, logger: log, groupId: group });
      await runner.start();
      await waitUntilConsumed(ctx.kafka, group, [ctx.topics.listings], 60_000);
      await runner.stop();

      const api = buildApi({ warehouse: wh });
      const ids: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const res = await api.inject({ method: 'GET', url: `/agents?limit=50${cursor ? `&cursor=${cursor}` : ''}` });
        expect(res.statusCode).toBe(200);
        const body = res.json() as { agents: Array<{ id: string; key: string; sources: string[] }>; nextCursor: string | null };
        ids.push(...body.agents.map((a) => a.id));
        cursor = body.nextCursor;
        pages += 1;
      } while (cursor);
      expect(pages).toBe(3);
      expect(ids).toHaveLength(REMOTES);
      expect(new Set(ids).size).toBe(REMOTES);

      const one = await api.inject({ method: 'GET', url: `/agents/${agentId('https://mcp7.example.org/mcp')}` });
      expect(one.statusCode).toBe(200);
      const agent = one.json() as {
        key: string;
        sources: string[];
        firstSeen: string;
        sourceFirstSeen: Record<string, string>;
        listings: Array<{ itemId: string; lastSeen: string }>;
      };
      expect(agent.key).toBe('https://mcp7.example.org/mcp');
      // Every time the API serves is ISO 8601 UTC.
      const iso = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
      expect(agent.firstSeen).toMatch(iso);
      expect(agent.sourceFirstSeen['mcp-registry']).toMatch(iso);
      expect(agent.listings[0]!.lastSeen).toMatch(iso);
      expect(agent.sources).toEqual(['mcp-registry']);
      expect(agent.listings.map((l) => l.itemId).sort()).toEqual(['io.github.alias/upper', 'io.github.org007/server']);

      expect((await api.inject({ method: 'GET', url: '/agents/0000000000000000' })).statusCode).toBe(404);
      expect((await api.inject({ method: 'GET', url: '/agents?limit=0' })).statusCode).toBe(400);
      const health = await api.inject({ method: 'GET', url: '/healthz' });
      expect(health.json()).toMatchObject({ status: 'ok', warehouse: 'embedded' });
      await api.close();
    } finally {
      await wh.close();
    }
  });

  it('records a failing page and keeps everything already written', async () => {
    registry.faultAt.set(registry.listRequests + 2, faults.status(502));
    const summary = await crawl();
    expect(summary).toMatchObject({ complete: false, errors: 1 });
    expect(summary.failure).toMatch(/^http_5xx/);
    const { agents } = await snapshot();
    expect(agents).toHaveLength(REMOTES);
    expect(agents.every((a) => a.active === 1)).toBe(true);
  });

  it('logs every page request, failures with their reason, into source_fetches', async () => {
    const wh = new EmbeddedWarehouse(dataDir);
    try {
      const g = uniqueGroupId('fetch-log');
      const runner = createSourceFetchLog({ kafka: ctx.kafka, warehouse: wh, topics: ctx.topics, logger: log, groupId: g });
      await runner.start();
      await waitUntilConsumed(ctx.kafka, g, [ctx.topics.sourceFetches], 60_000);
      await runner.stop();
      const rows = await wh.query<{ ok: number; error_class: string; status: number | null; n: number }>(
        'SELECT ok, error_class, status, toUInt32(count()) AS n FROM source_fetches FINAL GROUP BY ok, error_class, status ORDER BY ok',
      );
      expect(rows).toEqual([
        { ok: 0, error_class: 'http_5xx', status: 502, n: 1 },
        { ok: 1, error_class: '', status: 200, n: 5 },
      ]);
    } finally {
      await wh.close();
    }
  });

  it('sends an undecodable listing message to the dead-letter topic with its reason and goes on', async () => {
    await producer.send(ctx.topics.listings, [
      { key: 'mcp-registry:junk', value: Buffer.from('{"not":"avro"}') },
      { key: 'mcp-registry:late', value: eventCodec().encode('Listing', lateListing()) },
    ]);
    const wh = new EmbeddedWarehouse(dataDir);
    try {
      const runner = createDedupeProcessor({ kafka: ctx.kafka, warehouse: wh, topics: ctx.topics, logger: log, groupId: group });
      await runner.start();
      await waitUntilConsumed(ctx.kafka, group, [ctx.topics.listings], 60_000);
      await runner.stop();
      expect(runner.stats.dlq).toBe(1);
      const [late] = await wh.query<{ sources: string[] }>(
        "SELECT sources FROM agents FINAL WHERE agent_key = 'https://late.example.org/mcp'",
      );
      expect(late?.sources).toEqual(['mcp-registry']);
    } finally {
      await wh.close();
    }
    const dead: Array<{ reason: string; origin: string }> = [];
    const consumer = ctx.kafka.consumer({ groupId: uniqueGroupId('dlq-reader') });
    await consumer.connect();
    await consumer.subscribe({ topic: ctx.topics.deadLetters, fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ message }) => {
        dead.push({ reason: String(message.headers?.['dlq-reason']), origin: String(message.headers?.['dlq-origin-topic']) });
      },
    });
    const deadline = Date.now() + 20_000;
    while (dead.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    await consumer.disconnect();
    expect(dead).toEqual([{ reason: expect.stringMatching(/^not_single_object/), origin: ctx.topics.listings }]);
  });
});

function lateListing(): ListingEvent {
  return {
    id: 'late-1',
    observedAt: Date.now(),
    runId: 'manual',
    fetchId: 'none',
    source: 'mcp-registry',
    itemId: 'io.github.late/server',
    protocol: 'mcp',
    name: 'Late',
    description: 'Arrives after a malformed message',
    version: '1.0.0',
    endpointUrl: 'https://late.example.org/mcp',
    endpointTransport: 'streamable-http',
    cardUrl: null,
    serverJson: null,
    status: 'active',
    invalidReason: null,
    updatedAt: null,
    raw: '{}',
    rawTruncated: false,
  };
}
