/**
 * The dedupe processor in its own process, for the crash tests (test/faults/processor-crash.test.ts).
 *
 * CRASH_AT chooses where it kills itself with SIGKILL, on the CRASH_BATCH-th batch (1-based):
 *   none           consume everything, write SNAPSHOT_FILE, exit 0;
 *   before-insert  at the batch's first warehouse insert, before anything of it is written;
 *   mid-batch      after the batch's `listings` rows are written and half of its `agents`
 *                  rows, before the rest (the batch is half applied);
 *   after-insert   after the whole batch is written, before its offset commit.
 * The crash points live here, in a wrapper around the warehouse the processor writes through
 * (and the runner's existing afterSinkBeforeCommit hook), not in src/: production code has no
 * test switch.
 */
import { writeFileSync } from 'node:fs';
import { createKafka } from '../../src/kafka/client.js';
import { waitUntilConsumed } from '../../src/kafka/lag.js';
import { silentLogger } from '../../src/log.js';
import { createDedupeProcessor } from '../../src/processors/dedupe.js';
import { topicNames } from '../../src/topics.js';
import { EmbeddedWarehouse } from '../../src/warehouse/embedded.js';
import { migrate } from '../../src/warehouse/migrate.js';
import type { Warehouse } from '../../src/warehouse/warehouse.js';

export type CrashPoint = 'none' | 'before-insert' | 'mid-batch' | 'after-insert';

const env = process.env;
const crashAt = (env.CRASH_AT ?? 'none') as CrashPoint;
const crashBatch = Number(env.CRASH_BATCH ?? '1');
const die = (): never => {
  process.kill(process.pid, 'SIGKILL');
  throw new Error('unreachable');
};

const inner = new EmbeddedWarehouse(env.DATA_DIR!);
await migrate(inner);

// Batches are counted by their `listings` insert: the dedupe sink writes listings first, then agents.
let batch = 0;
const warehouse: Warehouse = new Proxy(inner, {
  get(target, prop, receiver) {
    if (prop !== 'insert') {
      const v = Reflect.get(target, prop, receiver) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    }
    return async (table: string, rows: readonly Record<string, unknown>[]) => {
      if (table === 'listings') {
        batch++;
        if (crashAt === 'before-insert' && batch === crashBatch) die();
      }
      if (table === 'agents' && crashAt === 'mid-batch' && batch === crashBatch && rows.length > 0) {
        await target.insert(table, rows.slice(0, Math.ceil(rows.length / 2)));
        die();
      }
      return target.insert(table, rows);
    };
  },
});

const kafka = createKafka({ brokers: env.BROKERS!, clientId: 'dedupe-crash-worker', logger: silentLogger });
const topics = topicNames(env.PREFIX!);
let committedBatches = 0;
const runner = createDedupeProcessor({
  kafka,
  warehouse,
  topics,
  logger: silentLogger,
  groupId: env.GROUP!,
  // A killed member never leaves the group; the broker's minimum session lets the restart take over soonest.
  sessionTimeoutMs: 6000,
  hooks: {
    afterSinkBeforeCommit: () => {
      if (crashAt === 'after-insert' && committedBatches + 1 === crashBatch) die();
    },
    afterCommit: () => {
      committedBatches++;
    },
  },
});
await runner.start();
await waitUntilConsumed(kafka, env.GROUP!, [topics.listings], 60_000);
await runner.stop();
if (crashAt !== 'none') {
  // The crash point was never reached: say so, so the test fails on its premise rather than passing by accident.
  process.stderr.write(`crash point ${crashAt} at batch ${crashBatch} not reached (${batch} batch(es) written)\n`);
  process.exit(3);
}
const listings = await inner.query(
  `SELECT source, item_id, agent_key, name, status, tombstoned, content_hash, toString(changed_at) AS changed_at,
          toString(first_seen) AS first_seen, toString(last_seen) AS last_seen, last_event_id
   FROM listings FINAL ORDER BY source, item_id`,
);
const agents = await inner.query('SELECT * FROM agents FINAL ORDER BY agent_key');
writeFileSync(env.SNAPSHOT_FILE!, JSON.stringify({ listings, agents, batches: batch }));
await inner.close();
process.exit(0);
