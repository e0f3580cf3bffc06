import type { Command } from 'commander';
import { parseCount, parseDuration, parsePort, UsageError } from '../../config.js';
import { MAX_CLUSTER_NODES } from '../../stack/kafka/index.js';
import { DEFAULT_BROKER_PORT, stackDown, stackFetch, stackStatus, stackUp } from '../../runtime/stack.js';
import { addSettings, configured, DATA_DIR_ALWAYS } from '../settings.js';

type StackFlags = Record<string, unknown>;

/** `veronikai stack up|down|status|fetch`: the local Kafka broker, or a local cluster of KRaft nodes. */
export function registerStackCommand(program: Command): void {
  const stack = program
    .command('stack')
    .description('the local Kafka (KRaft): one broker, or a cluster of nodes on one machine, run from Maven Central jars on Java 17+');

  const withDirs = (cmd: Command): Command => addSettings(cmd, ['dataDir', 'cacheDir', 'logLevel']);

  withDirs(stack.command('up'))
    .description('start the broker (or --nodes of them, a cluster) in the background and wait until it answers')
    .option(
      '--port <port>',
      'client port (of node 1 in a cluster: node n listens on port + 2(n-1), its controller on the next port)',
      String(DEFAULT_BROKER_PORT),
    )
    .option('--controller-port <port>', 'KRaft controller port of a single broker (default: port + 1)')
    .option('--nodes <n>', `KRaft nodes, each a broker and a controller (1 to ${MAX_CLUSTER_NODES})`, '1')
    .option('--heap <size>', 'JVM maximum heap of each node', '512m')
    .action(async (flags: StackFlags & { port: string; controllerPort?: string; nodes: string; heap: string }) => {
      const nodes = parseCount(flags.nodes, '--nodes', 1);
      if (nodes > MAX_CLUSTER_NODES) throw new UsageError(`--nodes must be between 1 and ${MAX_CLUSTER_NODES}, got ${nodes}`);
      if (nodes > 1 && flags.controllerPort !== undefined)
        throw new UsageError('--controller-port is for a single broker; a cluster puts each controller beside its node');
      const { config, log } = configured(flags, 'veronikai-stack', DATA_DIR_ALWAYS);
      const port = parsePort(flags.port, '--port');
      const controllerPort = flags.controllerPort === undefined ? undefined : parsePort(flags.controllerPort, '--controller-port');
      const up = await stackUp(config, { port, controllerPort, nodes, heap: flags.heap, log });
      if (!up.started) {
        const s = up.status;
        const what = s.kind === 'cluster' ? `a cluster of ${s.nodes.length} nodes` : 'Kafka';
        process.stdout.write(
          `${s.version ? `Kafka ${s.version}: ` : ''}${what} is already running: listening on ${s.bootstrapServers} (pid ${s.nodes
            .map((n) => n.pid)
            .filter((p) => p !== null)
            .join(', ')})\n`,
        );
        return;
      }
      if (up.nodes.length === 1) {
        process.stdout.write(
          `Kafka ${up.version} broker listening on ${up.bootstrapServers} (pid ${up.nodes[0]!.pid})\n  log:     ${up.serverLogs[0]}\n`,
        );
      } else {
        process.stdout.write(`Kafka ${up.version} cluster of ${up.nodes.length} nodes\n`);
        up.nodes.forEach((n, i) => process.stdout.write(`  node ${n.id}: ${n.address} (pid ${n.pid}), log ${up.serverLogs[i]}\n`));
      }
      process.stdout.write(`  use it:  VERONIKAI_KAFKA_BROKERS=${up.bootstrapServers}\n`);
    });

  withDirs(stack.command('down'))
    .description('stop the broker, or every node of the cluster (SIGTERM, then SIGKILL after the timeout)')
    .option('--timeout <duration>', 'how long to wait for a clean stop, e.g. 30s', '30s')
    .action(async (flags: StackFlags & { timeout: string }) => {
      const timeoutMs = parseDuration(flags.timeout, '--timeout');
      const { config, log } = configured(flags, 'veronikai-stack');
      const pids = await stackDown(config, { timeoutMs, log });
      process.stdout.write(
        pids.length === 0
          ? 'Kafka broker was not running\n'
          : pids.length === 1
            ? `Kafka broker stopped (pid ${pids[0]})\n`
            : `Kafka cluster stopped (pids ${pids.join(', ')})\n`,
      );
    });

  withDirs(stack.command('status'))
    .description('is the broker or the cluster running, and where does each node listen (exit code 3 when none runs)')
    .option('--json', 'print the status as JSON: running, bootstrapServers, and each node (id, address, pid, roles)')
    .action(async (flags: StackFlags & { json?: boolean }) => {
      const { config } = configured(flags, 'veronikai-stack');
      const s = await stackStatus(config);
      if (flags.json) {
        // A single broker's own fields (brokers, port, startedAt, serverLog…) stay at the top, as before clusters.
        const { broker, ...stack } = s;
        process.stdout.write(JSON.stringify(broker ? { ...broker, ...stack } : stack) + '\n');
      } else if (s.kind === 'cluster') {
        process.stdout.write(
          `Kafka ${s.version} cluster: ${s.nodes.filter((n) => n.running).length} of ${s.nodes.length} nodes running; bootstrap servers ${s.bootstrapServers}\n`,
        );
        for (const n of s.nodes) {
          process.stdout.write(
            `  node ${n.id} (${n.roles.join(', ')}): ${n.address}, ${n.running ? `pid ${n.pid}${n.reachable ? '' : ', not accepting connections yet'}` : 'not running'}\n`,
          );
        }
      } else if (s.running && s.broker) {
        const b = s.broker;
        process.stdout.write(
          `Kafka ${b.version}: running, pid ${b.pid}, listening on ${b.brokers}` +
            `${b.reachable ? '' : ' (not accepting connections yet)'}, since ${b.startedAt}\n  log: ${b.serverLog}\n`,
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
