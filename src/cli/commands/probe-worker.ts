import type { Command } from 'commander';
import { startPlatform } from '../../runtime/platform.js';
import { untilStopped } from '../../runtime/roles.js';
import { onShutdown } from '../../runtime/shutdown.js';
import { say } from '../format.js';
import { addSettings, configured, PLATFORM_SETTINGS } from '../settings.js';

/** `veronikai probe-worker`: probe workers as a role of their own (probe-requests → probes). */
export function registerProbeWorkerCommand(program: Command): void {
  const cmd = program.command('probe-worker').description('consume probe requests and emit probe events until stopped');
  addSettings(cmd, PLATFORM_SETTINGS, ['canaryUrl', 'sourceUrl']).action(async (opts: Record<string, unknown>) => {
    const { config, log } = configured(opts, 'veronikai-probe-worker');
    const shutdown = onShutdown();
    try {
      const platform = await startPlatform(config, { log, clientId: 'veronikai-probe-worker', warehouse: false, api: false, processors: false });
      try {
        say('probe worker running');
        // A worker that stops on a failure rejects here: the error reaches main, which exits non-zero.
        await untilStopped(platform, shutdown.signal);
      } finally {
        await platform.close();
      }
    } finally {
      shutdown.dispose();
    }
  });
}
