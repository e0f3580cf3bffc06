/**
 * One `run` process for the fault tests, composed as src/runtime/platform.ts composes it
 * (warehouse, Kafka, every processor, a probe worker), then one daily run.
 *
 * The difference from startPlatform: consumer sessions of 6 s (the broker's minimum) instead of
 * 30 s and 5 min, so that after a SIGKILL the next process gets the dead member's partitions in
 * seconds, not minutes; nothing else changes.
 *
 * Environment: DATA_DIR, BROKERS, PREFIX, BUDGET, SAMPLE (default 0), OUT (a JSON file written
 * after the run: the report or the error it ended with, the stats of every run recorded, the
 * scheduler's view of the agents, and row counts of the judged tables). STAGE_TIMEOUT_MS bounds each stage of the run.
 */
import { writeFileSync } from 'node:fs';
import { loadConfig } from '../../src/config.js';
import type { ConsumerRunner } from '../../src/kafka/consumer-runner.js';
import { createLogger, silentLogger } from '../../src/log.js';
import { createProcessors, type ProcessorDeps } from '../../src/processors/index.js';
import { loadSchedulableAgents } from '../../src/processors/scheduler/scheduler.js';
import { Canary } from '../../src/producers/canary.js';
import { ProbeEngine } from '../../src/producers/probe/probe-agent.js';
import { canaryEventSink, PROBE_WORKER_GROUP, ProbeWorker } from '../../src/producers/probe-worker.js';
import { dailyRun, type DailyRunReport } from '../../src/runtime/daily.js';
import { waitUntilConsumed } from '../../src/kafka/lag.js';
import { defaultSigner, startPlatform } from '../../src/runtime/platform.js';
import { CHECKER_VERSION } from '../../src/conformance/index.js';
import { runStats } from '../../src/stats/run-stats.js';

const env = process.env;
const prefix = env.PREFIX!;
const log = env.LOG_LEVEL ? createLogger('fault-run', { level: env.LOG_LEVEL }) : silentLogger;
const config = loadConfig({ dataDir: env.DATA_DIR!, brokers: env.BROKERS!, port: 0 }, {});
const platform = await startPlatform(config, { log, topicPrefix: prefix, processors: false, probes: false, api: false, canaryTargets: [] });
const { kafka, topics } = platform.kafka;
const SESSION_MS = 6000;

const deps: ProcessorDeps & { sessionTimeoutMs: number } = {
  kafka,
  warehouse: platform.warehouse,
  topics,
  logger: log,
  sign: defaultSigner(config),
  groupPrefix: prefix,
  sessionTimeoutMs: SESSION_MS, // passed through to each processor's EventProcessorDeps
};
const runners: ConsumerRunner<unknown>[] = createProcessors(deps);
// Every group joins at once, as startPlatform joins them (one after the other the joins add up).
await Promise.all(runners.map((r) => r.start()));

const canary = new Canary({
  targets: [],
  contact: config.contact,
  allowLoopback: true,
  onEvent: canaryEventSink(platform.producer, topics),
  logger: log,
});
const engine = new ProbeEngine({ contact: config.contact, canary, logger: log, allowLoopback: true });
const worker = new ProbeWorker({
  groupId: `${prefix}${PROBE_WORKER_GROUP}`,
  kafka,
  topics,
  engine,
  producer: platform.producer,
  logger: log,
  sessionTimeoutMs: SESSION_MS,
});
await worker.start();

// As `run` does: a consumer that stopped on a failure ends the process non-zero, for the supervisor to restart it.
const failed = Promise.race([...runners.map((r) => r.done), worker.done]).then(
  () => undefined,
  (err: unknown) => {
    process.stderr.write(`consumer stopped on a failure: ${(err as Error).message}\n`);
    process.exit(1);
  },
);
let report: DailyRunReport | null = null;
let error: string | null = null;
try {
  report = await Promise.race([
    failed.then(() => new Promise<never>(() => undefined)),
    dailyRun({
      kafka,
      topics,
      warehouse: platform.warehouse,
      sink: platform.sink,
      groups: platform.groups,
      log,
      budget: Number(env.BUDGET ?? '2'),
      sampleSize: Number(env.SAMPLE ?? '0'),
      stageTimeoutMs: Number(env.STAGE_TIMEOUT_MS ?? '40000'),
    }),
  ]);
} catch (err) {
  error = (err as Error).message;
  // Where it came from, for the test's failure message (it shows the child's stderr).
  process.stderr.write(`the daily run failed: ${(err as Error).stack ?? error}\n`);
}
// Let the pipeline settle (a run that ended early leaves work in flight), so the tables show every event on Kafka.
const g = platform.groups;
for (const [group, topic] of [
  [g.probeWorkers, topics.probeRequests],
  [g.documents, topics.documents],
  [g.verdicts, topics.probes],
  [g.runLog, topics.runs],
] as const) {
  await waitUntilConsumed(kafka, group, [topic], 40_000).catch(() => undefined);
}
const runIds = (await platform.warehouse.query<{ run_id: string }>('SELECT DISTINCT run_id FROM runs ORDER BY run_id')).map(
  (r) => r.run_id,
);
const stats = Object.fromEntries(
  await Promise.all(runIds.map(async (id) => [id, await runStats(platform.warehouse, id, CHECKER_VERSION)] as const)),
);
const agents = await loadSchedulableAgents(platform.warehouse);
const [tables] = await platform.warehouse.query(
  `SELECT (SELECT toUInt32(count()) FROM checks FINAL) AS checks, (SELECT toUInt32(uniqExact(event_id)) FROM checks) AS check_events,
          (SELECT toUInt32(count()) FROM verdicts FINAL) AS verdicts, (SELECT toUInt32(uniqExact(event_id)) FROM verdicts) AS verdict_events,
          (SELECT toUInt32(count()) FROM agent_latest FINAL) AS latest, (SELECT toUInt32(count()) FROM agents FINAL) AS agents,
          (SELECT toUInt32(sum(counts['planned'])) FROM runs FINAL WHERE phase = 'start') AS planned`,
);
writeFileSync(env.OUT!, JSON.stringify({ report, error, stats, agents, tables }));

await worker.stop();
await Promise.all(runners.map((r) => r.stop()));
await platform.close();
process.exit(0);
