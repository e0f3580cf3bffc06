import type { Config } from '../config.js';
import { buildApi } from '../api/server.js';
import { createEventProducer, type EventProducer } from '../kafka/producer.js';
import type { Logger } from '../log.js';
import { createProcessors } from '../processors/index.js';
import { KafkaObservationSink } from '../producers/kafka-sink.js';
import { migrate } from '../warehouse/migrate.js';
import { openWarehouse } from '../warehouse/open.js';
import type { Warehouse } from '../warehouse/warehouse.js';
import { openKafka, type KafkaRuntime } from './kafka.js';
import type { ConsumerRunner } from '../kafka/consumer-runner.js';

export interface Platform {
  config: Config;
  warehouse: Warehouse;
  kafka: KafkaRuntime;
  producer: EventProducer;
  sink: KafkaObservationSink;
  processors: ConsumerRunner<unknown>[];
  /** Where the API listens, when it was started. */
  apiUrl: string | null;
  close(): Promise<void>;
}

export interface PlatformOptions {
  log: Logger;
  api?: boolean;
  processors?: boolean;
  topicPrefix?: string;
}

/** Opens the warehouse (migrated), Kafka (local broker when none is configured), processors and the API. */
export async function startPlatform(config: Config, opts: PlatformOptions): Promise<Platform> {
  const { log } = opts;
  const closers: Array<() => Promise<void>> = [];
  const close = async () => {
    for (const c of closers.reverse()) {
      await c().catch((err: unknown) => log.warn({ err }, 'error while shutting down'));
    }
    closers.length = 0;
  };
  try {
    const warehouse = await openWarehouse(config.warehouse, { createDatabase: true });
    closers.push(() => warehouse.close());
    const migrated = await migrate(warehouse, { logger: log });
    log.info({ applied: migrated.applied.length, alreadyApplied: migrated.alreadyApplied }, 'warehouse ready');

    const kafka = await openKafka(config, log, { clientId: 'veronikai', topicPrefix: opts.topicPrefix });
    if (kafka.broker) closers.push(() => kafka.broker!.stop());
    const producer = await createEventProducer(kafka.kafka, { logger: log });
    closers.push(() => producer.close());
    const sink = new KafkaObservationSink(producer, kafka.topics);

    const processors: ConsumerRunner<unknown>[] = [];
    if (opts.processors !== false) {
      for (const runner of createProcessors({ kafka: kafka.kafka, warehouse, topics: kafka.topics, logger: log })) {
        await runner.start();
        processors.push(runner);
        closers.push(() => runner.stop());
      }
    }

    let apiUrl: string | null = null;
    if (opts.api !== false) {
      const api = buildApi({ warehouse });
      await api.listen({ host: config.apiHost, port: config.apiPort });
      const addr = api.server.address();
      const port = typeof addr === 'object' && addr ? addr.port : config.apiPort;
      apiUrl = `http://${config.apiHost.includes(':') ? `[${config.apiHost}]` : config.apiHost}:${port}`;
      closers.push(() => api.close());
    }
    return { config, warehouse, kafka, producer, sink, processors, apiUrl, close };
  } catch (err) {
    await close();
    throw err;
  }
}
