import { Option, type Command } from 'commander';
import { checkSourceName, parseDuration, SOURCE_NAMES } from '../../config.js';
import type { SourceSummary } from '../../producers/sources/index.js';
import { startPlatform } from '../../runtime/platform.js';
import { crawl, crawlFailed, repeatEvery } from '../../runtime/roles.js';
import { onShutdown } from '../../runtime/shutdown.js';
import { formatCrawlProgress, formatSummary, say } from '../format.js';
import { addSettings, configured, DATA_DIR_ALWAYS, PLATFORM_SETTINGS, SOURCE_SETTINGS } from '../settings.js';

const repeatable = (v: string, p: string[] = []) => [...p, v];

/** `--source NAME` (repeatable): only these sources. */
export const sourceOption = () =>
  new Option('--source <name>', `only these sources (repeatable): ${SOURCE_NAMES.join(', ')}`).argParser((v: string, p?: string[]) =>
    repeatable(checkSourceName(v, '--source'), p),
  );

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
      stream.write(`\r\x1b[K${formatCrawlProgress(s).slice(0, width)}`);
    },
    clear() {
      stream.write('\r\x1b[K');
    },
  };
}

/** `veronikai crawl`: the listing producers as a role of their own. */
export function registerCrawlCommand(program: Command): void {
  const cmd = program.command('crawl').description('read the listing sources once (or every --every) into the Kafka topics');
  addSettings(cmd, PLATFORM_SETTINGS, SOURCE_SETTINGS)
    .addOption(sourceOption())
    .option('--full', 'full resync instead of an incremental read (and restart rolling sweeps)')
    .option('--every <duration>', 'keep running and crawl again at this interval (e.g. 24h)')
    .action(async (opts: Record<string, unknown>) => {
      const every = opts.every ? parseDuration(String(opts.every), '--every') : null;
      const { config, log } = configured(opts, 'veronikai-crawl', DATA_DIR_ALWAYS);
      const sources = (opts.source as string[] | undefined) ?? [];
      // With --every, a signal ends the wait at once, or the crawl in progress after it finishes.
      const shutdown = every === null ? null : onShutdown();
      const progress = progressLine();
      let incomplete = false;
      try {
        const platform = await startPlatform(config, {
          log,
          clientId: 'veronikai-crawl',
          warehouse: false,
          api: false,
          processors: false,
          probes: false,
        });
        try {
          const stopped = await repeatEvery(every, shutdown?.signal ?? null, async (n) => {
            const summaries = await crawl(platform, {
              sources,
              full: n === 0 && Boolean(opts.full),
              onProgress: (s) => progress.update(s),
            });
            progress.clear();
            for (const s of summaries) say(formatSummary(s));
            incomplete = crawlFailed(summaries);
          });
          if (stopped) log.info({ signal: shutdown?.signal.reason }, 'stopping');
        } finally {
          await platform.close();
        }
      } finally {
        shutdown?.dispose();
        progress.clear();
      }
      if (incomplete) process.exitCode = 1;
    });
}
