import type { Config } from '../config.js';
import { buildApi } from '../api/server.js';
import { signVerdict } from '../conformance/index.js';
import type { ConsumerRunner } from '../kafka/consumer-runner.js';
import { createEventProducer, type EventProducer } from '../kafka/producer.js';
import type { Logger } from '../log.js';
import { createProcessors } from '../processors/index.js';
import type { Signer } from '../processors/verdicts/judge-probe.js';
import { Canary } from '../producers/canary.js';
import { KafkaObservationSink } from '../producers/kafka-sink.js';
import { ProbeEngine } from '../producers/probe/probe-agent.js';
import { canaryEventSink, PROBE_WORKER_GROUP, ProbeWorker } from '../producers/probe-worker.js';
import type { AddressPolicy } from '../producers/http/types.js';
import { loadSigningKey } from '../signing/keys.js';
import { migrate } from '../warehouse/migrate.js';
import { openWarehouse } from '../warehouse/open.js';
import type { Warehouse } from '../warehouse/warehouse.js';
import { defaultPipelineGroups, type PipelineGroups } from './daily.js';
import { openKafka, type KafkaRuntime } from './kafka.js';

export interface Platform {
  config: Config;
  warehouse: Warehouse;
  kafka: KafkaRuntime;
  producer: EventProducer;
  sink: KafkaObservationSink;
  processors: ConsumerRunner<unknown>[];
  probeWorker: ProbeWorker | null;
  groups: PipelineGroups;
  /** Where the API listens, when it was started. */
  apiUrl: string | null;
  /**
   * Resolves with the reason when a processor or the probe worker stops on a failure (its
   * `done` rejects); never settles otherwise. The platform does not restart it: whoever runs
   * the platform should shut down and exit non-zero, so that a supervisor restarts the process.
   */
  failed: Promise<Error>;
  close(): Promise<void>;
}

export interface PlatformOptions {
  log: Logger;
  api?: boolean;
  processors?: boolean;
  /** Run a probe worker in this process (default true). */
  probes?: boolean;
  /** Probe address policy: only tests loosen it (never the CLI of `run`). */
  probePolicy?: AddressPolicy;
  /** Known-good targets for the canary (none: canary state unknown). */
  canaryTargets?: readonly string[];
  topicPrefix?: string;
  /** Signs verdicts; default: the configured key (generated in the data dir on first use). */
  sign?: Signer;
}

/** Opens the warehouse (migrated), Kafka (local broker when none is configured), processors, a probe worker and the API. */
export async function startPlatform(config: Config, opts: PlatformOptions): Promise<Platform> {
  const { log } = opts;
  let reportFailure!: (err: Error) => void;
  const failed = new Promise<Error>((resolve) => (reportFailure = resolve));
  const watch = (groupId: string, done: Promise<void>) => {
    done.catch((err: unknown) => {
      const reason = err instanceof Error ? err.message : String(err);
      reportFailure(new Error(`consumer group ${groupId} stopped on a failure: ${reason}`, { cause: err }));
    });
  };
  const closers: Array<() => Promise<void>> = [];
  // Each step gets a bounded time, so one component that cannot finish (say, a consumer
  // whose broker vanished) never keeps the others, or the process, from shutting down.
  const close = async () => {
    for (const c of closers.reverse()) {
      await withTimeout(c(), CLOSE_STEP_TIMEOUT_MS).catch((err: unknown) => log.warn({ err }, 'error while shutting down'));
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

    const sign = opts.sign ?? defaultSigner(config);
    const processors: ConsumerRunner<unknown>[] = [];
    if (opts.processors !== false) {
      for (const runner of createProcessors({ kafka: kafka.kafka, warehouse, topics: kafka.topics, logger: log, sign, optOutFile: config.optOutFile ?? null, groupPrefix: opts.topicPrefix ?? '' })) {
        await runner.start();
        processors.push(runner);
        closers.push(() => runner.stop());
        watch(runner.groupId, runner.done);
      }
    }

    let probeWorker: ProbeWorker | null = null;
    if (opts.probes !== false) {
      const policy = opts.probePolicy ?? {};
      const canary = new Canary({
        targets: opts.canaryTargets ?? [],
        contact: config.contact,
        ...policy,
        onEvent: canaryEventSink(producer, kafka.topics),
        logger: log,
      });
      const engine = new ProbeEngine({ contact: config.contact, canary, logger: log, ...policy });
      probeWorker = new ProbeWorker({ groupId: `${opts.topicPrefix ?? ''}${PROBE_WORKER_GROUP}`, kafka: kafka.kafka, topics: kafka.topics, engine, producer, logger: log });
      await probeWorker.start();
      const worker = probeWorker;
      closers.push(() => worker.stop());
      watch(PROBE_WORKER_GROUP, worker.done);
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
    const groups: PipelineGroups = defaultPipelineGroups(undefined, opts.topicPrefix ?? '');
    return { config, warehouse, kafka, producer, sink, processors, probeWorker, groups, apiUrl, failed, close };
  } catch (err) {
    await close();
    throw err;
  }
}

const CLOSE_STEP_TIMEOUT_MS = 15_000;

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`shutdown step did not finish within ${ms} ms`)), ms);
    timer.unref();
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

/** Verdict signatures with the configured Ed25519 key: the attestation as JSON text. */
export function defaultSigner(config: Config): Signer {
  const key = loadSigningKey({ dataDir: config.dataDir });
  return (v) => JSON.stringify(signVerdict(v, key.privateKey));
}
