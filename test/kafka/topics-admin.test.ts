import kafkajs from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureTopics } from '../../src/kafka/topics-admin.js';
import { ALL_TOPICS, TOPICS, topicNames } from '../../src/topics.js';
import { setupKafkaTest, waitFor, type KafkaTestContext } from '../helpers/kafka.js';

const { ConfigResourceTypes } = kafkajs;

describe('ensureTopics', () => {
  let ctx: KafkaTestContext;
  beforeAll(async () => {
    ctx = await setupKafkaTest(import.meta.url, { create: false });
  });
  afterAll(async () => {
    await ctx?.cleanup();
  });

  async function configOf(topic: string, names: string[]): Promise<Record<string, string>> {
    const admin = ctx.kafka.admin();
    await admin.connect();
    try {
      const res = await admin.describeConfigs({
        includeSynonyms: false,
        resources: [{ type: ConfigResourceTypes.TOPIC, name: topic, configNames: names }],
      });
      return Object.fromEntries(res.resources[0]!.configEntries.map((c) => [c.configName, c.configValue]));
    } finally {
      await admin.disconnect();
    }
  }

  // Each test creates its topics under its own prefix below the file's (cleanup deletes them all):
  // no test reads topics another test created or altered.
  it('creates every topic with its partitions and config, and a second run changes nothing', async () => {
    const prefix = ctx.prefix + 'create.';
    const first = await ensureTopics(ctx.kafka, prefix);
    expect(first.created.sort()).toEqual(ALL_TOPICS.map((t) => prefix + t.name).sort());
    expect(first.existing).toEqual([]);

    const second = await ensureTopics(ctx.kafka, prefix);
    expect(second.created).toEqual([]);
    expect(second.existing.sort()).toEqual(first.created.sort());
    expect(second.reconfigured).toEqual([]);
    expect(second.warnings).toEqual([]);

    const admin = ctx.kafka.admin();
    await admin.connect();
    try {
      const meta = await admin.fetchTopicMetadata({ topics: first.created });
      const counts = Object.fromEntries(meta.topics.map((t) => [t.name, t.partitions.length]));
      for (const spec of ALL_TOPICS) expect(counts[prefix + spec.name], spec.name).toBe(spec.partitions);
      for (const t of meta.topics) for (const p of t.partitions) expect(p.replicas).toHaveLength(1);
    } finally {
      await admin.disconnect();
    }
  });

  it('keeps observation topics forever (retention.ms = -1) and probe requests for a week', async () => {
    const prefix = ctx.prefix + 'retention.';
    await ensureTopics(ctx.kafka, prefix, { maxPartitions: 1 });
    const topics = topicNames(prefix);
    for (const key of ['sourceFetches', 'listings', 'probes', 'canary', 'runs', 'deadLetters'] as const) {
      expect(await configOf(topics[key], ['retention.ms']), key).toEqual({ 'retention.ms': '-1' });
    }
    expect(await configOf(topics.probeRequests, ['retention.ms'])).toEqual({ 'retention.ms': TOPICS.probeRequests.config['retention.ms'] });
  });

  it('sets config that drifted back to the spec and keeps other dynamic settings', async () => {
    const prefix = ctx.prefix + 'drift.';
    const spec = { maxPartitions: 1, topics: [TOPICS.probes] };
    await ensureTopics(ctx.kafka, prefix, spec);
    const probes = topicNames(prefix).probes;
    const admin = ctx.kafka.admin();
    await admin.connect();
    try {
      await admin.alterConfigs({
        validateOnly: false,
        resources: [
          {
            type: ConfigResourceTypes.TOPIC,
            name: probes,
            configEntries: [
              { name: 'retention.ms', value: '3600000' },
              { name: 'retention.bytes', value: '-1' },
              { name: 'max.message.bytes', value: '2097152' },
            ],
          },
        ],
      });
    } finally {
      await admin.disconnect();
    }
    // The broker applies a config change once it reaches its metadata log: wait for it.
    await waitFor(async () => (await configOf(probes, ['retention.ms']))['retention.ms'] === '3600000', 10_000, 'the altered config');

    const again = await ensureTopics(ctx.kafka, prefix, spec);
    expect(again.reconfigured).toEqual([probes]);
    expect(await configOf(probes, ['retention.ms', 'max.message.bytes'])).toEqual({
      'retention.ms': '-1',
      'max.message.bytes': '2097152',
    });
  });

  it('caps partitions when asked, for tests and tiny deployments', async () => {
    const prefix = ctx.prefix + 'cap.';
    const res = await ensureTopics(ctx.kafka, prefix, { maxPartitions: 2, topics: [TOPICS.probes, TOPICS.canary] });
    expect(res.created.sort()).toEqual([prefix + 'canary', prefix + 'probes']);
    const admin = ctx.kafka.admin();
    await admin.connect();
    try {
      const meta = await admin.fetchTopicMetadata({ topics: res.created });
      expect(Object.fromEntries(meta.topics.map((t) => [t.name, t.partitions.length]))).toEqual({
        [prefix + 'probes']: 2,
        [prefix + 'canary']: 1,
      });
    } finally {
      await admin.disconnect();
    }
  });
});
