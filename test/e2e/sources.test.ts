import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApi } from '../../src/api/server.js';
import { loadConfig, type Config } from '../../src/config.js';
import { agentId } from '../../src/identity/agent-key.js';
import { createEventProducer, type EventProducer } from '../../src/kafka/producer.js';
import type { ConsumerRunner } from '../../src/kafka/consumer-runner.js';
import { createDedupeProcessor } from '../../src/processors/dedupe.js';
import { createSourceFetchLog } from '../../src/processors/source-fetch-log.js';
import { KafkaObservationSink } from '../../src/producers/kafka-sink.js';
import { createPageFetcher } from '../../src/producers/sources/http-page-fetcher.js';
import type { SourceSummary } from '../../src/producers/sources/runner.js';
import { formatSummary } from '../../src/cli/format.js';
import { crawlOnce } from '../../src/runtime/crawl.js';
import { waitUntilConsumed } from '../../src/kafka/lag.js';
import type { EmbeddedWarehouse } from '../../src/warehouse/embedded.js';
import { a2aAgent, startFixtureA2aRegistry, type A2aRegistryFixture } from '../helpers/fixture-a2a-registry.js';
import { orgAgent, startFixtureA2aRegistryOrg, type A2aRegistryOrgFixture } from '../helpers/fixture-a2aregistry-org.js';
import { faults, ROBOTS_DISALLOW_US } from '../helpers/fixture-common.js';
import { space, startFixtureHfSpaces, type HfSpacesFixture } from '../helpers/fixture-hf-spaces.js';
import { entry, startFixtureRegistry, type FixtureRegistry } from '../helpers/fixture-mcp-registry.js';
import { ardEntry, startFixtureNeuronto, type NeurontoFixture } from '../helpers/fixture-neuronto.js';
import { smitheryServer, startFixtureSmithery, type SmitheryFixture } from '../helpers/fixture-smithery.js';
import { setupKafkaTest, testLogger, uniqueGroupId, type KafkaTestContext } from '../helpers/kafka.js';
import { withWarehouse, type TestWarehouse } from '../helpers/warehouse.js';

/**
 * Every listing source against its fixture, through the crawl run (`crawlOnce`, as the CLI
 * runs it) → Kafka → the dedupe and source-fetch-log processors → ClickHouse → the API:
 * cross-source dedupe, delisting and inactive agents with the failed-source guard, the
 * robots.txt gate, a registry tombstone, ETag revalidation and owners' opt-outs.
 */

const SHARED_MCP = 'https://mcp.shared.example/mcp';
const SHARED_A2A = 'https://shared-agent.example';

interface AgentRow {
  agent_key: string;
  sources: string[];
  active: number;
  inactive_since: string | null;
  opt_out: string;
  opt_out_reason: string;
  name: string;
  source_first_seen: Record<string, string>;
}

describe('listing sources → Kafka → ClickHouse', () => {
  let ctx: KafkaTestContext;
  let producer: EventProducer;
  let t: TestWarehouse;
  let wh: EmbeddedWarehouse;
  let dataDir: string;
  let config: Config;
  let processors: ConsumerRunner<unknown>[] = [];
  let mcp: FixtureRegistry;
  let a2a: A2aRegistryFixture;
  let org: A2aRegistryOrgFixture;
  let hf: HfSpacesFixture;
  let neuronto: NeurontoFixture;
  let smithery: SmitheryFixture;
  const log = testLogger('sources-e2e');

  beforeAll(async () => {
    ctx = await setupKafkaTest(import.meta.url, { maxPartitions: 1 });
    producer = await createEventProducer(ctx.kafka);
    t = await withWarehouse('sources-e2e');
    ({ wh, dir: dataDir } = t);

    mcp = await startFixtureRegistry([
      entry('io.github.shared/server', { remoteUrl: 'https://MCP.Shared.example/mcp' }),
      entry('io.github.reg/only', { remoteUrl: 'https://reg-only.example/mcp' }),
      entry('io.github.reg/gone-later', { remoteUrl: 'https://reg-gone.example/mcp' }),
      entry('io.github.reg/local', { remoteUrl: null }),
    ]);
    a2a = await startFixtureA2aRegistry([
      a2aAgent('shared', 'https://Shared-Agent.example/.well-known/agent-card.json'),
      a2aAgent('reg-a2a-only', 'https://reg-a2a-only.example/.well-known/agent-card.json'),
    ]);
    org = await startFixtureA2aRegistryOrg([
      orgAgent('uuid-shared', 'https://shared-agent.example:443/.well-known/agent-card.json'),
      orgAgent('uuid-only', 'https://org-only.example/.well-known/agent-card.json'),
      orgAgent('uuid-leaves', 'https://org-leaves.example/.well-known/agent-card.json'),
    ]);
    hf = await startFixtureHfSpaces(
      [space('acme/weather'), space('acme/sleepy', { stage: 'SLEEPING' }), space('acme/other-docker', { sdk: 'docker' })],
      {
        maxLimit: 2,
      },
    );
    neuronto = await startFixtureNeuronto([
      ardEntry(
        'urn:air:shared.example:mcp:shared',
        'application/vnd.mcp.server-card+json',
        'https://mcp.shared.example/.well-known/mcp/server-card.json',
        {
          data: { remotes: [{ type: 'streamable-http', url: 'https://mcp.shared.example/mcp/' }] },
        },
      ),
      ardEntry(
        'urn:air:shared.example:a2a:shared',
        'application/a2a-agent-card+json',
        'https://shared-agent.example/.well-known/agent.json',
      ),
      ardEntry('urn:air:x:skill:s', 'application/ai-skill+json', 'https://x.example/skill.json'),
    ]);
    smithery = await startFixtureSmithery([
      smitheryServer('@shared/server', 'https://mcp.shared.example:443/mcp'),
      smitheryServer('@smith/only', 'https://server.smithery.ai/@smith/only/mcp'),
      smitheryServer('local-only', null),
    ]);

    // Owners' opt-outs: one hidden, one listed but unchecked, from the configured file (VERONIKAI_OPT_OUT_FILE).
    const optOut = join(dataDir, 'opt-out.json');
    writeFileSync(
      optOut,
      JSON.stringify([
        { match: 'host:org-only.example', mode: 'hidden', reason: 'owner asked to be hidden (ticket 12)' },
        { match: 'https://server.smithery.ai/@smith/only/mcp/', mode: 'unchecked', reason: 'owner asked us not to probe' },
      ]),
    );

    config = loadConfig(
      {
        dataDir,
        sourceUrl: [
          `mcp-registry=${mcp.url}`,
          `a2a-registry=${a2a.url}`,
          `a2aregistry-org=${org.url}/api`,
          `hf-spaces=${hf.url}`,
          `neuronto=${neuronto.url}`,
          `smithery=${smithery.url}`,
        ],
        pageDelay: ['*=0'],
      },
      { VERONIKAI_OPT_OUT_FILE: optOut },
    );
    const deps = { kafka: ctx.kafka, warehouse: wh, topics: ctx.topics, logger: log };
    processors = [
      createDedupeProcessor({ ...deps, groupId: uniqueGroupId('dedupe'), optOut: config.optOutFile }) as ConsumerRunner<unknown>,
      createSourceFetchLog({ ...deps, groupId: uniqueGroupId('fetch-log') }) as ConsumerRunner<unknown>,
    ];
    await Promise.all(processors.map((p) => p.start()));
  });

  afterAll(async () => {
    await Promise.all(processors.map((p) => p.stop().catch(() => undefined)));
    await producer?.close();
    for (const f of [mcp, a2a, org, hf, neuronto, smithery]) await f?.close();
    await t?.close();
    await ctx?.cleanup();
  });

  /** One crawl run as the CLI does it, then wait until both processors have caught up. */
  const crawl = async (opts: { sources?: string[]; full?: boolean } = {}): Promise<Map<string, SourceSummary>> => {
    const sink = new KafkaObservationSink(producer, ctx.topics);
    const summaries = await crawlOnce(config, sink, log, {
      ...opts,
      fetch: createPageFetcher({ contact: config.contact, trustedHosts: ['127.0.0.1'], maxRetries: 0 }),
      limits: { pageTimeoutMs: 1500 },
    });
    for (const p of processors) await waitUntilConsumed(ctx.kafka, p.groupId, p.topics, 30_000);
    return new Map(summaries.map((s) => [s.source, s]));
  };
  const agents = async () =>
    new Map((await wh.query<AgentRow>('SELECT * FROM agents FINAL ORDER BY agent_key')).map((a) => [a.agent_key, a]));

  it('reads every source once and merges one agent listed under three spellings into one agent with three sources', async () => {
    const s = await crawl();
    for (const name of ['mcp-registry', 'a2a-registry', 'a2aregistry-org', 'hf-spaces', 'neuronto', 'smithery']) {
      expect(s.get(name), formatSummary(s.get(name)!)).toMatchObject({ complete: true, errors: 0, skipped: null });
    }
    expect(s.get('hf-spaces')).toMatchObject({ pages: 2, items: 3, new: 3 });
    expect(s.get('smithery')).toMatchObject({ details: 2, items: 3 });
    expect(s.get('neuronto')).toMatchObject({ mode: 'rolling', items: 2 });

    const all = await agents();
    // MCP: host case (registry), explicit :443 (Smithery detail), trailing slash (Neuronto inline card).
    expect(all.get(SHARED_MCP)).toMatchObject({ sources: ['mcp-registry', 'neuronto', 'smithery'], active: 1 });
    expect(Object.keys(all.get(SHARED_MCP)!.source_first_seen).sort()).toEqual(['mcp-registry', 'neuronto', 'smithery']);
    expect([...all.keys()].filter((k) => k.includes('shared.example'))).toEqual([SHARED_MCP]);
    // A2A: host case, :443, and the legacy well-known name all key to the card's origin.
    expect(all.get(SHARED_A2A)).toMatchObject({ sources: ['a2a-registry', 'a2aregistry-org', 'neuronto'], active: 1 });
    // A RUNNING Gradio Space is an agent at its MCP endpoint; a sleeping one is listed without one.
    expect(all.get('https://acme-weather.hf.space/gradio_api/mcp')).toMatchObject({ sources: ['hf-spaces'] });
    expect([...all.keys()].some((k) => k.includes('sleepy'))).toBe(false);
    const [sleepy] = await wh.query<{ endpoint_url: string; agent_key: string }>(
      "SELECT endpoint_url, agent_key FROM listings FINAL WHERE source = 'hf-spaces' AND item_id = 'acme/sleepy'",
    );
    expect(sleepy).toEqual({ endpoint_url: '', agent_key: '' });
    expect(all.size).toBe(9);
  });

  it('applies owners opt-outs: hidden agents leave the API, unchecked ones stay listed; the reason is recorded', async () => {
    const all = await agents();
    expect(all.get('https://org-only.example')).toMatchObject({
      opt_out: 'hidden',
      opt_out_reason: 'owner asked to be hidden (ticket 12)',
    });
    expect(all.get('https://server.smithery.ai/@smith/only/mcp')).toMatchObject({
      opt_out: 'unchecked',
      opt_out_reason: 'owner asked us not to probe',
    });
    expect(all.get(SHARED_MCP)).toMatchObject({ opt_out: '', opt_out_reason: '' });

    const api = buildApi({ warehouse: wh });
    try {
      const list = (await api.inject({ method: 'GET', url: '/agents?limit=100' })).json() as { agents: Array<{ key: string }> };
      const keys = list.agents.map((a) => a.key);
      expect(keys).toContain('https://server.smithery.ai/@smith/only/mcp');
      expect(keys).not.toContain('https://org-only.example');
      expect(keys).toHaveLength(8);
      expect((await api.inject({ method: 'GET', url: `/agents/${agentId('https://org-only.example')}` })).statusCode).toBe(404);
      const shared = (await api.inject({ method: 'GET', url: `/agents/${agentId(SHARED_A2A)}` })).json() as { listings: unknown[] };
      expect(shared.listings).toHaveLength(3);
    } finally {
      await api.close();
    }
  });

  it('marks what a complete pass no longer lists inactive, but never what a failed or skipped source lists', async () => {
    // a2aregistry.org drops two agents; the MCP Registry is down (503) and has dropped one too;
    // HF's robots.txt now disallows us; Smithery's robots.txt cannot be fetched.
    org.agents = org.agents.filter((a) => a.id === 'uuid-only');
    mcp.entries.splice(1, 1); // io.github.reg/only
    mcp.faultAt.clear();
    for (let i = 1; i <= 5; i++) mcp.faultAt.set(mcp.listRequests + i, faults.status(503));
    hf.robots = ROBOTS_DISALLOW_US;
    smithery.robots = 503;
    const before = [hf.requests.length, smithery.requests.length];

    const s = await crawl();
    expect(s.get('a2aregistry-org')).toMatchObject({ complete: true, delisted: 2 });
    expect(s.get('mcp-registry')).toMatchObject({ complete: false, errors: 1, delisted: 0 });
    expect(formatSummary(s.get('mcp-registry')!)).toMatch(/INCOMPLETE: http_5xx: HTTP 503/);
    expect(formatSummary(s.get('hf-spaces')!)).toBe(
      'hf-spaces: skipped (robots: disallowed (/api/spaces?… for veronikai (group "veronikai")))',
    );
    expect(formatSummary(s.get('smithery')!)).toBe('smithery: skipped (robots: unreachable (HTTP 503))');
    // Neither skipped source was asked for anything but its robots.txt this time.
    expect([hf.requests.length, smithery.requests.length]).toEqual(before);

    const all = await agents();
    // Only a2aregistry.org listed it: inactive, kept, with the time it went.
    const leaves = all.get('https://org-leaves.example')!;
    expect(leaves).toMatchObject({ active: 0, sources: [], name: 'Org agent uuid-leaves' });
    expect(leaves.inactive_since).not.toBeNull();
    // Two other sources still list the shared agent.
    expect(all.get(SHARED_A2A)).toMatchObject({ active: 1, sources: ['a2a-registry', 'neuronto'] });
    // The failed and the skipped sources make nothing inactive.
    expect(all.get('https://reg-only.example/mcp')).toMatchObject({ active: 1, sources: ['mcp-registry'] });
    expect(all.get('https://acme-weather.hf.space/gradio_api/mcp')).toMatchObject({ active: 1 });
    expect(all.get('https://server.smithery.ai/@smith/only/mcp')).toMatchObject({ active: 1, sources: ['smithery'] });
    expect(all.get(SHARED_MCP)).toMatchObject({ active: 1, sources: ['mcp-registry', 'neuronto', 'smithery'] });

    // History stays queryable: the tombstoned listing is still there, marked as such.
    const hist = await wh.query<{ status: string; tombstoned: number; name: string }>(
      "SELECT status, tombstoned, name FROM listings FINAL WHERE source = 'a2aregistry-org' AND item_id = 'uuid-leaves'",
    );
    expect(hist).toEqual([{ status: 'delisted', tombstoned: 1, name: 'Org agent uuid-leaves' }]);
  });

  it('records both robots skips with their reason in source_fetches', async () => {
    const rows = await wh.query<{ source: string; url: string; gate: string; ok: number; error_class: string; error: string }>(
      "SELECT source, url, gate, ok, error_class, error FROM source_fetches FINAL WHERE gate != 'allowed' ORDER BY source",
    );
    expect(rows).toEqual([
      {
        source: 'hf-spaces',
        url: `${hf.url}/robots.txt`,
        gate: 'robots_disallowed',
        ok: 0,
        error_class: 'robots_disallowed',
        error: expect.stringMatching(/^robots.txt disallows \/api\/spaces\?filter=mcp-server.* for veronikai/),
      },
      {
        source: 'smithery',
        url: `${smithery.url}/robots.txt`,
        gate: 'robots_unreachable',
        ok: 0,
        error_class: 'http_5xx',
        error: expect.stringMatching(/^robots.txt could not be fetched \(HTTP 503\); skipped for this run/),
      },
    ]);
    const failed = await wh.query<{ n: number }>(
      "SELECT toUInt32(count()) AS n FROM source_fetches FINAL WHERE source = 'mcp-registry' AND ok = 0 AND error_class = 'http_5xx'",
    );
    expect(failed[0]!.n).toBe(1);
  });

  it('tombstones a deleted registry entry, revalidates HF pages with 304, and delists on the next full resync', async () => {
    mcp.faultAt.clear();
    hf.robots = 404;
    mcp.entries[1] = entry('io.github.reg/gone-later', {
      remoteUrl: 'https://reg-gone.example/mcp',
      status: 'deleted',
      updatedAt: '2025-12-01T00:00:00Z',
    });
    const s = await crawl({ sources: ['mcp-registry', 'hf-spaces'] });
    expect(s.get('mcp-registry')).toMatchObject({ complete: true, mode: 'incremental', items: 1, delisted: 0 });
    expect(s.get('hf-spaces')).toMatchObject({ complete: true, pages: 2, items: 0, new: 0, changed: 0, delisted: 0 });
    expect(hf.notModified).toBe(2);
    let all = await agents();
    expect(all.get('https://reg-gone.example/mcp')).toMatchObject({ active: 0, sources: [] });
    // an incremental read never delists: reg-only is still active
    expect(all.get('https://reg-only.example/mcp')).toMatchObject({ active: 1 });
    expect(all.get('https://acme-weather.hf.space/gradio_api/mcp')).toMatchObject({ active: 1 });

    const full = await crawl({ sources: ['mcp-registry'], full: true });
    expect(full.get('mcp-registry')).toMatchObject({ complete: true, mode: 'full', delisted: 1 });
    all = await agents();
    expect(all.get('https://reg-only.example/mcp')).toMatchObject({ active: 0, sources: [] });
    expect(all.get(SHARED_MCP)).toMatchObject({ active: 1, sources: ['mcp-registry', 'neuronto', 'smithery'] });
  });
});
