import { Option, type Command } from 'commander';
import { loadConfig, UsageError } from '../../config.js';
import { createLogger } from '../../log.js';
import { optOutProvider } from '../../processors/listings-to-agents.js';
import { SOURCE_NAMES } from '../../producers/sources/index.js';
import { crawlOnce, formatSummary } from '../../runtime/crawl.js';
import { SCHEDULE_DEFAULTS } from '../../processors/scheduler/plan.js';
import { canaryTargetsFor } from '../../runtime/canary-targets.js';
import { dailyRun, formatDailyReport } from '../../runtime/daily.js';
import { startPlatform } from '../../runtime/platform.js';
import { addConfigOptions, onShutdown, overridesFrom, parseCount, parseDuration, whenAborted } from '../options.js';

const CYCLE_GRACE_MS = 10_000;

/** `veronikai run`: everything in one process on the embedded default. */
export function registerRunCommand(program: Command): void {
  const cmd = program
    .command('run')
    .description('run everything in one process: local Kafka broker, embedded ClickHouse, listing sources, processors and the API');
  addConfigOptions(cmd, { api: true, sources: true })
    .addOption(new Option('--source <name>', `only these sources (repeatable): ${SOURCE_NAMES.join(', ')}`).argParser((v: string, p: string[] = []) => [...p, v]))
    .option('--full', 'full resync of every source on the first pass')
    .option('--every <duration>', 'run again (crawl, probes, judgement, rollups) at this interval', '24h')
    .option('--budget <n>', 'probes per daily run (env VERONIKAI_DAILY_BUDGET)', process.env.VERONIKAI_DAILY_BUDGET ?? String(SCHEDULE_DEFAULTS.dailyBudget))
    .option('--sample-size <n>', 'uniform random sample per run (env VERONIKAI_SAMPLE_SIZE)', process.env.VERONIKAI_SAMPLE_SIZE ?? String(SCHEDULE_DEFAULTS.sampleSize))
    .option('--once', 'do one daily run, say what it did, then exit')
    .action(async (opts: Record<string, unknown>) => {
      const config = loadConfig(overridesFrom(opts));
      // Owners' opt-outs also stop the scheduler directly, from the next run on.
      const optOuts = optOutProvider(config.optOutFile ?? null);
      const every = parseDuration(String(opts.every), '--every');
      const budget = parseCount(String(opts.budget), '--budget');
      const sampleSize = parseCount(String(opts.sampleSize), '--sample-size');
      const canaryTargets = canaryTargetsFor(config);
      const sources = (opts.source as string[] | undefined) ?? [];
      for (const s of sources) if (!SOURCE_NAMES.includes(s)) throw new UsageError(`unknown source "${s}" (known: ${SOURCE_NAMES.join(', ')})`);
      const log = createLogger('veronikai');
      const out = (line: string) => process.stdout.write(`${line}\n`);

      const platform = await startPlatform(config, { log, canaryTargets });
      out(`VeronikAI API listening on ${platform.apiUrl}  (try ${platform.apiUrl}/agents)`);
      out(`data directory: ${config.dataDir}; Kafka: ${platform.kafka.brokers}; warehouse: ${config.warehouse.kind}`);

      const cycle = async (full: boolean) => {
        const summaries = await crawlOnce(config, platform.sink, log, { sources, full });
        for (const s of summaries) out(formatSummary(s));
        const failed = summaries.filter((s) => !s.complete);
        if (failed.length > 0) {
          out(`${failed.length} source(s) could not be read completely; the API keeps serving what it already has.`);
        }
        const report = await dailyRun({
          kafka: platform.kafka.kafka,
          topics: platform.kafka.topics,
          warehouse: platform.warehouse,
          sink: platform.sink,
          groups: platform.groups,
          log,
          budget,
          sampleSize,
          optOut: optOuts.current(),
        });
        for (const line of formatDailyReport(report)) out(line);
      };

      let stopping = false;
      let timer: NodeJS.Timeout | undefined;
      let running: Promise<void>;
      let closing: Promise<void> | null = null;
      const close = () => (closing ??= platform.close());
      // The next cycle is armed once the previous one finished, and never once shutdown began.
      const armNext = () => {
        if (stopping) return;
        timer = setTimeout(() => {
          running = cycle(false).catch((err: unknown) => log.error({ err }, 'run failed')).finally(armNext);
        }, every);
      };
      // Nothing restarts a processor or the probe worker that stopped on a failure (a sink that keeps
      // failing, say): say so, shut down and exit non-zero, so that a supervisor restarts the process.
      // A cycle in flight would only wait for the stopped consumer, so it is not waited for.
      void platform.failed.then(async (err) => {
        stopping = true;
        clearTimeout(timer);
        process.stderr.write(`veronikai: ${err.message}; shutting down\n`);
        log.error({ err }, 'a consumer stopped on a failure; shutting down');
        await close();
        process.exit(1);
      });

      const shutdown = opts.once ? null : onShutdown();
      running = cycle(Boolean(opts.full)).catch((err: unknown) => {
        log.error({ err }, 'run failed');
        process.exitCode = 1;
      });
      if (!shutdown) {
        await running;
        await close();
        return;
      }
      running = running.finally(armNext);
      await whenAborted(shutdown.signal);
      out(`received ${String(shutdown.signal.reason)}, shutting down`);
      stopping = true;
      clearTimeout(timer);
      // A cycle in progress gets a moment to finish its step; its run records itself as ended early.
      await Promise.race([running, new Promise((r) => setTimeout(r, CYCLE_GRACE_MS).unref())]);
      await close();
      // Everything we opened is closed; a library timer must not keep the process alive.
      process.exit(process.exitCode ?? 0);
    });
}
