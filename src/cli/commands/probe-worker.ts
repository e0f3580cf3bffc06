import { Option, type Command } from 'commander';
import { startPlatform, type PlatformOptions } from '../../runtime/platform.js';
import { untilStopped } from '../../runtime/roles.js';
import { onShutdown } from '../../runtime/shutdown.js';
import { say } from '../format.js';
import { addSettings, configured, PLATFORM_SETTINGS } from '../settings.js';

/**
 * `--allow-loopback` for the roles that probe (`run`, `probe-worker`): lets probes and the
 * canary reach 127.0.0.0/8 and ::1, so benchmarks and end-to-end tests drive the real commands
 * against peers on this machine. Testing only. A command option, not a SETTINGS entry: every
 * setting there has an environment variable and takes a value, and this one must have neither,
 * so that it is never switched on by a deployment's environment, only on the command line.
 */
export function allowLoopbackOption(): Option {
  return new Option('--allow-loopback', 'testing only: let probes reach 127.0.0.0/8 and ::1; no other address the guard refuses is ever reached');
}

/** The probe policy the flag asks for, with its warning printed (stderr) when it loosens anything. */
export function probePolicyFrom(opts: Record<string, unknown>): PlatformOptions['probePolicy'] {
  if (opts.allowLoopback !== true) return undefined;
  process.stderr.write('veronikai: warning: --allow-loopback is for testing only: probes may reach 127.0.0.0/8 and ::1 on this machine\n');
  return { allowLoopback: true };
}

/** `veronikai probe-worker`: probe workers as a role of their own (probe-requests → probes). */
export function registerProbeWorkerCommand(program: Command): void {
  const cmd = program.command('probe-worker').description('consume probe requests and emit probe events until stopped');
  addSettings(cmd, PLATFORM_SETTINGS, ['canaryUrl', 'sourceUrl', 'probeConcurrency'])
    .addOption(allowLoopbackOption())
    .action(async (opts: Record<string, unknown>) => {
      const { config, log } = configured(opts, 'veronikai-probe-worker');
      const probePolicy = probePolicyFrom(opts);
      const shutdown = onShutdown();
      try {
        const platform = await startPlatform(config, { log, clientId: 'veronikai-probe-worker', warehouse: false, api: false, processors: false, probePolicy });
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
