import type { Command } from 'commander';
import { startPlatform, type PlatformOptions } from '../../runtime/platform.js';
import { untilStopped } from '../../runtime/roles.js';
import { onShutdown } from '../../runtime/shutdown.js';
import { say } from '../format.js';
import { addSettings, configured, DATA_DIR_LOCAL_BROKER, PLATFORM_SETTINGS } from '../settings.js';

/**
 * The probe policy `--allow-loopback` (SETTINGS.allowLoopback) asks for in the roles that probe
 * (`run`, `probe-worker`): probes and the canary may reach 127.0.0.0/8 and ::1, so benchmarks
 * and end-to-end tests drive the real commands against peers on this machine. Testing only: its
 * warning is printed (stderr) whenever it loosens anything.
 */
export function probePolicyFrom(opts: Record<string, unknown>): PlatformOptions['probePolicy'] {
  if (opts.allowLoopback !== true) return undefined;
  process.stderr.write('veronikai: warning: --allow-loopback is for testing only: probes may reach 127.0.0.0/8 and ::1 on this machine\n');
  return { allowLoopback: true };
}

/** `veronikai probe-worker`: probe workers as a role of their own (probe-requests → probes). */
export function registerProbeWorkerCommand(program: Command): void {
  const cmd = program.command('probe-worker').description('consume probe requests and emit probe events until stopped');
  addSettings(cmd, PLATFORM_SETTINGS, ['canaryUrl', 'sourceUrl', 'probeConcurrency', 'allowLoopback']).action(
    async (opts: Record<string, unknown>) => {
      const { config, log } = configured(opts, 'veronikai-probe-worker', DATA_DIR_LOCAL_BROKER);
      const probePolicy = probePolicyFrom(opts);
      const shutdown = onShutdown();
      try {
        const platform = await startPlatform(config, {
          log,
          clientId: 'veronikai-probe-worker',
          warehouse: false,
          api: false,
          processors: false,
          probePolicy,
        });
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
    },
  );
}
