/**
 * A dedupe processor in its own process, for the crash test: with CRASH_AFTER_SINK=1
 * it kills itself with SIGKILL after the sink has written a batch and before the
 * offset commit, exactly where a real crash would hurt most.
 */
import { createKafka } from '../../src/kafka/client.js';
import { silentLogger } from '../../src/log.js';
import { createDedupeProcessor } from '../../src/processors/dedupe.js';
import { waitUntilConsumed } from '../../src/kafka/lag.js';
import { topicNames } from '../../src/topics.js';
import { EmbeddedWarehouse } from '../../src/warehouse/embedded.js';

const { BROKERS, PREFIX, GROUP, DATA_DIR, CRASH_AFTER_SINK } = process.env;
const warehouse = new EmbeddedWarehouse(DATA_DIR!);
const kafka = createKafka({ brokers: BROKERS!, clientId: 'dedupe-worker', logger: silentLogger });
const topics = topicNames(PREFIX!);
const runner = createDedupeProcessor({
  kafka,
  warehouse,
  topics,
  logger: silentLogger,
  groupId: GROUP!,
  // The crashed member never leaves the group; a short session lets the restart take over quickly.
  sessionTimeoutMs: 6000,
  hooks: {
    afterSinkBeforeCommit: () => {
      if (CRASH_AFTER_SINK === '1') process.kill(process.pid, 'SIGKILL');
    },
  },
});
await runner.start();
await waitUntilConsumed(kafka, GROUP!, [topics.listings], 60_000);
await runner.stop();
await warehouse.close();
process.exit(0);
