import type { Command } from 'commander';
import { parseDuration } from '../../config.js';
import { startPlatform } from '../../runtime/platform.js';
import { dailyRunOn, repeatEvery } from '../../runtime/roles.js';
import { onShutdown } from '../../runtime/shutdown.js';
import { formatDailyReport, say } from '../format.js';
import { addSettings, configured, DATA_DIR_LOCAL_STATE, PLATFORM_SETTINGS, SCHEDULE_SETTINGS } from '../settings.js';

/**
 * `veronikai schedule`: the scheduler as a role of its own. Plans a daily run from the
 * agents' state, emits its probe requests and run start, waits until the probe workers
 * and the verdict processor have caught up, then records the run's finish.
 */
export function registerScheduleCommand(program: Command): void {
  const cmd = program
    .command('schedule')
    .description('plan and emit a daily run of probes (once, or every --every), then record what it did');
  addSettings(cmd, PLATFORM_SETTINGS, SCHEDULE_SETTINGS)
    .option('--seed <seed>', 'sampling seed (recorded in the run event; default random)')
    .option('--every <duration>', 'keep running and schedule again at this interval (e.g. 24h)')
    .action(async (opts: Record<string, unknown>) => {
      const every = opts.every ? parseDuration(String(opts.every), '--every') : null;
      const { config, log } = configured(opts, 'veronikai-schedule', DATA_DIR_LOCAL_STATE);
      // With --every, a signal ends the wait at once, or the daily run in progress after it finishes.
      const shutdown = every === null ? null : onShutdown();
      try {
        const platform = await startPlatform(config, {
          log,
          clientId: 'veronikai-schedule',
          migrate: false,
          api: false,
          processors: false,
          probes: false,
        });
        try {
          const daily = dailyRunOn(platform, typeof opts.seed === 'string' ? { seed: opts.seed } : {});
          const stopped = await repeatEvery(every, shutdown?.signal ?? null, async () => {
            for (const line of formatDailyReport(await daily())) say(line);
          });
          if (stopped) log.info({ signal: shutdown?.signal.reason }, 'stopping');
        } finally {
          await platform.close();
        }
      } finally {
        shutdown?.dispose();
      }
    });
}
