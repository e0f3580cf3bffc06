import { Option, type Command } from 'commander';
import { loadConfig, UsageError } from '../../config.js';
import { createEventProducer } from '../../kafka/producer.js';
import { createLogger } from '../../log.js';
import { KafkaObservationSink } from '../../producers/kafka-sink.js';
import { SOURCE_NAMES } from '../../producers/sources/index.js';
import { crawlOnce, formatSummary } from '../../runtime/crawl.js';
import { openKafka } from '../../runtime/kafka.js';
import { addConfigOptions, overridesFrom, parseDuration, untilSignal } from '../options.js';

/** `veronikai crawl`: the listing producers as a role of their own. */
export function registerCrawlCommand(program: Command): void {
  const cmd = program.command('crawl').description('read the listing sources once (or every --every) into the Kafka topics');
  addConfigOptions(cmd, { sources: true })
    .addOption(new Option('--source <name>', `only these sources (repeatable): ${SOURCE_NAMES.join(', ')}`).argParser((v: string, p: string[] = []) => [...p, v]))
    .option('--full', 'full resync instead of an incremental read')
    .option('--every <duration>', 'keep running and crawl again at this interval (e.g. 24h)')
    .action(async (opts: Record<string, unknown>) => {
      const config = loadConfig(overridesFrom(opts));
      const sources = (opts.source as string[] | undefined) ?? [];
      for (const s of sources) if (!SOURCE_NAMES.includes(s)) throw new UsageError(`unknown source "${s}" (known: ${SOURCE_NAMES.join(', ')})`);
      const every = opts.every ? parseDuration(String(opts.every), '--every') : null;
      const log = createLogger('veronikai-crawl');
      const rt = await openKafka(config, log, { clientId: 'veronikai-crawl' });
      const producer = await createEventProducer(rt.kafka, { logger: log });
      const sink = new KafkaObservationSink(producer, rt.topics);
      let incomplete = false;
      try {
        let full = Boolean(opts.full);
        for (;;) {
          const summaries = await crawlOnce(config, sink, log, { sources, full });
          for (const s of summaries) process.stdout.write(`${formatSummary(s)}\n`);
          incomplete = summaries.some((s) => !s.complete);
          if (!every) break;
          full = false;
          const wake = new Promise((r) => setTimeout(r, every));
          if ((await Promise.race([wake, untilSignal()])) !== undefined) break;
        }
      } finally {
        await producer.close();
        await rt.broker?.stop();
      }
      if (incomplete) process.exitCode = 1;
    });
}
