/**
 * A daily run on a local cluster of three KRaft nodes, one of them SIGKILLed in the middle of
 * the run: the run completes, and every probe event is in the warehouse once, as many as in the
 * same run on the same cluster without the fault. The killed node, started again, catches up
 * (it is back in the in-sync replicas of every partition). The cluster is the one the commands
 * make: `stack up --nodes 3`, `stack status --json`, `stack down`, in a data directory of the
 * test's own, on free ports, so it never touches the suite's single broker.
 *
 * Topics get three replicas and min.insync.replicas 2 (ensureTopics' defaults on three
 * brokers), so acks=all writes go on with a node lost. The run is test/faults/daily-run-child.ts
 * (every processor and a probe worker in one process, then one daily run), pointed at all three
 * nodes; N MCP servers on one loopback peer, HELD of which answer only once the node is killed,
 * so the node dies while probes are in flight.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import kafkajs from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventCodec } from '../../src/events/codec.js';
import type { ListingEvent } from '../../src/events/types.js';
import { createKafka } from '../../src/kafka/client.js';
import { createEventProducer } from '../../src/kafka/producer.js';
import { ensureTopics } from '../../src/kafka/topics-admin.js';
import type { StackStatus } from '../../src/runtime/stack.js';
import { stopCluster } from '../../src/stack/kafka/index.js';
import { topicNames, type TopicNames } from '../../src/topics.js';
import { runCli } from '../helpers/cli.js';
import { testLogger, uniqueTopicPrefix, waitFor } from '../helpers/kafka.js';
import { mcpListing } from '../helpers/listing-events.js';

const { ConfigResourceTypes } = kafkajs;
const N = 8;
const HELD = [0, 1];

interface ChildOut {
  report: { runId: string; planned: number } | null;
  error: string | null;
  tables: {
    checks: number;
    check_events: number;
    verdicts: number;
    verdict_events: number;
    latest: number;
    agents: number;
    planned: number;
  };
}

describe('a three-node cluster loses a node in the middle of a daily run', () => {
  let dataDir: string;
  let status: StackStatus;
  let peer: Server;
  let origin: string;
  let hold = false;
  const held: ServerResponse[] = [];
  const dirs: string[] = [];

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'veronikai-cluster-'));
    peer = createServer((req, res) => {
      const i = Number(/^\/mcp\/(\d+)$/.exec(req.url ?? '')?.[1] ?? NaN);
      if (hold && HELD.includes(i)) {
        held.push(res);
        return;
      }
      res.writeHead(Number.isInteger(i) ? 405 : 404, { 'content-type': 'text/plain' }).end();
    });
    await new Promise<void>((r) => peer.listen(0, '127.0.0.1', r));
    origin = `http://127.0.0.1:${(peer.address() as AddressInfo).port}`;
  }, 30_000);

  afterAll(async () => {
    for (const r of held) r.destroy();
    await new Promise<void>((r) => peer?.close(() => r()));
    if (dataDir) {
      await stopCluster({ dataDir, timeoutMs: 10_000 }).catch(() => []);
      rmSync(dataDir, { recursive: true, force: true });
    }
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  const stack = (...args: string[]) => runCli(['stack', ...args, '--data-dir', dataDir], {}, 180_000);

  /** The N listings, on the prefix's listings topic (created on the cluster with the defaults). */
  async function listed(prefix: string): Promise<TopicNames> {
    const kafka = createKafka({ brokers: status.bootstrapServers!, clientId: 'cluster-test', logger: testLogger('kafka') });
    await ensureTopics(kafka, prefix, { maxPartitions: 2 });
    const topics = topicNames(prefix);
    const now = Date.now();
    const codec = eventCodec();
    const listings: ListingEvent[] = Array.from({ length: N }, (_, i) =>
      mcpListing(i, origin, {
        id: `${prefix}listing-${i}`,
        observedAt: now - 1000,
        itemId: `io.github.cluster${i}/server`,
        name: `Cluster server ${i}`,
      }),
    );
    const producer = await createEventProducer(kafka);
    await producer.send(
      topics.listings,
      listings.map((l) => ({ key: `${l.source}:${l.itemId}`, value: codec.encode('Listing', l) })),
    );
    await producer.close();
    return topics;
  }

  /** One daily run in a child process on the cluster; `during` runs once it started. */
  async function dailyRun(label: string, during?: () => Promise<void>): Promise<ChildOut & { topics: TopicNames; stderr: string }> {
    const prefix = uniqueTopicPrefix(`cluster-${label}`);
    const topics = await listed(prefix);
    const dir = mkdtempSync(join(tmpdir(), `veronikai-cluster-${label}-`));
    dirs.push(dir);
    const out = join(dir, 'out.json');
    const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'daily-run-child.ts')], {
      env: {
        ...process.env,
        DATA_DIR: dir,
        BROKERS: status.bootstrapServers!,
        PREFIX: prefix,
        BUDGET: String(N),
        SAMPLE: String(N),
        OUT: out,
        STAGE_TIMEOUT_MS: '150000',
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      if (during)
        await Promise.race([
          during(),
          exited.then((code) => Promise.reject(new Error(`the run ended (${code}) before the fault: ${stderr}`))),
        ]);
      const code = await exited;
      expect(code, stderr).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
    return { ...(JSON.parse(readFileSync(out, 'utf8')) as ChildOut), topics, stderr };
  }

  it(
    'stack up --nodes 3, a run without the fault, the same run with a node SIGKILLed, the node back in sync, stack down',
    { timeout: 900_000 },
    async () => {
      const t0 = Date.now();
      // Where a slow run spends its time (the machine is shared): one line a phase.
      const phase = (what: string) => process.stderr.write(`[cluster] ${Math.round((Date.now() - t0) / 1000)} s: ${what}\n`);
      const up = await stack('up', '--nodes', '3', '--port', '0', '--heap', '384m');
      expect(up.code, up.stderr).toBe(0);
      expect(up.stdout).toMatch(/cluster of 3 nodes/);
      const json = await stack('status', '--json');
      expect(json.code, json.stderr).toBe(0);
      status = JSON.parse(json.stdout) as StackStatus;
      expect(status).toMatchObject({ running: true, kind: 'cluster' });
      expect(status.nodes).toHaveLength(3);
      for (const n of status.nodes)
        expect(n).toMatchObject({
          running: true,
          reachable: true,
          roles: ['broker', 'controller'],
          pid: expect.any(Number),
          address: expect.stringMatching(/^127\.0\.0\.1:\d+$/),
        });
      expect(status.bootstrapServers).toBe(status.nodes.map((n) => n.address).join(','));
      const upMs = Date.now() - t0;
      phase('three nodes up');

      const baseline = await dailyRun('baseline');
      expect(baseline.error, baseline.stderr).toBeNull();
      // Topics made on three brokers get three replicas, and a write needs two of them.
      expect(await replication(status.bootstrapServers!, baseline.topics.probes)).toEqual({ replicas: [3], minInsync: '2' });
      expect(baseline.tables).toMatchObject({ planned: N, checks: N, check_events: N, verdicts: N, verdict_events: N, agents: N });
      const baselineMs = Date.now() - t0 - upMs;
      phase('run without the fault done');

      // The fault: once the held probes are in flight, the node leading the most partitions dies.
      let killed = 0;
      const faulty = await dailyRun('fault', async () => {
        hold = true;
        await waitFor(() => held.length >= HELD.length, 120_000, 'the held probes to be in flight');
        const leaders = await leaderCounts(status.bootstrapServers!);
        killed = [...leaders.entries()].sort((a, b) => b[1] - a[1])[0]![0];
        phase(`probes in flight: SIGKILL node ${killed}`);
        process.kill(status.nodes.find((n) => n.id === killed)!.pid!, 'SIGKILL');
        hold = false;
        for (const r of held.splice(0)) r.destroy();
      });
      expect(killed).toBeGreaterThan(0);
      expect(faulty.error, faulty.stderr).toBeNull();
      // Every probe event once, as many as without the fault: what FINAL shows, and the distinct ids.
      expect(faulty.tables).toEqual(baseline.tables);
      const faultMs = Date.now() - t0 - upMs - baselineMs;
      phase('run with the fault done');

      const during = JSON.parse((await stack('status', '--json')).stdout) as StackStatus;
      expect(during.nodes.find((n) => n.id === killed)).toMatchObject({ running: false, pid: null });

      // The killed node, started again (stack up brings the cluster back to strength), catches up.
      const back = await stack('up', '--nodes', '3');
      expect(back.code, back.stderr).toBe(0);
      phase(`node ${killed} started again`);
      await waitFor(
        async () => (await outOfSync(status.bootstrapServers!, killed)).length === 0,
        120_000,
        `node ${killed} back in the in-sync replicas of every partition`,
      );
      const catchUpMs = Date.now() - t0 - upMs - baselineMs - faultMs;

      const down = await stack('down', '--timeout', '30s');
      expect(down.code, down.stderr).toBe(0);
      expect(down.stdout).toMatch(/^Kafka cluster stopped \(pids \d+, \d+, \d+\)$/m);
      const after = await stack('status', '--json');
      expect(after.code).toBe(3);
      expect((JSON.parse(after.stdout) as StackStatus).nodes.every((n) => !n.running)).toBe(true);
      process.stderr.write(
        `[cluster] up ${upMs} ms, baseline run ${baselineMs} ms, run with node ${killed} killed ${faultMs} ms, catch-up ${catchUpMs} ms, total ${Date.now() - t0} ms\n`,
      );
    },
  );
});

/** The replica counts of a topic's partitions (distinct) and its min.insync.replicas. */
async function replication(brokers: string, topic: string): Promise<{ replicas: number[]; minInsync: string | undefined }> {
  const admin = createKafka({ brokers, clientId: 'cluster-test', logger: testLogger('kafka') }).admin();
  await admin.connect();
  try {
    const { topics } = await admin.fetchTopicMetadata({ topics: [topic] });
    const described = await admin.describeConfigs({
      includeSynonyms: false,
      resources: [{ type: ConfigResourceTypes.TOPIC, name: topic }],
    });
    return {
      replicas: [...new Set(topics[0]!.partitions.map((p) => p.replicas.length))],
      minInsync: described.resources[0]?.configEntries.find((c) => c.configName === 'min.insync.replicas')?.configValue,
    };
  } finally {
    await admin.disconnect();
  }
}

/** Partitions each node leads, over every topic of the cluster. */
async function leaderCounts(brokers: string): Promise<Map<number, number>> {
  const admin = createKafka({ brokers, clientId: 'cluster-test', logger: testLogger('kafka') }).admin();
  await admin.connect();
  try {
    const { topics } = await admin.fetchTopicMetadata();
    const counts = new Map<number, number>();
    for (const t of topics) for (const p of t.partitions) counts.set(p.leader, (counts.get(p.leader) ?? 0) + 1);
    return counts;
  } finally {
    await admin.disconnect();
  }
}

/** `topic[partition]` of every partition that has `node` as a replica but not in sync. */
async function outOfSync(brokers: string, node: number): Promise<string[]> {
  const admin = createKafka({ brokers, clientId: 'cluster-test', logger: testLogger('kafka') }).admin();
  await admin.connect();
  try {
    const { topics } = await admin.fetchTopicMetadata();
    return topics.flatMap((t) =>
      t.partitions.filter((p) => p.replicas.includes(node) && !p.isr.includes(node)).map((p) => `${t.name}[${p.partitionId}]`),
    );
  } catch {
    return ['(metadata not available yet)'];
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}
