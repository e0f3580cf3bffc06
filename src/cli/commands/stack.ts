import type { Command } from 'commander';
import { parsePort } from '../../config.js';
import { addSettings, configured } from '../settings.js';
import { DEFAULT_BROKER_PORT, brokerStatus, ensureKafkaJars, startBroker, stopBroker } from '../../stack/kafka-broker.js';

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
      const { config, log } = configured(flags, 'veronikai-stack');
      const port = parsePort(flags.port, '--port');
      const controllerPort = flags.controllerPort === undefined ? undefined : parsePort(flags.controllerPort, '--controller-port');
      const current = await brokerStatus({ dataDir: config.dataDir });
      if (current.running) {
        process.stdout.write(`Kafka ${current.version} is already running: listening on ${current.brokers} (pid ${current.pid})\n`);
        return;
      }
      const broker = await startBroker({
        dataDir: config.dataDir,
        cacheDir: config.cacheDir,
        port,
        controllerPort,
        heap: flags.heap,
        detached: true,
        logger: log,
      });
      process.stdout.write(
        `Kafka ${broker.version} broker listening on ${broker.brokers} (pid ${broker.pid})\n` +
          `  storage: ${broker.paths.logDirs}\n  log:     ${broker.paths.serverLog}\n` +
          `  use it:  VERONIKAI_KAFKA_BROKERS=${broker.brokers}\n`,
      );
    });

  withDirs(stack.command('down'))
    .description('stop the broker (SIGTERM, then SIGKILL after the timeout)')
    .option('--timeout <seconds>', 'how long to wait for a clean stop', '30')
    .action(async (flags: StackFlags & { timeout: string }) => {
      const { config, log } = configured(flags, 'veronikai-stack');
      const seconds = Number(flags.timeout);
      const pid = await stopBroker({
        dataDir: config.dataDir,
        timeoutMs: Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : 30_000,
        logger: log,
      });
      process.stdout.write(pid === null ? 'Kafka broker was not running\n' : `Kafka broker stopped (pid ${pid})\n`);
    });

  withDirs(stack.command('status'))
    .description('is the broker running, and where does it listen (exit code 3 when it is not running)')
    .option('--json', 'print the status as JSON')
    .action(async (flags: StackFlags & { json?: boolean }) => {
      const { config, log } = configured(flags, 'veronikai-stack');
      const s = await brokerStatus({ dataDir: config.dataDir });
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
      const jars = await ensureKafkaJars({ cacheDir: config.cacheDir, logger: log });
      process.stdout.write(`Kafka ${jars.version} jars in ${jars.libsDir}\n`);
    });
}
