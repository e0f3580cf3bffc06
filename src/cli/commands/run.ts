import type { Command } from 'commander';
import { parseDuration } from '../../config.js';
import { startPlatform } from '../../runtime/platform.js';
import { runDailyCycles } from '../../runtime/roles.js';
import { onShutdown } from '../../runtime/shutdown.js';
import { formatDailyReport, formatSummary, say, sourcesNotRead } from '../format.js';
import {
  addSettings,
  API_SETTINGS,
  configured,
  DATA_DIR_ALWAYS,
  PLATFORM_SETTINGS,
  SCHEDULE_SETTINGS,
  SOURCE_SETTINGS,
} from '../settings.js';
import { sourceOption } from './crawl.js';
import { probePolicyFrom } from './probe-worker.js';

/** `veronikai run`: everything in one process on the embedded default. */
export function registerRunCommand(program: Command): void {
  const cmd = program
    .command('run')
    .description('run everything in one process: local Kafka broker, embedded ClickHouse, listing sources, processors and the API');
  addSettings(
    cmd,
    PLATFORM_SETTINGS,
    API_SETTINGS,
    [
      'clickhouseHost',
      'clickhousePort',
      'clickhouseHttpUser',
      'clickhouseHttpHosts',
      'webhooksFile',
      'webhooksMaxAge',
      'probeConcurrency',
      'allowLoopback',
    ],
    SOURCE_SETTINGS,
    SCHEDULE_SETTINGS,
  )
    .addOption(sourceOption())
    .option('--full', 'full resync of every source on the first pass')
    .option('--every <duration>', 'run again (crawl, probes, judgement, rollups) at this interval', '24h')
    .option('--once', 'do one daily run, say what it did, then exit')
    .action(async (opts: Record<string, unknown>) => {
      const every = parseDuration(String(opts.every), '--every');
      const { config, log } = configured(opts, 'veronikai', DATA_DIR_ALWAYS);
      // Listened for before anything starts: a stop while the broker starts is acted on once the
      // platform is up (then closed in order), not by the default exit that would leave the broker running.
      const shutdown = opts.once ? null : onShutdown();
      shutdown?.signal.addEventListener('abort', () => say(`received ${String(shutdown.signal.reason)}, shutting down`), { once: true });
      // The API serves as soon as it listens, while Kafka starts and the consumers join.
      let platform: Awaited<ReturnType<typeof startPlatform>>;
      try {
        platform = await startPlatform(config, {
          log,
          probePolicy: probePolicyFrom(opts),
          onServing: (url) => say(`VeronikAI API listening on ${url}  (try ${url}/agents)`),
        });
      } catch (err) {
        shutdown?.dispose();
        throw err;
      }
      say(`data directory: ${config.dataDir}; Kafka: ${platform.kafka.brokers}; warehouse: ${config.warehouse.kind}`);
      if (platform.clickhouseUrl) say(`ClickHouse HTTP interface (read-only) on ${platform.clickhouseUrl}`);
      if (platform.clickhouseLogin) say(`ClickHouse HTTP interface login: ${platform.clickhouseLogin}`);
      if (platform.webhooks) say(`webhooks: ${platform.webhooks.subscriptionCount} subscription(s) from ${config.webhooks.file}`);
      try {
        if (shutdown?.signal.aborted !== true)
          await runDailyCycles(platform, opts.once ? null : every, shutdown?.signal ?? null, {
            sources: (opts.source as string[] | undefined) ?? [],
            full: Boolean(opts.full),
            onCrawl(summaries) {
              for (const s of summaries) say(formatSummary(s));
              const failed = sourcesNotRead(summaries);
              if (failed.length > 0)
                say(`${failed.length} source(s) could not be read completely; the API keeps serving what it already has.`);
            },
            onReport(report) {
              for (const line of formatDailyReport(report)) say(line);
            },
            onError(err) {
              log.error({ err }, 'run failed');
              if (opts.once) process.exitCode = 1;
            },
          });
      } catch (err) {
        // Nothing restarts a processor or the probe worker that stopped on a failure: say so, shut
        // down and exit non-zero, so that a supervisor restarts the process.
        process.stderr.write(`veronikai: ${(err as Error).message}; shutting down\n`);
        log.error({ err }, 'a consumer stopped on a failure; shutting down');
        process.exitCode = 1;
      } finally {
        shutdown?.dispose();
        await platform.close();
      }
      // Everything we opened is closed; a library timer must not keep the process alive.
      process.exit(process.exitCode ?? 0);
    });
}
