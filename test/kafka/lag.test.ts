import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lagOf, waitUntilConsumed } from '../../src/kafka/lag.js';
import { setupKafkaTest, type KafkaTestContext } from '../helpers/kafka.js';

describe('consumer lag, read one way', () => {
  let ctx: KafkaTestContext;
  beforeAll(async () => {
    ctx = await setupKafkaTest(import.meta.url, { maxPartitions: 1 });
  }, 120_000);
  afterAll(async () => {
    await ctx?.cleanup();
  });

  it('counts a partition a group never committed from its low watermark, not from offset 0', async () => {
    const topic = ctx.topics.probeRequests;
    const producer = ctx.kafka.producer();
    await producer.connect();
    await producer.send({ topic, messages: Array.from({ length: 5 }, (_, i) => ({ key: 'k', value: `m${i}` })) });
    await producer.disconnect();
    const admin = ctx.kafka.admin();
    await admin.connect();
    try {
      expect(await lagOf(admin, 'never-committed', [topic])).toBe(5n);
      // Retention took the first three messages: the group can read only two.
      await admin.deleteTopicRecords({ topic, partitions: [{ partition: 0, offset: '3' }] });
      expect(await lagOf(admin, 'never-committed', [topic])).toBe(2n);
      await admin.setOffsets({ groupId: 'caught-up', topic, partitions: [{ partition: 0, offset: '5' }] });
      expect(await lagOf(admin, 'caught-up', [topic])).toBe(0n);
    } finally {
      await admin.disconnect();
    }
    await expect(waitUntilConsumed(ctx.kafka, 'caught-up', [topic], 5_000)).resolves.toBeUndefined();
    await expect(waitUntilConsumed(ctx.kafka, 'never-committed', [topic], 300)).rejects.toThrow(/2 message\(s\) behind/);
  }, 60_000);
});
