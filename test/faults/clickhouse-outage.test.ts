import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConsumerRunner, ok } from '../../src/kafka/consumer-runner.js';
import { waitUntilConsumed } from '../../src/kafka/lag.js';
import { createEventProducer, type EventProducer } from '../../src/kafka/producer.js';
import { openWarehouse } from '../../src/warehouse/open.js';
import type { Warehouse } from '../../src/warehouse/warehouse.js';
import { CLICKHOUSE_SERVER_INSTALL, findClickHouseServer, freePort, writeServerConfig } from '../helpers/clickhouse-server.js';
import { setupKafkaTest, testLogger, uniqueGroupId, waitFor, type KafkaTestContext } from '../helpers/kafka.js';
import { insertScratch } from '../helpers/scratch-table.js';

/**
 * A ClickHouse server that goes away (SIGKILL) and comes back on the same data and port, under
 * a consumer that writes through the server adapter (HTTP): the consumer backs off while the
 * server is gone, resumes when it is back, and loses and duplicates nothing.
 *
 * The server is Debian's clickhouse-server 18.16, which cannot run the project's schema (no
 * DateTime64, no TTL): the sink writes a minimal ReplacingMergeTree table it can run, through
 * the same ServerWarehouse and ConsumerRunner (sink retries, heartbeats, commit after the
 * write) that every processor uses.
 */

const binary = findClickHouseServer();
const PER_WAVE = 100;

/** A clickhouse-server whose data directory and port survive a kill, so it can come back as it was. */
class RestartableClickHouse {
  readonly dir = mkdtempSync(join(tmpdir(), 'veronikai-ch-outage-'));
  port = 0;
  private child: ChildProcess | null = null;

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    if (!this.port) {
      this.port = await freePort();
      writeServerConfig(this.dir, this.port);
    }
    this.child = spawn(binary!, [`--config-file=${join(this.dir, 'config.xml')}`], { cwd: this.dir, stdio: 'ignore' });
    await waitFor(
      async () =>
        await fetch(`${this.url}/ping`)
          .then((r) => r.ok)
          .catch(() => false),
      30_000,
      'clickhouse-server to answer /ping',
    );
  }

  async kill(): Promise<void> {
    const c = this.child;
    if (!c || c.exitCode !== null || c.signalCode !== null) return;
    const gone = new Promise((r) => c.once('exit', r));
    c.kill('SIGKILL');
    await gone;
  }

  async remove(): Promise<void> {
    await this.kill();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

describe.skipIf(!binary)(
  binary
    ? 'a ClickHouse server going away and coming back under a processor'
    : `ClickHouse outage: skipped, clickhouse-server is not installed (${CLICKHOUSE_SERVER_INSTALL})`,
  () => {
    let ctx: KafkaTestContext;
    let server: RestartableClickHouse;
    let wh: Warehouse;
    let producer: EventProducer;

    beforeAll(async () => {
      ctx = await setupKafkaTest(import.meta.url, { maxPartitions: 1 });
      server = new RestartableClickHouse();
      await server.start();
      wh = await openWarehouse({ kind: 'server', url: server.url, database: 'faults' }, { createDatabase: true });
      await wh.exec(
        'CREATE TABLE IF NOT EXISTS events (id String, wave UInt8, version UInt64) ENGINE = ReplacingMergeTree(version) ORDER BY id',
      );
      producer = await createEventProducer(ctx.kafka);
    }, 120_000);

    afterAll(async () => {
      await producer?.close();
      await wh?.close();
      await server?.remove();
      await ctx?.cleanup();
    });

    const wave = (n: number) =>
      producer.send(
        ctx.topics.sourceFetches,
        Array.from({ length: PER_WAVE }, (_, i) => ({ key: `k${i}`, value: Buffer.from(JSON.stringify({ id: `w${n}-${i}`, wave: n })) })),
      );

    it('backs off while the server is gone, resumes when it is back, and writes every message once', { timeout: 90_000 }, async () => {
      const group = uniqueGroupId('ch-outage');
      const failures: number[] = [];
      const runner = new ConsumerRunner<{ id: string; wave: number }>({
        kafka: ctx.kafka,
        groupId: group,
        topics: [ctx.topics.sourceFetches],
        deadLetterTopic: ctx.topics.deadLetters,
        logger: testLogger('ch-outage'),
        handler: (m) => ok(JSON.parse(m.value!.toString()) as { id: string; wave: number }),
        sink: async (items) => {
          try {
            await insertScratch(
              wh,
              'events',
              items.map((i) => ({ ...i.value, version: Number(i.source.offset) })),
            );
          } catch (err) {
            failures.push(Date.now());
            throw err;
          }
        },
        sinkRetryBackoffMs: 200,
      });
      await runner.start();
      try {
        await wave(1);
        await waitUntilConsumed(ctx.kafka, group, [ctx.topics.sourceFetches], 30_000);

        await server.kill();
        await wave(2);
        // The sink fails and the runner waits longer each time, without committing.
        await waitFor(() => failures.length >= 4, 30_000, 'four failed writes while the server is gone');
        // Full-jitter doubling from 200 ms: the first pause is 100–200 ms, the third 400–800 ms,
        // so the third is at least 1.5× the first (a constant pause, however long, is not).
        const gaps = failures.slice(1).map((t, i) => t - failures[i]!);
        expect(gaps[2]!).toBeGreaterThanOrEqual(395);
        expect(gaps[2]!).toBeGreaterThanOrEqual(1.5 * gaps[0]!);
        const [offsets] = await (async () => {
          const admin = ctx.kafka.admin();
          await admin.connect();
          try {
            return await admin.fetchOffsets({ groupId: group, topics: [ctx.topics.sourceFetches] });
          } finally {
            await admin.disconnect();
          }
        })();
        expect(offsets!.partitions.map((p) => Number(p.offset))).toEqual([PER_WAVE]);

        await server.start();
        await waitUntilConsumed(ctx.kafka, group, [ctx.topics.sourceFetches], 60_000);
        // Still running after the outage: a runner that gave up has settled `done` by now (one
        // turn of the event loop lets its callbacks run).
        let settled: unknown = 'running';
        void runner.done.then(
          () => (settled = 'stopped'),
          (err: unknown) => (settled = err),
        );
        await new Promise((r) => setImmediate(r));
        expect(settled).toBe('running');
      } finally {
        await runner.stop();
      }
      const rows = await wh.query<{ n: string; ids: string; waves: number[] }>(
        'SELECT toString(count()) AS n, toString(uniqExact(id)) AS ids, groupUniqArray(wave) AS waves FROM events FINAL',
      );
      expect(rows).toEqual([{ n: String(2 * PER_WAVE), ids: String(2 * PER_WAVE), waves: expect.arrayContaining([1, 2]) }]);
    });
  },
);
