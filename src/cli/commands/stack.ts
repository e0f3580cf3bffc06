import type { Command } from 'commander';
import { parseDuration, parsePort } from '../../config.js';
import { DEFAULT_BROKER_PORT, stackDown, stackFetch, stackStatus, stackUp } from '../../runtime/stack.js';
import { addSettings, configured, DATA_DIR_ALWAYS } from '../settings.js';

type StackFlags = Record<string, unknown>;

/** `veronikai stack up|down|status|fetch`: the local single-node Kafka broker. */
export function registerStackCommand(program: Command): void {
  const stack = program
    .command('stack')
    .description('the local single-node Kafka broker (KRaft) for one machine, run from Maven Central jars on Java 17+');

  const withDirs = (cmd: Command): Command => addSettings(cmd, ['dataDir', 'cacheDir', 'logLevel']);

  withDirs(stack.command('up'))
    .description('start the broker in the background and wait until it answers')
    .option('--port <port>', 'client port', String(DEFAULT_BROKER_PORT))
    .option('--controller-port <port>', 'KRaft controller port (default: port + 1)')
    .option('--heap <size>', 'JVM maximum heap', '512m')
    .action(async (flags: StackFlags & { port: string; controllerPort?: string; heap: string }) => {
      const { config, log } = configured(flags, 'veronikai-stack', DATA_DIR_ALWAYS);
      const port = parsePort(flags.port, '--port');
      const controllerPort = flags.controllerPort === undefined ? undefined : parsePort(flags.controllerPort, '--controller-port');
      const up = await stackUp(config, { port, controllerPort, heap: flags.heap, log });
      if (!up.started) {
        process.stdout.write(`Kafka ${up.status.version} is already running: listening on ${up.status.brokers} (pid ${up.status.pid})\n`);
        return;
      }
      process.stdout.write(
        `Kafka ${up.version} broker listening on ${up.brokers} (pid ${up.pid})\n` +
          `  storage: ${up.logDirs}\n  log:     ${up.serverLog}\n` +
          `  use it:  VERONIKAI_KAFKA_BROKERS=${up.brokers}\n`,
      );
    });

  withDirs(stack.command('down'))
    .description('stop the broker (SIGTERM, then SIGKILL after the timeout)')
    .option('--timeout <duration>', 'how long to wait for a clean stop, e.g. 30s', '30s')
    .action(async (flags: StackFlags & { timeout: string }) => {
      const timeoutMs = parseDuration(flags.timeout, '--timeout');
      const { config, log } = configured(flags, 'veronikai-stack');
      const pid = await stackDown(config, { timeoutMs, log });
      process.stdout.write(pid === null ? 'Kafka broker was not running\n' : `Kafka broker stopped (pid ${pid})\n`);
    });

  withDirs(stack.command('status'))
    .description('is the broker running, and where does it listen (exit code 3 when it is not running)')
    .option('--json', 'print the status as JSON')
    .action(async (flags: StackFlags & { json?: boolean }) => {
      const { config } = configured(flags, 'veronikai-stack');
      const s = await stackStatus(config);
      if (flags.json) {
        process.stdout.write(JSON.stringify(s) + '\n');
      } else if (s.running) {
        process.stdout.write(
          `Kafka ${s.version}: running, pid ${s.pid}, listening on ${s.brokers}` +
            `${s.reachable ? '' : ' (not accepting connections yet)'}, since ${s.startedAt}\n  log: ${s.serverLog}\n`,
        );
      } else {
        process.stdout.write(`Kafka broker: not running (data in ${s.dataDir})\n`);
      }
      if (!s.running) process.exitCode = 3;
    });

  withDirs(stack.command('fetch'))
    .description('resolve the broker jars into the cache (Maven), without starting anything')
    .action(async (flags: StackFlags) => {
      const { config, log } = configured(flags, 'veronikai-stack');
      const jars = await stackFetch(config, log);
      process.stdout.write(`Kafka ${jars.version} jars in ${jars.libsDir}\n`);
    });
}
