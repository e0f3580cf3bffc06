import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHECKER_VERSION, generateSigningKeyPair } from '../../src/conformance/index.js';
import { verifyVerdicts } from '../../src/runtime/usecases/verify.js';
import { readAll } from '../helpers/signing.js';
import { loadConfig, type Config } from '../../src/config.js';
import { agentKey } from '../../src/identity/agent-key.js';
import { crawlOnce } from '../../src/runtime/crawl.js';
import { formatDailyReport } from '../../src/cli/format.js';
import { dailyRun, type DailyRunReport } from '../../src/runtime/daily.js';
import { startPlatform, type Platform } from '../../src/runtime/platform.js';
import { orgAgent, startFixtureA2aRegistryOrg } from '../helpers/fixture-a2aregistry-org.js';
import { entry, startFixtureRegistry } from '../helpers/fixture-mcp-registry.js';
import { kafkaBrokers, testLogger, uniqueTopicPrefix } from '../helpers/kafka.js';
import { startA2AAgent, startMcpLegacySse, startMcpStreamableStateless, startMcpWithBearerAuth, type Peer } from '../helpers/peers.js';
import { createHash, createPublicKey } from 'node:crypto';
import type { Kafka } from 'kafkajs';
import { eventCodec } from '../../src/events/codec.js';
import type { DocumentEvent, ProbeEvent } from '../../src/events/types.js';
import { DocumentReader } from '../../src/processors/documents.js';
import { CURRENT_CHECKER } from '../../src/processors/verdicts/checker.js';
import { pinCheckerVersion } from '../../src/processors/verdicts/current-version.js';
import { judgeProbe } from '../../src/processors/verdicts/judge-probe.js';
import { ListingContextResolver } from '../../src/processors/verdicts/listing-context.js';
import { documentHashes, type DocumentTexts } from '../../src/processors/verdicts/observation.js';
import { JUDGED_HEADERS } from '../../src/http/client.js';
import { keepProbe, MCP_EXCERPT_MAX_BYTES } from '../../src/producers/probe/kept-bodies.js';
import { ProbeEngine } from '../../src/producers/probe/probe-agent.js';
import { replayProbes } from '../../src/runtime/usecases/replay.js';
import { uniqueGroupId } from '../helpers/kafka.js';

/**
 * A whole daily run over the real broker and the chdb engine: two fixture registries
 * list real MCP and A2A SDK peers on loopback (and two dead endpoints); the platform
 * crawls, schedules, probes, judges and rolls up; the numbers are those the fixtures
 * were built to produce.
 *
 *   agent                       source            uptime  verdict  why
 *   MCP Streamable HTTP         mcp-registry      up      fail     answers the GET; server.json remote is http:// on a private host
 *   MCP legacy SSE              mcp-registry      up      fail     (same quality failure)
 *   MCP behind bearer auth      mcp-registry      up      fail     401 is up; (same quality failure)
 *   MCP dead port               mcp-registry      down    fail     connection refused; (same quality failure)
 *   A2A agent (SDK card)        a2aregistry-org   up      pass     a 1.0-style card whose supportedInterfaces carry URLs
 *   A2A dead port               a2aregistry-org   down    unknown  no answer: conformance cannot be judged
 *
 * What is kept (seed 003 §7): the probes topic carries no response body but the MCP answers'
 * classification excerpts; the card and the RFC 9728 metadata are on the documents topic, named
 * by hash; judging the same probes with bodies inline and with documents by hash agrees, and a
 * replay after the run (documents read by hash) gives the live verdicts.
 */

/** Every message on a topic now, decoded. */
async function readTopic<T>(kafka: Kafka, topic: string, decode: (v: Buffer) => T): Promise<T[]> {
  const admin = kafka.admin();
  await admin.connect();
  const offsets = await admin.fetchTopicOffsets(topic);
  await admin.disconnect();
  const total = offsets.reduce((n, o) => n + Number(o.high) - Number(o.low), 0);
  const out: T[] = [];
  if (total === 0) return out;
  const consumer = kafka.consumer({ groupId: uniqueGroupId('daily-reader'), maxWaitTimeInMs: 200 });
  await consumer.connect();
  await consumer.subscribe({ topics: [topic], fromBeginning: true });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`read ${out.length} of ${total} messages of ${topic}`)), 30_000);
    void consumer.run({
      eachMessage: async ({ message }) => {
        if (message.value) out.push(decode(message.value));
        if (out.length >= total) {
          clearTimeout(timer);
          resolve();
        }
      },
    });
  });
  await consumer.disconnect();
  return out;
}

/** Check and verdict rows without what names the inputs' bytes (the inputs hash) and the signature fields. */
function judged(ev: ProbeEvent, ctx: Parameters<typeof judgeProbe>[1], documents?: DocumentTexts) {
  const j = judgeProbe(ev, ctx, CURRENT_CHECKER, documents);
  const { signature: _s, inputs_hash: _h, head_id: _i, leaf_index: _x, proof: _p, ...verdict } = j.verdict;
  return { check: j.check, verdict };
}

const keys = generateSigningKeyPair();

describe('daily run end to end', () => {
  let peers: Peer[] = [];
  let deadMcp: string;
  let deadA2a: string;
  let closeFixtures: Array<() => Promise<void>> = [];
  let dataDir: string;
  let config: Config;
  let platform: Platform;
  let report: DailyRunReport;
  const log = testLogger('daily');

  beforeAll(async () => {
    const [streamable, sse, bearer, a2a] = await Promise.all([
      startMcpStreamableStateless(),
      startMcpLegacySse(),
      startMcpWithBearerAuth(),
      startA2AAgent(),
    ]);
    peers = [streamable!, sse!, bearer!, a2a!];
    // Ports that were just free and are closed again: connection refused.
    const dead1 = await startMcpStreamableStateless();
    deadMcp = dead1.url;
    await dead1.close();
    const dead2 = await startA2AAgent();
    deadA2a = `${dead2.origin}/.well-known/agent-card.json`;
    await dead2.close();

    const registry = await startFixtureRegistry([
      entry('io.github.acme/streamable', { remoteUrl: streamable!.url }),
      entry('io.github.acme/legacy-sse', { remoteUrl: sse!.url, type: 'sse' }),
      entry('io.github.acme/bearer', { remoteUrl: bearer!.url }),
      entry('io.github.acme/dead', { remoteUrl: deadMcp }),
    ]);
    const org = await startFixtureA2aRegistryOrg([orgAgent('a1', `${a2a!.origin}/.well-known/agent-card.json`), orgAgent('a2', deadA2a)]);
    closeFixtures = [() => registry.close(), () => org.close()];

    dataDir = mkdtempSync(join(tmpdir(), 'veronikai-daily-'));
    config = loadConfig(
      {
        dataDir,
        brokers: await kafkaBrokers(),
        port: 0,
        sourceUrl: [`mcp-registry=${registry.url}`, `a2aregistry-org=${org.url}`],
      },
      {},
    );
    platform = await startPlatform(config, {
      log,
      topicPrefix: uniqueTopicPrefix(import.meta.url),
      probePolicy: { allowLoopback: true },
      // No canary: the default targets are the public sources' origins, unreachable from a test.
      canaryTargets: [],
      sign: keys.privateKeyPem,
    });
    const summaries = await crawlOnce(config, platform.sink, log, { sources: ['mcp-registry', 'a2aregistry-org'] });
    expect(summaries.map((s) => [s.source, s.complete, s.items])).toEqual([
      ['mcp-registry', true, 4],
      ['a2aregistry-org', true, 2],
    ]);
    report = await dailyRun({
      kafka: platform.kafka.kafka,
      topics: platform.kafka.topics,
      warehouse: platform.warehouse,
      sink: platform.sink,
      groups: platform.groups,
      log,
      budget: 10,
      sampleSize: 4,
      seed: 'e2e-seed',
      stageTimeoutMs: 120_000,
    });
  }, 240_000);

  afterAll(async () => {
    await platform?.close();
    for (const c of closeFixtures) await c();
    for (const p of peers) await p.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('plans every agent once: the seeded sample first, then the new ones', () => {
    expect(report.seed).toBe('e2e-seed');
    expect(report.planned).toBe(6);
    expect(report.counts).toMatchObject({ sample: 4, new: 2, overdue: 0, planned: 6 });
  });

  it('records uptime and verdicts as the fixtures were built to produce', async () => {
    const rows = await platform.warehouse.query<{ agent_key: string; uptime: string; result: string; source: string }>(
      `SELECT c.agent_key AS agent_key, c.uptime AS uptime, v.result AS result, c.source AS source
       FROM (SELECT * FROM checks FINAL) AS c INNER JOIN (SELECT * FROM verdicts FINAL WHERE checker_version = {cv:String}) AS v ON v.event_id = c.event_id
       ORDER BY agent_key`,
      { cv: CHECKER_VERSION },
    );
    const key = (protocol: 'a2a' | 'mcp', url: string) => agentKey(protocol, protocol === 'mcp' ? { endpointUrl: url } : { cardUrl: url })!;
    const [streamable, sse, bearer, a2a] = peers;
    const expected = new Map([
      [key('mcp', streamable!.url), ['up', 'fail', 'mcp-registry']],
      [key('mcp', sse!.url), ['up', 'fail', 'mcp-registry']],
      [key('mcp', bearer!.url), ['up', 'fail', 'mcp-registry']],
      [key('mcp', deadMcp), ['down', 'fail', 'mcp-registry']],
      [key('a2a', `${a2a!.origin}/.well-known/agent-card.json`), ['up', 'pass', 'a2aregistry-org']],
      [key('a2a', deadA2a), ['down', 'unknown', 'a2aregistry-org']],
    ]);
    expect(new Map(rows.map((r) => [r.agent_key, [r.uptime, r.result, r.source]]))).toEqual(expected);
    // Every verdict verifies against its batch's signed head with the public key.
    const verified = await verifyVerdicts((sql, onRows) => readAll(platform.warehouse, sql, onRows), createPublicKey(keys.publicKeyPem));
    expect(verified).toMatchObject({ verified: verified.total, failed: 0, badHeads: 0 });
    expect(verified.total).toBeGreaterThanOrEqual(rows.length);
  });

  it('rolls the day up per protocol and source, with the sample counted separately', async () => {
    const rollups = await platform.warehouse.query<Record<string, string | number>>(
      `SELECT protocol, source, toUInt32(checks) AS checks, toUInt32(up) AS up, toUInt32(down) AS down,
              toUInt32(pass) AS pass, toUInt32(fail) AS fail, toUInt32(unknown_verdict) AS unknown_verdict, toUInt32(sample_checks) AS sample_checks
       FROM daily_rollups FINAL WHERE checker_version = {cv:String} ORDER BY protocol, source`,
      { cv: CHECKER_VERSION },
    );
    expect(rollups.map(({ sample_checks: _s, ...r }) => r)).toEqual([
      { protocol: 'a2a', source: 'a2aregistry-org', checks: 2, up: 1, down: 1, pass: 1, fail: 0, unknown_verdict: 1 },
      { protocol: 'mcp', source: 'mcp-registry', checks: 4, up: 3, down: 1, pass: 0, fail: 4, unknown_verdict: 0 },
    ]);
    expect(rollups.reduce((n, r) => n + Number(r.sample_checks), 0)).toBe(4);
    const history = await platform.warehouse.query<{ n: number }>('SELECT toUInt32(count()) AS n FROM agent_daily_history FINAL');
    expect(history[0]!.n).toBe(6);
  });

  it('reports the run from its sample with Wilson intervals, and the census separately', () => {
    const s = report.stats;
    expect(s.status).toBe('complete');
    expect(s.sample.checks).toBe(4);
    expect(s.sample.up.trials).toBe(4);
    expect(s.sample.up.low!).toBeLessThanOrEqual(s.sample.up.share!);
    expect(s.sample.up.high!).toBeGreaterThanOrEqual(s.sample.up.share!);
    expect(report.census.agents).toEqual({ active: 6, inactive: 0 });
    expect(report.census.latest).toMatchObject({ up: 4, down: 2, fail: 4, unknownVerdict: 1, pass: 1, neverChecked: 0 });
    const lines = formatDailyReport(report);
    expect(lines[0]).toContain('6 probe(s) planned');
    expect(lines[2]).toContain('6 active agent(s)');
  });

  it('pins the checker version whose verdicts caught up as the current one', async () => {
    expect(await platform.warehouse.query('SELECT checker_version, pinned FROM v_checker_current__v1')).toEqual([
      { checker_version: CHECKER_VERSION, pinned: 1 },
    ]);
  });

  it('keeps no probe response body: the documents are on their own topic by hash, the MCP answers only their excerpt', async () => {
    const codec = eventCodec();
    const probes = await readTopic(platform.kafka.kafka, platform.kafka.topics.probes, (v) => codec.decodeAs('Probe', v));
    const documents = await readTopic(platform.kafka.kafka, platform.kafka.topics.documents, (v) => codec.decodeAs('Document', v));
    expect(probes).toHaveLength(6);
    const exchanges = probes.flatMap((p) => p.exchanges);
    for (const x of exchanges) {
      expect(['document', 'excerpt', 'none']).toContain(x.bodyKept);
      expect(Object.keys(x.headers).every((h) => JUDGED_HEADERS.includes(h))).toBe(true);
      if (x.bodyKept === 'excerpt') {
        expect(x.role).toBe('mcp-get');
        expect(x.body.length).toBeLessThanOrEqual(MCP_EXCERPT_MAX_BYTES);
      } else expect(x.body.length).toBe(0);
    }
    // The A2A card and the bearer server's RFC 9728 metadata are documents, each named by the hash of its bytes.
    const named = new Set(probes.flatMap(documentHashes));
    // (The A2A listing names the well-known URL itself, so the card's role is `card`.)
    expect(
      exchanges
        .filter((x) => x.bodyKept === 'document')
        .map((x) => x.role)
        .sort(),
    ).toEqual(['card', 'resource-metadata']);
    const byHash = new Map<string, DocumentEvent>(documents.map((d) => [d.sha256, d]));
    for (const h of named) {
      const d = byHash.get(h)!;
      expect(createHash('sha256').update(d.body).digest('hex')).toBe(h);
    }
    const docs = [...named].map((h) => JSON.parse(byHash.get(h)!.body.toString()) as Record<string, unknown>);
    expect(docs.filter((d) => typeof d.name === 'string' && typeof d.resource !== 'string')).toHaveLength(1); // the card
    expect(docs.filter((d) => typeof d.resource === 'string')).toHaveLength(1); // the metadata
    // The excerpts are short: the SDK peers' answers are judged on a few bytes at most.
    expect(exchanges.filter((x) => x.bodyKept === 'excerpt').reduce((n, x) => n + x.body.length, 0)).toBeLessThanOrEqual(4 * 128);
    // The document store wrote them to the warehouse by hash.
    const stored = await new DocumentReader(platform.warehouse, 10_000).texts(named);
    expect(stored.size).toBe(named.size);
  });

  it('judges the same probes alike with bodies inline (as before) and with documents by hash', async () => {
    const engine = new ProbeEngine({
      contact: 'probes@veronikai.test',
      allowLoopback: true,
      timeoutMs: 2000,
      bodyWindowMs: 300,
      maxRetries: 0,
    });
    const [streamable, sse, bearer, a2a] = peers;
    const targets = [
      { protocol: 'mcp' as const, url: streamable!.url, transport: 'streamable-http' },
      { protocol: 'mcp' as const, url: sse!.url, transport: 'sse' },
      { protocol: 'mcp' as const, url: bearer!.url, transport: 'streamable-http' },
      { protocol: 'mcp' as const, url: deadMcp, transport: 'streamable-http' },
      { protocol: 'a2a' as const, url: `${a2a!.origin}/.well-known/agent-card.json`, transport: null },
      { protocol: 'a2a' as const, url: deadA2a, transport: null },
    ];
    const resolver = new ListingContextResolver(platform.warehouse);
    const reader = new DocumentReader(platform.warehouse, 10_000);
    let documentsJudged = 0;
    for (const target of targets) {
      const whole = await engine.observeWhole({ ...target, runId: 'compare' });
      const kept = keepProbe(whole);
      const [ctx] = await resolver.resolve([whole]);
      await resolver.loadServerJson([ctx ?? null]);
      // The run's document store holds the very documents this probe read (the peers serve the same bytes).
      const hashes = documentHashes(kept.probe);
      documentsJudged += hashes.length;
      const documents = await reader.texts(hashes);
      expect(judged(kept.probe, ctx ?? null, documents), target.url).toEqual(judged(whole, ctx ?? null));
    }
    expect(documentsJudged).toBe(2);
  });

  it('a replay after the run reads the documents by hash and gives the live verdicts', async () => {
    const replayChecker = { ...CURRENT_CHECKER, version: `${CHECKER_VERSION}-replay.1` };
    const summary = await replayProbes({
      kafka: platform.kafka.kafka,
      topics: platform.kafka.topics,
      warehouse: platform.warehouse,
      sign: keys.privateKeyPem,
      checker: replayChecker,
      logger: log,
      pollMs: 200,
      // A fresh document store reads the documents topic again from its start (a rebuilt warehouse).
      groups: {
        verdicts: uniqueGroupId('daily-replay'),
        listingHistory: platform.groups.listings[1]!,
        documents: uniqueGroupId('daily-replay-documents'),
      },
      compareWith: CHECKER_VERSION,
    });
    await pinCheckerVersion(platform.warehouse, CHECKER_VERSION, 'after the replay test');
    expect(summary).toMatchObject({ total: 6, judged: 6, deadLettered: 0, documents: { ran: true } });
    expect(summary.comparison).toMatchObject({ comparedEvents: 6, changedEvents: 0, changedAgents: 0 });
    const rows = (table: string, version: string) =>
      platform.warehouse.query<Record<string, unknown>>(
        `SELECT * EXCEPT (checker_version${table === 'verdicts' ? ', judged_at, signature, head_id, leaf_index, proof' : ''}) FROM ${table} FINAL WHERE checker_version = {v:String} ORDER BY event_id`,
        { v: version },
      );
    for (const table of ['checks', 'verdicts']) {
      const live = await rows(table, CHECKER_VERSION);
      expect(live).toHaveLength(6);
      expect(await rows(table, replayChecker.version)).toEqual(live);
    }
  });

  it('records the run start and finish with its budget and seed', async () => {
    const runs = await platform.warehouse.query<{ phase: string; budget: number; seed: string; complete: number }>(
      'SELECT phase, budget, seed, complete FROM runs FINAL WHERE run_id = {r:String} ORDER BY phase DESC',
      { r: report.runId },
    );
    expect(runs).toEqual([
      { phase: 'start', budget: 10, seed: 'e2e-seed', complete: 0 },
      { phase: 'finish', budget: 10, seed: 'e2e-seed', complete: 1 },
    ]);
  });
});
