import { Option, type Command } from 'commander';
import { loadConfig, UsageError } from '../../config.js';
import { createLogger } from '../../log.js';
import { SOURCE_NAMES } from '../../producers/sources/index.js';
import { crawlOnce, formatSummary } from '../../runtime/crawl.js';
import { waitUntilConsumed } from '../../runtime/kafka.js';
import { startPlatform } from '../../runtime/platform.js';
import { addConfigOptions, overridesFrom, parseDuration, untilSignal } from '../options.js';

/** `veronikai run`: everything in one process on the embedded default. */
export function registerRunCommand(program: Command): void {
  const cmd = program
    .command('run')
    .description('run everything in one process: local Kafka broker, embedded ClickHouse, listing sources, processors and the API');
  addConfigOptions(cmd, { api: true, sources: true })
    .addOption(new Option('--source <name>', `only these sources (repeatable): ${SOURCE_NAMES.join(', ')}`).argParser((v: string, p: string[] = []) => [...p, v]))
    .option('--full', 'full resync of every source on the first pass')
    .option('--every <duration>', 'crawl again at this interval', '24h')
    .option('--once', 'crawl once, wait for the processors to catch up, then exit')
    .action(async (opts: Record<string, unknown>) => {
      const config = loadConfig(overridesFrom(opts));
      const every = parseDuration(String(opts.every), '--every');
      const sources = (opts.source as string[] | undefined) ?? [];
      for (const s of sources) if (!SOURCE_NAMES.includes(s)) throw new UsageError(`unknown source "${s}" (known: ${SOURCE_NAMES.join(', ')})`);
      const log = createLogger('veronikai');
      const out = (line: string) => process.stdout.write(`${line}\n`);

      const platform = await startPlatform(config, { log });
      out(`VeronikAI API listening on ${platform.apiUrl}  (try ${platform.apiUrl}/agents)`);
      out(`data directory: ${config.dataDir}; Kafka: ${platform.kafka.brokers}; warehouse: ${config.warehouse.kind}`);

      const crawl = async (full: boolean) => {
        const summaries = await crawlOnce(config, platform.sink, log, { sources, full });
        for (const s of summaries) out(formatSummary(s));
        const failed = summaries.filter((s) => !s.complete);
        if (failed.length > 0) {
          out(`${failed.length} source(s) could not be read completely; the API keeps serving what it already has.`);
        }
      };

      let timer: NodeJS.Timeout | undefined;
      let running = Promise.resolve();
      const schedule = () => {
        timer = setTimeout(() => {
          running = crawl(false).catch((err: unknown) => log.error({ err }, 'crawl failed')).finally(schedule);
        }, every);
      };
      running = crawl(Boolean(opts.full)).catch((err: unknown) => log.error({ err }, 'crawl failed'));
      if (opts.once) {
        await running;
        for (const p of platform.processors) await waitUntilConsumed(platform.kafka.kafka, p.groupId, p.topics);
        await platform.close();
        return;
      }
      schedule();
      const sig = await untilSignal();
      out(`received ${sig}, shutting down`);
      clearTimeout(timer);
      await running;
      await platform.close();
    });
}
