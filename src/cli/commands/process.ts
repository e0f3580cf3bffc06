import type { Command } from 'commander';
import { UsageError } from '../../config.js';
import { PROCESSOR_NAMES } from '../../processors/index.js';
import { startPlatform } from '../../runtime/platform.js';
import { untilStopped } from '../../runtime/roles.js';
import { onShutdown } from '../../runtime/shutdown.js';
import { say } from '../format.js';
import { addSettings, configured, DATA_DIR_LOCAL_STATE, PLATFORM_SETTINGS } from '../settings.js';

/** `veronikai process <name|all>`: stream processors as a role of their own. */
export function registerProcessCommand(program: Command): void {
  const cmd = program
    .command('process')
    .description(`run stream processors until stopped: ${PROCESSOR_NAMES.join(', ')} or all`)
    .argument('<name>', 'processor name or "all"');
  addSettings(cmd, PLATFORM_SETTINGS, ['optOutFile', 'signingKeyFile', 'webhooksFile', 'webhooksMaxAge', 'publicUrl']).action(
    async (name: string, opts: Record<string, unknown>) => {
      if (name !== 'all' && !PROCESSOR_NAMES.includes(name)) {
        throw new UsageError(`unknown processor "${name}" (known: ${PROCESSOR_NAMES.join(', ')}, all)`);
      }
      const { config, log } = configured(opts, 'veronikai-process', DATA_DIR_LOCAL_STATE);
      const shutdown = onShutdown();
      try {
        const platform = await startPlatform(config, {
          log,
          clientId: 'veronikai-process',
          migrate: false,
          api: false,
          probes: false,
          processors: name === 'all' ? true : [name],
        });
        try {
          say(`processing: ${platform.processors.map((r) => r.groupId).join(', ')}`);
          if (platform.webhooks) say(`webhooks: ${platform.webhooks.subscriptionCount} subscription(s) from ${config.webhooks.file}`);
          // A runner that stops on a failure rejects here: the error reaches main, which exits non-zero.
          await untilStopped(platform, shutdown.signal);
        } finally {
          await platform.close();
        }
      } finally {
        shutdown.dispose();
      }
    },
  );
}
