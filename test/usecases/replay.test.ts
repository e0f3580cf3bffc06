import { readFileSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CHECKER_VERSION, generateSigningKeyPair } from '../../src/conformance/index.js';
import type { ListingEvent, ProbeEvent, ProbeExchange } from '../../src/events/types.js';
import { BUMPED_CHECKER, probeEvent, probeExchange, serverJsonFor } from '../helpers/probe-events.js';
import { CURRENT_CHECKER, type Checker } from '../../src/processors/verdicts/checker.js';
import { agentId } from '../../src/identity/agent-key.js';
import { EventProducer } from '../../src/kafka/producer.js';
import { KafkaObservationSink } from '../../src/producers/kafka-sink.js';
import { formatReplayProgress as formatProgress, formatReplaySummary } from '../../src/cli/format.js';
import { replayProbes, type ReplayProgress } from '../../src/runtime/usecases/replay.js';
import { setupKafkaTest, testLogger, uniqueGroupId, type KafkaTestContext } from '../helpers/kafka.js';
import { withWarehouse, type TestWarehouse } from '../helpers/warehouse.js';
import { agentRow } from '../helpers/warehouse-rows.js';

/**
 * `veronikai replay` over the real broker and the chdb engine: listings and probes on a
 * test topic prefix; a replay under the current checker (which first catches the listing
 * history up), then under a bumped test checker with one changed rule; both versions' rows
 * side by side, progress that reaches its total, and a summary naming the changed agent.
 */

const T = Date.now() - 2 * 3_600_000; // inside the 90-day TTL whenever the test runs
const keys = generateSigningKeyPair();
const sign = keys.privateKeyPem;
const log = testLogger('replay');

const exchange = probeExchange;
const probe = (id: string, agentKey: string, protocol: 'a2a' | 'mcp', exchanges: ProbeExchange[]) =>
  probeEvent(T, id, agentKey, protocol, exchanges, { runId: 'run-replay' });

const AGENTS = {
  mcpShort: 'https://mcp.short-agent.dev/mcp', // a 30-character description: passes today, fails the bumped rule
  mcpLong: 'https://mcp.long-agent.dev/mcp',
  a2a: 'https://agent.recipes-agent.dev',
  a2aDown: 'https://down.recipes-agent.dev',
};

function listing(itemId: string, url: string, description: string): ListingEvent {
  return {
    id: `l-${itemId}`,
    observedAt: T - 3_600_000,
    runId: 'crawl-1',
    fetchId: 'f-1',
    source: 'mcp-registry',
    itemId,
    protocol: 'mcp',
    name: itemId,
    description,
    version: '1.0.0',
    endpointUrl: url,
    endpointTransport: 'streamable-http',
    cardUrl: null,
    serverJson: serverJsonFor(itemId, description, url),
    status: 'active',
    invalidReason: null,
    updatedAt: null,
    raw: '{}',
    rawTruncated: false,
  };
}

const card = readFileSync('test/fixtures/conformance/a2a/good-0.3.json', 'utf8');
const PROBES: ProbeEvent[] = [
  probe('p1', AGENTS.mcpShort, 'mcp', [exchange('mcp-get', AGENTS.mcpShort, 405, '', { allow: 'POST' })]),
  probe('p2', AGENTS.mcpLong, 'mcp', [
    exchange('mcp-get', AGENTS.mcpLong, 200, 'event: endpoint\ndata: /x\n\n', { 'content-type': 'text/event-stream' }),
  ]),
  probe('p3', AGENTS.a2a, 'a2a', [
    exchange('card', `${AGENTS.a2a}/.well-known/agent-card.json`, 200, card, { 'content-type': 'application/json' }),
  ]),
  probe('p4', AGENTS.a2aDown, 'a2a', [exchange('card', `${AGENTS.a2aDown}/.well-known/agent-card.json`, null, '', {}, 'refused')]),
];

const BUMPED = BUMPED_CHECKER;

describe('replay of the probe history', () => {
  let ctx: KafkaTestContext;
  let t: TestWarehouse;
  /**
   * Group ids of one test only: another test file may run the default groups on the same
   * broker, and a test must not find offsets another test committed.
   */
  const freshGroups = () => ({
    current: uniqueGroupId('replay-current'),
    bumped: uniqueGroupId('replay-bumped'),
    history: uniqueGroupId('replay-history'),
  });

  // The topics are written once and only read; each test replays them into a fresh warehouse.
  beforeAll(async () => {
    ctx = await setupKafkaTest(import.meta.url);
    const producer = new EventProducer(ctx.kafka, { logger: log });
    const sink = new KafkaObservationSink(producer, ctx.topics);
    await sink.listings([
      listing('io.github.short/s', AGENTS.mcpShort, 'Short but honest thirty chars.'),
      listing('io.github.long/l', AGENTS.mcpLong, 'A long and descriptive explanation of what this server offers.'),
    ]);
    for (const p of PROBES) await sink.probe(p);
    // One message that is not an event at all: counted in the total, sent to dead letters, never judged.
    await producer.send(ctx.topics.probes, [{ key: 'garbage', value: Buffer.from('not avro') }]);
    await producer.close();
  });
  afterAll(async () => {
    await ctx?.cleanup();
  });

  beforeEach(async () => {
    t = await withWarehouse('replay');
    // The agent's name, as the dedupe processor would have written it (the summary names agents).
    await t.wh.insert('agents', [
      agentRow({ agent_key: AGENTS.mcpShort, name: 'Short Agent', first_seen: new Date(T), has_server_json: 1, version: T }),
    ]);
  });
  afterEach(async () => {
    await t?.close();
  });

  const replay = (checker: Checker, group: string, historyGroup: string, progress: ReplayProgress[] = []) =>
    replayProbes({
      kafka: ctx.kafka,
      topics: ctx.topics,
      warehouse: t.wh,
      sign,
      checker,
      logger: log,
      onProgress: (p) => progress.push(p),
      pollMs: 200,
      timeoutMs: 60_000,
      groups: { verdicts: group, listingHistory: historyGroup },
    });

  it('replays under the current checker, catching the listing history up first, with progress that reaches its total', async () => {
    const groups = freshGroups();
    const progress: ReplayProgress[] = [];
    const s = await replay(CURRENT_CHECKER, groups.current, groups.history, progress);
    expect(s).toMatchObject({
      checkerVersion: CHECKER_VERSION,
      groupId: groups.current,
      total: 5,
      alreadyProcessed: 0,
      judged: 4,
      deadLettered: 1,
      verdictRows: 4,
      listingHistory: { groupId: groups.history, behindAtStart: 2, ran: true },
      comparison: null,
    });
    expect(progress.length).toBeGreaterThan(0);
    expect(progress.every((p) => p.total === 5 && p.processed <= p.total && p.checkerVersion === CHECKER_VERSION)).toBe(true);
    expect(progress[0]!.processed).toBe(0);
    expect(progress.at(-1)).toMatchObject({ processed: 5, total: 5, done: true, etaMs: 0 });
    // processed never goes backwards
    for (let i = 1; i < progress.length; i++) expect(progress[i]!.processed).toBeGreaterThanOrEqual(progress[i - 1]!.processed);
    expect(formatProgress(progress.at(-1)!)).toMatch(/5 \/ 5 messages \(100\.0%\).*done/);
    expect(formatReplaySummary(s).join('\n')).toMatch(/nothing to compare with/);
  });

  it('replays under a bumped checker beside the old rows and names the agents whose result changed', async () => {
    const groups = freshGroups();
    // The current version's rows to compare with; this also catches the listing history up.
    await replay(CURRENT_CHECKER, groups.current, groups.history);
    const progress: ReplayProgress[] = [];
    const s = await replay(BUMPED, groups.bumped, groups.history, progress);
    expect(s).toMatchObject({ checkerVersion: BUMPED.version, total: 5, judged: 4, listingHistory: { behindAtStart: 0, ran: false } });
    // The live processor kept every probe's facts: the replay read none of the topic (replay-facts.ts).
    expect(s.fromFacts).toMatchObject({ events: 4, inputs: 4 });
    expect(progress.at(-1)).toMatchObject({ processed: 5, total: 5, done: true });
    expect(s.comparison).toEqual({
      previousVersion: CHECKER_VERSION,
      checkerVersion: BUMPED.version,
      comparedEvents: 4,
      changedEvents: 1,
      changedAgents: 1,
      transitions: [{ from: 'pass', to: 'fail', events: 1 }],
      agents: [{ agentKey: AGENTS.mcpShort, agentId: agentId(AGENTS.mcpShort), name: 'Short Agent', from: 'pass', to: 'fail', events: 1 }],
    });
    const text = formatReplaySummary(s).join('\n');
    expect(text).toContain(`versus ${CHECKER_VERSION}: 4 probe event(s) judged by both; 1 changed result, for 1 agent(s)`);
    expect(text).toContain(`pass → fail  ${AGENTS.mcpShort}  (Short Agent)`);
    expect(text).toContain('from the kept facts: 4 probe(s), 4 distinct input(s) judged, 1 tree head(s) signed');

    // Both versions' rows side by side, each judged from the listing of its probe's time.
    const rows = await t.wh.query<{ checker_version: string; agent_key: string; result: string }>(
      'SELECT checker_version, agent_key, result FROM verdicts FINAL ORDER BY checker_version, agent_key',
    );
    expect(rows).toEqual([
      { checker_version: CHECKER_VERSION, agent_key: AGENTS.a2a, result: 'pass' },
      { checker_version: CHECKER_VERSION, agent_key: AGENTS.a2aDown, result: 'unknown' },
      { checker_version: CHECKER_VERSION, agent_key: AGENTS.mcpLong, result: 'pass' },
      { checker_version: CHECKER_VERSION, agent_key: AGENTS.mcpShort, result: 'pass' },
      { checker_version: BUMPED.version, agent_key: AGENTS.a2a, result: 'pass' },
      { checker_version: BUMPED.version, agent_key: AGENTS.a2aDown, result: 'unknown' },
      { checker_version: BUMPED.version, agent_key: AGENTS.mcpLong, result: 'pass' },
      { checker_version: BUMPED.version, agent_key: AGENTS.mcpShort, result: 'fail' },
    ]);
    const rollups = await t.wh.query<{ checker_version: string; checks: number; fail: number }>(
      'SELECT checker_version, toUInt32(sum(checks)) AS checks, toUInt32(sum(fail)) AS fail FROM daily_rollups FINAL GROUP BY checker_version ORDER BY checker_version',
    );
    expect(rollups).toEqual([
      { checker_version: CHECKER_VERSION, checks: 4, fail: 0 },
      { checker_version: BUMPED.version, checks: 4, fail: 1 },
    ]);
  });

  it('has nothing to do when the version has already judged the whole topic', async () => {
    const groups = freshGroups();
    expect(await replay(BUMPED, groups.bumped, groups.history)).toMatchObject({ total: 5, alreadyProcessed: 0, judged: 4 });
    const progress: ReplayProgress[] = [];
    const s = await replay(BUMPED, groups.bumped, groups.history, progress);
    expect(s).toMatchObject({ total: 5, alreadyProcessed: 5, judged: 0 });
    expect(progress).toHaveLength(1);
    expect(progress[0]).toMatchObject({ processed: 5, total: 5, done: true });
    expect(formatReplaySummary(s)[0]).toMatch(/had already judged all 5 probe message\(s\): nothing to replay/);
  });
});
