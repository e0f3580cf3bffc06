import { settleAll } from '../util/settle.js';
import type { Config } from '../config.js';
import { buildApi } from '../api/server.js';
import type { ConsumerRunner } from '../kafka/consumer-runner.js';
import { createEventProducer, type EventProducer } from '../kafka/producer.js';
import type { Logger } from '../log.js';
import { createProcessors, PROCESSOR_NAMES } from '../processors/index.js';
import type { Signer } from '../processors/verdicts/judge-probe.js';
import { Canary } from '../producers/canary.js';
import { KafkaObservationSink } from '../producers/kafka-sink.js';
import { ProbeEngine } from '../producers/probe/probe-agent.js';
import { canaryEventSink, PROBE_WORKER_GROUP, ProbeWorker } from '../producers/probe-worker.js';
import type { AddressPolicy } from '../http/types.js';
import { loadWebhookSubscriptions, WEBHOOK_DELIVERER_GROUP, WebhookDeliverer } from '../webhooks/index.js';
import { loadSigningKey } from '../signing/keys.js';
import { withTimeout } from '../util/time.js';
import { API_CONNECTION } from '../warehouse/limits.js';
import { migrate } from '../warehouse/migrate.js';
import { openWarehouse } from '../warehouse/open.js';
import type { Warehouse } from '../warehouse/warehouse.js';
import { canaryTargetsFor } from './canary-targets.js';
import { defaultPipelineGroups, type PipelineGroups } from './daily.js';
import { openKafka, type KafkaRuntime } from './kafka.js';
import { startInstance } from './instance.js';

/**
 * Every role of the platform is composed here, for `run` and for each role on its own: a
 * command says which parts it needs and gets them opened in order, watched, and closed in
 * reverse order with a bounded time per step.
 */
export interface Platform {
  config: Config;
  log: Logger;
  /** The warehouse (throws when the platform was started without one). */
  readonly warehouse: Warehouse;
  /** Kafka, with its topic names (throws when started without Kafka). */
  readonly kafka: KafkaRuntime;
  readonly producer: EventProducer;
  /** Where producers write observations (throws without Kafka). */
  readonly sink: KafkaObservationSink;
  processors: ConsumerRunner<unknown>[];
  probeWorker: ProbeWorker | null;
  /** The webhook deliverer, when a subscriptions file is configured and this platform delivers. */
  webhooks: WebhookDeliverer | null;
  groups: PipelineGroups;
  /** Where the API listens, when it was started. */
  apiUrl: string | null;
  /** Where the read-only ClickHouse HTTP interface listens, when --clickhouse-port asked for it. */
  clickhouseUrl: string | null;
  /** Its user and where its password is (never the password itself). */
  clickhouseLogin: string | null;
  /**
   * Resolves with the reason when a processor or the probe worker stops on a failure (its
   * `done` rejects); never settles otherwise. The platform does not restart it: whoever runs
   * the platform should shut down and exit non-zero, so that a supervisor restarts the process.
   */
  failed: Promise<Error>;
  /** Closes every part, last opened first; each step bounded, later steps run even when one fails. Idempotent. */
  close(): Promise<void>;
}

export interface PlatformOptions {
  log: Logger;
  /** Open the warehouse (default true); migrated first unless `migrate` is false. */
  warehouse?: boolean;
  migrate?: boolean;
  /** Open Kafka, the local broker when none is configured (default true). */
  kafka?: boolean;
  /** Serve the read API (default true). */
  api?: boolean;
  /** Which processors run here: all (true, the default), none (false) or these names. */
  processors?: boolean | readonly string[];
  /** Run a probe worker in this process (default true). */
  probes?: boolean;
  /** Probe address policy: only tests and `--allow-loopback` loosen it (webhook targets follow it too). */
  probePolicy?: AddressPolicy;
  /**
   * Deliver webhooks here when VERONIKAI_WEBHOOKS_FILE is set (default: when every processor runs
   * here, as in `run`; a role without the warehouse cannot, since the deliverer reads what it sent).
   */
  webhooks?: boolean;
  /** Known-good targets for the canary (default: from the configuration). */
  canaryTargets?: readonly string[];
  topicPrefix?: string;
  /** Kafka client id (default `veronikai`). */
  clientId?: string;
  /** Signs verdicts; default: the configured key (generated in the data dir on first use). */
  sign?: Signer;
  /** Retries of a failing sink write before a processor stops (tests shorten the minutes of backoff). */
  sinkRetries?: number;
  /** Called once the API listens, before Kafka is opened and any group joins (a restart serves from then). */
  onServing?: (apiUrl: string) => void;
}

/** Longest time one shutdown step may take before the next one runs. */
export const CLOSE_STEP_TIMEOUT_MS = 15_000;

export async function startPlatform(config: Config, opts: PlatformOptions): Promise<Platform> {
  const { log } = opts;
  const prefix = opts.topicPrefix ?? '';
  let reportFailure!: (err: Error) => void;
  const failed = new Promise<Error>((resolve) => (reportFailure = resolve));
  const watch = (groupId: string, done: Promise<void>) => {
    done.catch((err: unknown) => {
      const reason = err instanceof Error ? err.message : String(err);
      reportFailure(new Error(`consumer group ${groupId} stopped on a failure: ${reason}`, { cause: err }));
    });
  };
  const closers: Array<() => Promise<void>> = [];
  let closing: Promise<void> | null = null;
  // Each step gets a bounded time, so one component that cannot finish (say, a consumer
  // whose broker vanished) never keeps the others, or the process, from shutting down.
  const close = () =>
    (closing ??= (async () => {
      for (const c of closers.reverse()) {
        await withTimeout(c(), CLOSE_STEP_TIMEOUT_MS, `shutdown step did not finish within ${CLOSE_STEP_TIMEOUT_MS} ms`).catch(
          (err: unknown) => log.warn({ err }, 'error while shutting down'),
        );
      }
      closers.length = 0;
    })());
  const missing = (what: string): never => {
    throw new Error(`this role was started without ${what}`);
  };

  // A bad subscriptions file stops the start before anything is opened.
  const webhooksFile =
    config.webhooks.file !== null && (opts.webhooks ?? (opts.processors === undefined || opts.processors === true))
      ? config.webhooks.file
      : null;
  const subscriptions = webhooksFile === null ? null : loadWebhookSubscriptions(webhooksFile);

  try {
    let warehouse: Warehouse | null = null;
    if (opts.warehouse !== false) {
      const opened = await openWarehouse(config.warehouse, { createDatabase: opts.migrate !== false });
      warehouse = opened;
      closers.push(() => opened.close());
      if (opts.migrate !== false) {
        const migrated = await migrate(opened, { logger: log, cluster: config.clickhouseCluster });
        log.info({ applied: migrated.applied.length, alreadyApplied: migrated.alreadyApplied }, 'warehouse ready');
      }
    }

    // The API and the read paths first, before Kafka and any group join: they read only the
    // warehouse, so a restart serves at once while the consumers join (a join can wait for a
    // crashed member's session to end).
    let apiUrl: string | null = null;
    if (opts.api !== false) {
      if (!warehouse) missing('a warehouse');
      // The API and the dashboard get their own read-only connection with a deadline, never the writing one.
      const reader = await openWarehouse(config.warehouse, API_CONNECTION);
      closers.push(() => reader.close());
      const api = buildApi({ warehouse: reader, logger: log, publicUrl: config.publicUrl });
      await api.listen({ host: config.apiHost, port: config.apiPort });
      const addr = api.server.address();
      const port = typeof addr === 'object' && addr ? addr.port : config.apiPort;
      apiUrl = `http://${config.apiHost.includes(':') ? `[${config.apiHost}]` : config.apiHost}:${port}`;
      closers.push(() => api.close());
      opts.onServing?.(apiUrl);
    }

    // The running-instance file and the ClickHouse interface, so `sql` and `export` can read the
    // embedded warehouse this process holds (see instance.ts).
    let clickhouseUrl: string | null = null;
    let clickhouseLogin: string | null = null;
    if (opts.api !== false && warehouse) {
      const instance = await startInstance(config, log, apiUrl);
      if (instance) {
        clickhouseUrl = instance.clickhouseUrl;
        clickhouseLogin = instance.clickhouseLogin;
        closers.push(() => instance.close());
      }
    }

    let kafka: KafkaRuntime | null = null;
    let producer: EventProducer | null = null;
    let sink: KafkaObservationSink | null = null;
    if (opts.kafka !== false) {
      const rt = await openKafka(config, log, { clientId: opts.clientId ?? 'veronikai', topicPrefix: prefix });
      kafka = rt;
      if (rt.broker) closers.push(() => rt.broker!.stop());
      const p = await createEventProducer(rt.kafka, { logger: log });
      producer = p;
      closers.push(() => p.close());
      sink = new KafkaObservationSink(p, rt.topics);
    }

    const processors: ConsumerRunner<unknown>[] = [];
    const joins: Promise<void>[] = [];
    // The consumers stop side by side in one step: each waits for its fetch in flight (up to a
    // second) and commits only its own offsets, so one after the other those waits would add up.
    const stops: Array<() => Promise<void>> = [];
    closers.push(async () => {
      await Promise.all(stops.map((stop) => stop().catch((err: unknown) => log.warn({ err }, 'error while stopping a consumer'))));
    });
    const session = { sessionTimeoutMs: config.kafka.sessionTimeoutMs, heartbeatIntervalMs: config.kafka.heartbeatIntervalMs };
    const names =
      opts.processors === false ? [] : opts.processors === true || opts.processors === undefined ? PROCESSOR_NAMES : opts.processors;
    if (names.length > 0) {
      const rt = kafka ?? missing('Kafka');
      const wh = warehouse ?? missing('a warehouse');
      const sign = opts.sign ?? defaultSigner(config);
      const deps = {
        kafka: rt.kafka,
        warehouse: wh,
        topics: rt.topics,
        logger: log,
        sign,
        optOutFile: config.optOutFile,
        groupPrefix: prefix,
        ...session,
        ...(opts.sinkRetries === undefined ? {} : { sinkRetries: opts.sinkRetries }),
        ...(producer ? { producer } : {}),
      };
      for (const runner of createProcessors(deps, names)) {
        processors.push(runner);
        stops.push(() => runner.stop());
        watch(runner.groupId, runner.done);
      }
      joins.push(...processors.map((r) => r.start()));
    }

    let probeWorker: ProbeWorker | null = null;
    if (opts.probes !== false) {
      const rt = kafka ?? missing('Kafka');
      const policy = opts.probePolicy ?? {};
      const canary = new Canary({
        targets: opts.canaryTargets ?? canaryTargetsFor(config),
        contact: config.contact,
        ...policy,
        onEvent: canaryEventSink(producer!, rt.topics),
        logger: log,
      });
      const engine = new ProbeEngine({ contact: config.contact, canary, logger: log, ...policy });
      const groupId = `${prefix}${PROBE_WORKER_GROUP}`;
      const worker = new ProbeWorker({
        groupId,
        kafka: rt.kafka,
        topics: rt.topics,
        engine,
        producer: producer!,
        logger: log,
        ...session,
        ...(config.probeConcurrency !== undefined ? { concurrency: config.probeConcurrency } : {}),
      });
      probeWorker = worker;
      stops.push(() => worker.stop());
      watch(groupId, worker.done);
      joins.push(worker.start());
    }

    let webhooks: WebhookDeliverer | null = null;
    if (subscriptions) {
      log.info(
        { file: webhooksFile, subscriptions: subscriptions.length },
        `webhooks: ${subscriptions.length} subscriptions from ${webhooksFile}`,
      );
      if (subscriptions.length > 0) {
        const rt = kafka ?? missing('Kafka');
        const d = new WebhookDeliverer({
          kafka: rt.kafka,
          topics: rt.topics,
          warehouse: warehouse ?? missing('a warehouse'),
          subscriptions,
          contact: config.contact,
          maxAgeMs: config.webhooks.maxAgeMs,
          publicBaseUrl: config.publicUrl,
          producer: producer!,
          groupId: `${prefix}${WEBHOOK_DELIVERER_GROUP}`,
          // The runner heartbeats through a change's deliveries: the configured short session holds.
          sessionTimeoutMs: config.kafka.sessionTimeoutMs,
          logger: log,
          ...opts.probePolicy,
        });
        webhooks = d;
        stops.push(() => d.stop());
        watch(d.runner.groupId, d.done);
        joins.push(d.start());
      }
    }

    // Every group joins at once: a join waits for the group's rebalance (after a crash, until the
    // dead member's session ends), and one after the other those waits would add up.
    await settleAll(joins);

    return {
      config,
      log,
      get warehouse() {
        return warehouse ?? missing('a warehouse');
      },
      get kafka() {
        return kafka ?? missing('Kafka');
      },
      get producer() {
        return producer ?? missing('Kafka');
      },
      get sink() {
        return sink ?? missing('Kafka');
      },
      processors,
      probeWorker,
      webhooks,
      groups: defaultPipelineGroups(undefined, prefix),
      apiUrl,
      clickhouseUrl,
      clickhouseLogin,
      failed,
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}

/** The configured Ed25519 key, which signs the head of each batch's tree of verdicts. */
export function defaultSigner(config: Config): Signer {
  return loadSigningKey({ dataDir: config.dataDir, key: config.signingKey }).privateKey;
}
