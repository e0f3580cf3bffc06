import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import { DEFAULT_BROKER_PORT, brokerStatus, ensureKafkaJars, startBroker, stopBroker, type BrokerStatus } from '../stack/kafka/index.js';

/**
 * `stack up|down|status|fetch`: the local single-node Kafka broker of one data directory,
 * started detached so that it outlives the command (stack/kafka/ does the work).
 */

export { DEFAULT_BROKER_PORT, type BrokerStatus };

export interface StackUpOptions {
  port: number;
  /** Default: port + 1. */
  controllerPort?: number;
  /** JVM maximum heap, e.g. 512m. */
  heap: string;
  log: Logger;
}

export type StackUpResult =
  | { started: false; status: BrokerStatus }
  | { started: true; version: string; brokers: string; pid: number; logDirs: string; serverLog: string };

/** Starts the broker in the background unless this data directory's broker already runs. */
export async function stackUp(config: Config, opts: StackUpOptions): Promise<StackUpResult> {
  const status = await brokerStatus({ dataDir: config.dataDir });
  if (status.running) return { started: false, status };
  const broker = await startBroker({
    dataDir: config.dataDir,
    cacheDir: config.cacheDir,
    port: opts.port,
    controllerPort: opts.controllerPort,
    heap: opts.heap,
    detached: true,
    logger: opts.log,
  });
  return { started: true, version: broker.version, brokers: broker.brokers, pid: broker.pid, logDirs: broker.paths.logDirs, serverLog: broker.paths.serverLog };
}

/** Stops the broker (SIGTERM, SIGKILL after `timeoutMs`); its pid, or null when none was running. */
export function stackDown(config: Config, opts: { timeoutMs: number; log: Logger }): Promise<number | null> {
  return stopBroker({ dataDir: config.dataDir, timeoutMs: opts.timeoutMs, logger: opts.log });
}

/** Whether the broker runs, and where it listens. */
export function stackStatus(config: Config): Promise<BrokerStatus> {
  return brokerStatus({ dataDir: config.dataDir });
}

/** Resolves the broker jars into the cache without starting anything. */
export function stackFetch(config: Config, log: Logger): Promise<{ version: string; libsDir: string }> {
  return ensureKafkaJars({ cacheDir: config.cacheDir, logger: log });
}
