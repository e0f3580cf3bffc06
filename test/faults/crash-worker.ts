/**
 * A processor in its own process, for the crash tests (test/faults/processor-crash.test.ts):
 * PROCESSOR is `dedupe` (listings → listings, agents) or `verdicts` (probes → checks, verdicts,
 * agent_latest, the read-model refreshes and the change events).
 *
 * CRASH_AT chooses where it kills itself with SIGKILL, on the CRASH_BATCH-th batch (1-based):
 *   none           consume everything, write SNAPSHOT_FILE, exit 0;
 *   before-insert  at the batch's first warehouse insert, before anything of it is written;
 *   mid-batch      after the batch's first table is written and half of its second table's
 *                  rows, before the rest (the batch is half applied);
 *   after-insert   after the whole batch is written (for verdicts, its changes published too),
 *                  before its offset commit.
 * The crash points live here, in a wrapper around the warehouse the processor writes through
 * (and the runner's existing afterSinkBeforeCommit hook), not in src/: production code has no
 * test switch.
 */
import { createPrivateKey } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { createKafka } from '../../src/kafka/client.js';
import type { ConsumerRunner, ConsumerRunnerHooks } from '../../src/kafka/consumer-runner.js';
import { waitUntilConsumed } from '../../src/kafka/lag.js';
import { silentLogger } from '../../src/log.js';
import { createDedupeProcessor } from '../../src/processors/dedupe.js';
import { createVerdictProcessor } from '../../src/processors/verdicts/processor.js';
import { topicNames, type TopicNames } from '../../src/topics.js';
import { EmbeddedWarehouse } from '../../src/warehouse/embedded.js';
import { migrate } from '../../src/warehouse/migrate.js';
import type { InsertRow, TableName } from '../../src/warehouse/tables.js';
import type { Warehouse } from '../../src/warehouse/warehouse.js';

export type CrashPoint = 'none' | 'before-insert' | 'mid-batch' | 'after-insert';
export type CrashedProcessor = 'dedupe' | 'verdicts';

interface Deps {
  kafka: ReturnType<typeof createKafka>;
  warehouse: Warehouse;
  topics: TopicNames;
  groupId: string;
  hooks: ConsumerRunnerHooks;
}

/**
 * Per processor: the table whose insert starts a batch, the one a mid-batch crash half writes,
 * the topic it reads, how it is made, and what the snapshot holds (columns that say when a row
 * was computed left out, and the latency digest, whose state depends on insert order).
 */
const PROCESSORS: Record<
  CrashedProcessor,
  { first: string; split: string; topic: keyof TopicNames; make: (d: Deps) => ConsumerRunner<unknown>; tables: Record<string, string> }
> = {
  dedupe: {
    first: 'listings',
    split: 'agents',
    topic: 'listings',
    make: (d) => createDedupeProcessor({ ...d, logger: silentLogger, sessionTimeoutMs: 6000 }) as ConsumerRunner<unknown>,
    tables: {
      listings: `SELECT source, item_id, agent_key, name, status, tombstoned, content_hash, toString(changed_at) AS changed_at,
                        toString(first_seen) AS first_seen, toString(last_seen) AS last_seen, last_event_id
                 FROM listings FINAL ORDER BY source, item_id`,
      agents: 'SELECT * FROM agents FINAL ORDER BY agent_key',
    },
  },
  verdicts: {
    first: 'checks',
    split: 'verdicts',
    topic: 'probes',
    make: (d) => {
      const key = createPrivateKey(process.env.SIGNING_KEY_PEM!);
      return createVerdictProcessor({ ...d, logger: silentLogger, sessionTimeoutMs: 6000, sign: key }) as ConsumerRunner<unknown>;
    },
    tables: {
      checks: 'SELECT * FROM checks FINAL ORDER BY event_id',
      // The signature fields name the batch a verdict was signed in, and a crash moves the batches' bounds.
      verdicts: 'SELECT * EXCEPT (judged_at, head_id, leaf_index, proof) FROM verdicts FINAL ORDER BY event_id',
      agent_latest: 'SELECT * EXCEPT (signature) FROM agent_latest FINAL ORDER BY agent_key',
      daily_rollups: 'SELECT * EXCEPT (computed_at) FROM daily_rollups FINAL ORDER BY day, protocol, source',
      agent_daily_history: 'SELECT * EXCEPT (computed_at, latency_digest) FROM agent_daily_history FINAL ORDER BY agent_key, day',
      agent_status: 'SELECT * EXCEPT (computed_at) FROM agent_status FINAL ORDER BY agent_key',
      run_samples: 'SELECT * FROM run_samples FINAL ORDER BY run_id, event_id',
    },
  },
};

const env = process.env;
const spec = PROCESSORS[(env.PROCESSOR ?? 'dedupe') as CrashedProcessor];
const crashAt = (env.CRASH_AT ?? 'none') as CrashPoint;
const crashBatch = Number(env.CRASH_BATCH ?? '1');
const die = (): never => {
  process.kill(process.pid, 'SIGKILL');
  throw new Error('unreachable');
};

const inner = new EmbeddedWarehouse(env.DATA_DIR!);
await migrate(inner);

// Batches are counted by their first insert: each sink writes its first table first.
let batch = 0;
const warehouse: Warehouse = new Proxy(inner, {
  get(target, prop, receiver) {
    if (prop !== 'insert') {
      const v = Reflect.get(target, prop, receiver) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    }
    return async <T extends TableName>(table: T, rows: readonly InsertRow<T>[]) => {
      if (table === spec.first) {
        batch++;
        if (crashAt === 'before-insert' && batch === crashBatch) die();
      }
      if (table === spec.split && crashAt === 'mid-batch' && batch === crashBatch && rows.length > 0) {
        await target.insert(table, rows.slice(0, Math.ceil(rows.length / 2)));
        die();
      }
      return target.insert(table, rows);
    };
  },
});

const kafka = createKafka({ brokers: env.BROKERS!, clientId: 'crash-worker', logger: silentLogger });
const topics = topicNames(env.PREFIX!);
let committedBatches = 0;
// A killed member never leaves the group; the broker's minimum session (6 s) lets the restart take over soonest.
const runner = spec.make({
  kafka,
  warehouse,
  topics,
  groupId: env.GROUP!,
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
await waitUntilConsumed(kafka, env.GROUP!, [topics[spec.topic]], 60_000);
await runner.stop();
if (crashAt !== 'none') {
  // The crash point was never reached: say so, so the test fails on its premise rather than passing by accident.
  process.stderr.write(`crash point ${crashAt} at batch ${crashBatch} not reached (${batch} batch(es) written)\n`);
  process.exit(3);
}
const snapshot: Record<string, unknown> = { batches: batch };
for (const [table, sql] of Object.entries(spec.tables)) snapshot[table] = await inner.query(sql);
writeFileSync(env.SNAPSHOT_FILE!, JSON.stringify(snapshot));
await inner.close();
process.exit(0);
