import { Option, type Command } from 'commander';
import { loadConfig, UsageError } from '../../config.js';
import { createEventProducer, type EventProducer } from '../../kafka/producer.js';
import { createLogger } from '../../log.js';
import { KafkaObservationSink } from '../../producers/kafka-sink.js';
import { SOURCE_NAMES, type SourceSummary } from '../../producers/sources/index.js';
import { checkSourceSettings, crawlOnce, formatProgress, formatSummary } from '../../runtime/crawl.js';
import { openKafka, type KafkaRuntime } from '../../runtime/kafka.js';
import { addConfigOptions, closeAll, onShutdown, overridesFrom, parseDuration, sleepUnlessAborted } from '../options.js';

const repeatable = (v: string, p: string[] = []) => [...p, v];

/** A progress line on a terminal (stderr), rewritten in place; nothing when stderr is not a terminal. */
function progressLine(stream: NodeJS.WriteStream = process.stderr) {
  if (!stream.isTTY) return { update: (_s: Readonly<SourceSummary>) => undefined, clear: () => undefined };
  let last = 0;
  return {
    update(s: Readonly<SourceSummary>) {
      const t = Date.now();
      if (t - last < 100) return;
      last = t;
      const width = Math.max(20, (stream.columns ?? 80) - 1);
      stream.write(`\r\x1b[K${formatProgress(s).slice(0, width)}`);
    },
    clear() {
      stream.write('\r\x1b[K');
    },
  };
}

/** `veronikai crawl`: the listing producers as a role of their own. */
export function registerCrawlCommand(program: Command): void {
  const cmd = program.command('crawl').description('read the listing sources once (or every --every) into the Kafka topics');
  addConfigOptions(cmd, { sources: true })
    .addOption(new Option('--source <name>', `only these sources (repeatable): ${SOURCE_NAMES.join(', ')}`).argParser(repeatable))
    .option('--full', 'full resync instead of an incremental read (and restart rolling sweeps)')
    .addOption(new Option('--disable-source <name>', 'turn a source off (repeatable; env VERONIKAI_SOURCES_DISABLED)').argParser(repeatable))
    .addOption(
      new Option('--terms-forbid <name>', "a source whose terms forbid crawling: skipped and recorded (repeatable; env VERONIKAI_SOURCES_TERMS_FORBID)").argParser(repeatable),
    )
    .addOption(new Option('--max-pages <name=n>', 'list pages per run for a source, "*" for all (repeatable; env VERONIKAI_SOURCE_MAX_PAGES)').argParser(repeatable))
    .addOption(
      new Option('--page-delay <name=duration>', 'least delay between requests to a source, e.g. neuronto=1s (repeatable; env VERONIKAI_SOURCE_PAGE_DELAY)').argParser(repeatable),
    )
    .option('--every <duration>', 'keep running and crawl again at this interval (e.g. 24h)')
    .action(async (opts: Record<string, unknown>) => {
      const list = (k: string) => (Array.isArray(opts[k]) ? (opts[k] as string[]) : undefined);
      const config = loadConfig({
        ...overridesFrom(opts),
        disableSource: list('disableSource'),
        termsForbid: list('termsForbid'),
        maxPages: list('maxPages'),
        pageDelay: list('pageDelay'),
      });
      const sources = list('source') ?? [];
      for (const s of sources) if (!SOURCE_NAMES.includes(s)) throw new UsageError(`unknown source "${s}" (known: ${SOURCE_NAMES.join(', ')})`);
      for (const s of Object.keys(config.sourceUrls)) {
        if (!SOURCE_NAMES.includes(s)) throw new UsageError(`--source-url names an unknown source "${s}" (known: ${SOURCE_NAMES.join(', ')})`);
      }
      checkSourceSettings(config.sources);
      const every = opts.every ? parseDuration(String(opts.every), '--every') : null;
      const log = createLogger('veronikai-crawl');
      // With --every, one shutdown listener for the whole command: a signal ends the wait at
      // once, or the crawl in progress after it finishes.
      const repeat = every === null ? null : { every, ...onShutdown() };
      const progress = progressLine();
      let rt: KafkaRuntime | null = null;
      let producer: EventProducer | null = null;
      let incomplete = false;
      try {
        rt = await openKafka(config, log, { clientId: 'veronikai-crawl' });
        producer = await createEventProducer(rt.kafka, { logger: log });
        const sink = new KafkaObservationSink(producer, rt.topics);
        let full = Boolean(opts.full);
        while (!repeat?.signal.aborted) {
          const summaries = await crawlOnce(config, sink, log, { sources, full, onProgress: (s) => progress.update(s) });
          progress.clear();
          for (const s of summaries) process.stdout.write(`${formatSummary(s)}\n`);
          // A source skipped by configuration (disabled, terms) is not a failure; one skipped by robots.txt or failing is.
          const byChoice = (s: SourceSummary) => s.skipped === 'disabled by configuration' || Boolean(s.skipped?.startsWith('terms:'));
          incomplete = summaries.some((s) => !s.complete && !byChoice(s));
          if (!repeat || !(await sleepUnlessAborted(repeat.every, repeat.signal))) break;
          full = false;
        }
        if (repeat?.signal.aborted) log.info({ signal: repeat.signal.reason }, 'stopping');
      } finally {
        repeat?.dispose();
        progress.clear();
        await closeAll(log, [() => producer?.close(), () => rt?.broker?.stop()]);
      }
      if (incomplete) process.exitCode = 1;
    });
}
