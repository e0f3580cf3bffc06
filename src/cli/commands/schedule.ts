import type { Command } from 'commander';
import { loadConfig } from '../../config.js';
import { createEventProducer, type EventProducer } from '../../kafka/producer.js';
import { createLogger } from '../../log.js';
import { optOutProvider } from '../../processors/listings-to-agents.js';
import { SCHEDULE_DEFAULTS } from '../../processors/scheduler/plan.js';
import { KafkaObservationSink } from '../../producers/kafka-sink.js';
import { dailyRun, defaultPipelineGroups, formatDailyReport } from '../../runtime/daily.js';
import { openKafka, type KafkaRuntime } from '../../runtime/kafka.js';
import { openWarehouse } from '../../warehouse/open.js';
import type { Warehouse } from '../../warehouse/warehouse.js';
import { addConfigOptions, closeAll, onShutdown, overridesFrom, parseCount, parseDuration, sleepUnlessAborted } from '../options.js';

/**
 * `veronikai schedule`: the scheduler as a role of its own. Plans a daily run from the
 * agents' state, emits its probe requests and run start, waits until the probe workers
 * and the verdict processor have caught up, then records the run's finish.
 */
export function registerScheduleCommand(program: Command): void {
  const cmd = program.command('schedule').description('plan and emit a daily run of probes (once, or every --every), then record what it did');
  addConfigOptions(cmd)
    .option('--budget <n>', 'probes per daily run (env VERONIKAI_DAILY_BUDGET)', process.env.VERONIKAI_DAILY_BUDGET ?? String(SCHEDULE_DEFAULTS.dailyBudget))
    .option('--sample-size <n>', 'uniform random sample per run (env VERONIKAI_SAMPLE_SIZE)', process.env.VERONIKAI_SAMPLE_SIZE ?? String(SCHEDULE_DEFAULTS.sampleSize))
    .option('--seed <seed>', 'sampling seed (recorded in the run event; default random)')
    .option('--every <duration>', 'keep running and schedule again at this interval (e.g. 24h)')
    .action(async (opts: Record<string, unknown>) => {
      const config = loadConfig(overridesFrom(opts));
      // Owners' opt-outs also stop the scheduler directly, from the next run on.
      const optOuts = optOutProvider(config.optOutFile ?? null);
      const budget = parseCount(String(opts.budget), '--budget');
      const sampleSize = parseCount(String(opts.sampleSize), '--sample-size');
      const every = opts.every ? parseDuration(String(opts.every), '--every') : null;
      const log = createLogger('veronikai-schedule');
      // With --every, one shutdown listener for the whole command: a signal ends the wait at
      // once, or the daily run in progress after it finishes.
      const repeat = every === null ? null : { every, ...onShutdown() };
      let warehouse: Warehouse | null = null;
      let rt: KafkaRuntime | null = null;
      let producer: EventProducer | null = null;
      try {
        warehouse = await openWarehouse(config.warehouse);
        rt = await openKafka(config, log, { clientId: 'veronikai-schedule' });
        producer = await createEventProducer(rt.kafka, { logger: log });
        while (!repeat?.signal.aborted) {
          const report = await dailyRun({
            kafka: rt.kafka,
            topics: rt.topics,
            warehouse,
            sink: new KafkaObservationSink(producer, rt.topics),
            groups: defaultPipelineGroups(),
            log,
            budget,
            sampleSize,
            optOut: optOuts.current(),
            ...(typeof opts.seed === 'string' ? { seed: opts.seed } : {}),
          });
          for (const line of formatDailyReport(report)) process.stdout.write(`${line}\n`);
          if (!repeat || !(await sleepUnlessAborted(repeat.every, repeat.signal))) break;
        }
        if (repeat?.signal.aborted) log.info({ signal: repeat.signal.reason }, 'stopping');
      } finally {
        repeat?.dispose();
        await closeAll(log, [() => producer?.close(), () => rt?.broker?.stop(), () => warehouse?.close()]);
      }
    });
}
