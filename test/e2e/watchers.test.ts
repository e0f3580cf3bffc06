/**
 * Issue 14, "Must show": a change (an agent goes down, then up) appears once in agent_changes,
 * once in both feeds, and once at a local webhook receiver with a valid signature, even after a
 * processor restart in between.
 *
 * As `run --once` composes it: startPlatform with every processor, the probe worker, the webhook
 * deliverer (VERONIKAI_WEBHOOKS_FILE → a receiver on 127.0.0.1, loopback allowed explicitly) and
 * the API on an ephemeral port, on the test broker and an embedded warehouse; each cycle is
 * runDailyCycles (crawl a fixture MCP Registry, then the daily run: schedule, probe, judge). The
 * agent is a real MCP server from the SDK on loopback, probed by the real probe worker:
 *
 *   cycle 1   the server answers                        → up (first state: no change)
 *   cycle 2   the server is stopped (connection refused) → down
 *             the whole platform closes and starts again on the same data dir, broker and topics
 *   cycle 3   the server listens again on the same port  → up
 */
import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, type Config } from '../../src/config.js';
import { agentId, agentKey } from '../../src/identity/agent-key.js';
import { waitUntilConsumed } from '../../src/kafka/lag.js';
import { CHANGE_LOG_GROUP } from '../../src/processors/change-log.js';
import { WEBHOOK_DELIVERIES_GROUP } from '../../src/processors/webhook-deliveries.js';
import { deliveryId, verifySignature } from '../../src/webhooks/signature.js';
import type { DailyRunReport } from '../../src/runtime/daily.js';
import { startPlatform, type Platform, type PlatformOptions } from '../../src/runtime/platform.js';
import { pollUntil } from '../../src/util/poll.js';
import { entry, startFixtureRegistry, type FixtureRegistry } from '../helpers/fixture-mcp-registry.js';
import { startRecordingReceiver, type ReceivedRequest, type TestServer } from '../helpers/hostile-servers.js';
import { setupKafkaTest, testLogger, type KafkaTestContext } from '../helpers/kafka.js';
import { atomEntryIds, dailyCycle, startMcpServerOn } from '../helpers/watched-agent.js';

const SECRET = 'watchers-e2e-secret-0123456789';
const SUBSCRIPTION = 'watcher';
const WAIT = { timeoutMs: 30_000, intervalMs: 200 };

interface ChangeRow {
  change_id: string;
  kind: string;
  cause_event_id: string;
  from_state: string | null;
  to_state: string | null;
  summary: string;
}

const header = (r: ReceivedRequest, name: string): string => {
  const v = r.headers[name];
  return typeof v === 'string' ? v : '';
};
const changeIdOf = (r: ReceivedRequest): string => (JSON.parse(r.body) as { change: { id: string } }).change.id;

const count = <T>(xs: readonly T[], x: T) => xs.filter((y) => y === x).length;

describe('watchers end to end: down, then up, across a platform restart', () => {
  const log = testLogger('watchers');
  const received: ReceivedRequest[] = [];
  let dir: string;
  let ctx: KafkaTestContext;
  let receiver: TestServer;
  let registry: FixtureRegistry;
  let peer: { url: string; port: number; close(): Promise<void> } | null = null;
  let peerUrl: string;
  let peerPort: number;
  let config: Config;
  let platform: Platform | null = null;
  let options: PlatformOptions;
  let key: string;
  let id: string;

  const start = async () => (platform = await startPlatform(config, options));
  const p = () => platform!;

  /** One cycle of `run`: crawl the registry, then the daily run; a failed cycle fails the test. */
  const cycle = (): Promise<DailyRunReport> => dailyCycle(p(), ['mcp-registry']);

  const changes = (): Promise<ChangeRow[]> =>
    p().warehouse.query<ChangeRow>(
      `SELECT change_id, kind, cause_event_id, from_state, to_state, summary FROM agent_changes FINAL
       WHERE agent_key = {k:String} AND kind IN ('down', 'up') ORDER BY observed_at, kind`,
      { k: key },
    );
  const checks = () =>
    p().warehouse.query<{ event_id: string; uptime: string }>(
      'SELECT event_id, uptime FROM checks FINAL WHERE agent_key = {k:String} ORDER BY observed_at',
      { k: key },
    );
  const deliveries = () =>
    p().warehouse.query<{ change_id: string; kind: string; delivery_id: string; status: string; attempts: number }>(
      'SELECT change_id, kind, delivery_id, status, toUInt32(attempts) AS attempts FROM webhook_deliveries FINAL WHERE subscription_id = {s:String} ORDER BY change_observed_at',
      { s: SUBSCRIPTION },
    );
  /** Waits until the change of `kind` is in the table, delivered and recorded, and returns its id. */
  const settledChange = (kind: 'down' | 'up') =>
    pollUntil(
      `the ${kind} change logged, delivered and recorded`,
      async () => {
        const row = (await changes()).find((r) => r.kind === kind);
        if (!row) return { done: false, why: `no ${kind} row in agent_changes (checks: ${JSON.stringify(await checks())})` };
        const d = (await deliveries()).find((x) => x.change_id === row.change_id);
        if (!d) return { done: false, why: `${kind} ${row.change_id} has no delivery row (receiver got ${received.length} POSTs)` };
        return { done: true, value: row.change_id };
      },
      WAIT,
    );
  /** Every consumer downstream of agent-changes has read all of it: nothing is still on its way. */
  const quiet = async () => {
    const { kafka, topics } = p().kafka;
    await waitUntilConsumed(kafka, `${ctx.prefix}${CHANGE_LOG_GROUP}`, [topics.agentChanges], WAIT.timeoutMs);
    await waitUntilConsumed(kafka, p().webhooks!.runner.groupId, [topics.agentChanges], WAIT.timeoutMs);
    await waitUntilConsumed(kafka, `${ctx.prefix}${WEBHOOK_DELIVERIES_GROUP}`, [topics.webhookDeliveries], WAIT.timeoutMs);
  };
  const get = async (path: string, accept: string): Promise<string> => {
    const res = await fetch(`${p().apiUrl}${path}`, { headers: { accept }, signal: AbortSignal.timeout(10_000) });
    expect(res.status, path).toBe(200);
    return res.text();
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'veronikai-watchers-'));
    ctx = await setupKafkaTest(import.meta.url, { create: false });
    receiver = await startRecordingReceiver(received);
    // Every kind: the test then shows that only the down and the up arrive for them, once each.
    const file = join(dir, 'webhooks.json');
    writeFileSync(file, JSON.stringify({ subscriptions: [{ id: SUBSCRIPTION, url: `${receiver.url}/hook`, secret: SECRET }] }));

    peer = await startMcpServerOn(0);
    peerUrl = peer.url;
    peerPort = peer.port;
    key = agentKey('mcp', { endpointUrl: peerUrl })!;
    id = agentId(key);
    registry = await startFixtureRegistry([entry('io.github.acme/watched', { remoteUrl: peerUrl })]);

    config = loadConfig(
      {
        dataDir: join(dir, 'data'),
        brokers: ctx.brokers,
        port: 0,
        sourceUrl: [`mcp-registry=${registry.url}`],
        // A known-good target that stays up: with the default (public registries, unreachable
        // here) the canary fails and a refused probe would be judged unknown, never down.
        canaryUrl: [`${registry.url}/v0.1/servers`],
        budget: 10,
        sampleSize: 1,
      },
      { VERONIKAI_WEBHOOKS_FILE: file },
    );
    options = { log, topicPrefix: ctx.prefix, probePolicy: { allowLoopback: true } };
    await start();
    expect(p().webhooks?.subscriptionCount).toBe(1);
    expect(p().apiUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  }, 120_000);

  afterAll(async () => {
    await platform?.close();
    await peer?.close();
    await registry?.close();
    await receiver?.close();
    await ctx?.cleanup();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  let downId: string;
  let upId: string;

  it('lists the agent and finds it up: no down or up change yet', async () => {
    const report = await cycle();
    expect(report.planned).toBe(1);
    expect((await checks()).map((c) => c.uptime)).toEqual(['up']);
    await quiet();
    expect(await changes()).toEqual([]);
  }, 60_000);

  it('the server stops: one down change, logged and delivered', async () => {
    await peer!.close();
    peer = null;
    const report = await cycle();
    expect(report.planned).toBe(1);
    expect((await checks()).map((c) => c.uptime)).toEqual(['up', 'down']);
    downId = await settledChange('down');
    await quiet();
    expect((await changes()).map((r) => [r.kind, r.from_state, r.to_state])).toEqual([['down', 'up', 'down']]);
    // Down because the port refused the connection, with the agent's name from its listing.
    expect((await changes())[0]!.summary).toMatch(/^io\.github\.acme\/watched went down: .*refused/i);
    expect(received.filter((r) => changeIdOf(r) === downId)).toHaveLength(1);
  }, 60_000);

  it('the whole platform stops and starts again on the same data dir, broker and topics', async () => {
    await p().close();
    platform = null;
    await start();
    // Nothing is derived, logged or delivered again by the new members of the same groups.
    await quiet();
    expect(received.filter((r) => changeIdOf(r) === downId)).toHaveLength(1);
  }, 60_000);

  it('the server comes back on the same port: one up change, logged and delivered', async () => {
    peer = await startMcpServerOn(peerPort);
    expect(peer.url).toBe(peerUrl);
    const report = await cycle();
    expect(report.planned).toBe(1);
    expect((await checks()).map((c) => c.uptime)).toEqual(['up', 'down', 'up']);
    upId = await settledChange('up');
    await quiet();
    const [, down, up] = await checks();
    expect((await changes()).map((r) => [r.kind, r.cause_event_id, r.from_state, r.to_state])).toEqual([
      ['down', down!.event_id, 'up', 'down'],
      ['up', up!.event_id, 'down', 'up'],
    ]);
  }, 60_000);

  it('agent_changes holds exactly one down and one up, with FINAL and without', async () => {
    const rows = await changes();
    expect(rows.map((r) => r.change_id)).toEqual([downId, upId]);
    // Without FINAL: however many copies a redelivery left, there is one change id per kind.
    const raw = await p().warehouse.query<{ kind: string; ids: number }>(
      `SELECT kind, toUInt32(uniqExact(change_id)) AS ids FROM agent_changes
       WHERE agent_key = {k:String} AND kind IN ('down', 'up') GROUP BY kind ORDER BY kind`,
      { k: key },
    );
    expect(raw).toEqual([
      { kind: 'down', ids: 1 },
      { kind: 'up', ids: 1 },
    ]);
  });

  it('both ecosystem feeds and the agent feed carry each change exactly once', async () => {
    const entryId = (changeId: string) => `tag:veronikai.invalid,2026:change:${changeId}`;
    const atom = atomEntryIds(await get('/feed.atom', 'application/atom+xml'));
    const agentAtom = atomEntryIds(await get(`/agents/${id}/feed.atom`, 'application/atom+xml'));
    const json = JSON.parse(await get('/feed.json', 'application/feed+json')) as {
      items: Array<{ id: string; _veronikai: { kind: string; change_id: string; agent_id: string } }>;
    };
    for (const changeId of [downId, upId]) {
      expect(count(atom, entryId(changeId)), `/feed.atom ${changeId}`).toBe(1);
      expect(count(agentAtom, entryId(changeId)), `agent feed ${changeId}`).toBe(1);
      expect(
        count(
          json.items.map((i) => i._veronikai.change_id),
          changeId,
        ),
        `/feed.json ${changeId}`,
      ).toBe(1);
      expect(
        count(
          json.items.map((i) => i.id),
          entryId(changeId),
        ),
      ).toBe(1);
    }
    // Newest first: the up before the down.
    expect(atom.indexOf(entryId(upId))).toBeLessThan(atom.indexOf(entryId(downId)));
    const downs = json.items.filter((i) => i._veronikai.agent_id === id && ['down', 'up'].includes(i._veronikai.kind));
    expect(downs.map((i) => [i._veronikai.kind, i._veronikai.change_id])).toEqual([
      ['up', upId],
      ['down', downId],
    ]);
  });

  it('the receiver got one signed POST per change, none twice, and the table says delivered', async () => {
    const mine = received.filter((r) => [downId, upId].includes(changeIdOf(r)));
    expect(mine.map(changeIdOf)).toEqual([downId, upId]);
    // No delivery at all arrived twice (the listed change included), restart or not.
    const ids = received.map((r) => header(r, 'x-veronikai-delivery'));
    expect(new Set(ids).size).toBe(ids.length);
    for (const r of mine) {
      const changeId = changeIdOf(r);
      const body = JSON.parse(r.body) as { id: string; change: { id: string; kind: string; agentId: string; agentKey: string } };
      expect(body.change).toMatchObject({ id: changeId, kind: changeId === downId ? 'down' : 'up', agentId: id, agentKey: key });
      expect(header(r, 'x-veronikai-delivery')).toBe(deliveryId(SUBSCRIPTION, changeId));
      expect(body.id).toBe(header(r, 'x-veronikai-delivery'));
      expect(header(r, 'x-veronikai-event')).toBe(body.change.kind);
      // The signature, recomputed here as a receiver would: HMAC-SHA256 of "<timestamp>.<raw body>".
      const ts = header(r, 'x-veronikai-timestamp');
      expect(ts).toMatch(/^\d+$/);
      expect(Math.abs(Date.now() / 1000 - Number(ts))).toBeLessThan(300);
      const expected = `sha256=${createHmac('sha256', SECRET).update(`${ts}.${r.body}`).digest('hex')}`;
      expect(header(r, 'x-veronikai-signature')).toBe(expected);
      expect(header(r, 'x-veronikai-signature')).not.toBe(
        `sha256=${createHmac('sha256', `${SECRET}x`).update(`${ts}.${r.body}`).digest('hex')}`,
      );
      expect(verifySignature(SECRET, { timestamp: ts, signature: header(r, 'x-veronikai-signature') }, r.body)).toBe(true);
    }
    const rows = (await deliveries()).filter((d) => [downId, upId].includes(d.change_id));
    expect(rows).toEqual([
      { change_id: downId, kind: 'down', delivery_id: deliveryId(SUBSCRIPTION, downId), status: 'delivered', attempts: 1 },
      { change_id: upId, kind: 'up', delivery_id: deliveryId(SUBSCRIPTION, upId), status: 'delivered', attempts: 1 },
    ]);
  });
});
