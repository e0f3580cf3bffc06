import { join } from 'node:path';
import type { Kafka } from 'kafkajs';
import type { Config } from '../config.js';
import { createKafka } from '../kafka/client.js';
import { ensureTopics } from '../kafka/topics-admin.js';
import type { Logger } from '../log.js';
import { startBroker, type BrokerHandle } from '../stack/kafka/index.js';
import { topicNames, type TopicNames } from '../topics.js';

export interface KafkaRuntime {
  kafka: Kafka;
  brokers: string;
  topics: TopicNames;
  /** The broker this process started, when it started one. */
  broker: BrokerHandle | null;
}

/**
 * Connects to the configured brokers, or starts the local single-node broker
 * in the data directory when none is configured (the embedded default), and
 * makes sure every topic exists with its spec.
 */
export async function openKafka(
  config: Config,
  log: Logger,
  opts: { clientId: string; topicPrefix?: string; brokerPort?: number },
): Promise<KafkaRuntime> {
  let broker: BrokerHandle | null = null;
  let brokers = config.kafkaBrokers.join(',');
  if (!brokers) {
    log.info({ dataDir: join(config.dataDir, 'kafka') }, 'starting the local Kafka broker');
    broker = await startBroker({
      dataDir: config.dataDir,
      cacheDir: config.cacheDir,
      port: opts.brokerPort ?? 0,
      controllerPort: 0,
      logger: log,
    });
    brokers = broker.brokers;
  }
  try {
    const kafka = createKafka({ brokers, clientId: opts.clientId, logger: log });
    const topics = topicNames(opts.topicPrefix ?? '');
    await ensureTopics(kafka, opts.topicPrefix ?? '', {
      logger: log,
      ...(config.kafka.replicationFactor !== null ? { replicationFactor: config.kafka.replicationFactor } : {}),
      ...(config.kafka.minInsyncReplicas !== null ? { minInsyncReplicas: config.kafka.minInsyncReplicas } : {}),
    });
    return { kafka, brokers, topics, broker };
  } catch (err) {
    // The caller never gets the handle: stop the broker this call started.
    await broker?.stop().catch((e: unknown) => log.warn({ err: e }, 'error while stopping the local Kafka broker'));
    throw err;
  }
}
