import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import {
  DEFAULT_BROKER_PORT,
  brokerStatus,
  clusterStatus,
  ensureKafkaJars,
  startBroker,
  startCluster,
  stopBroker,
  stopCluster,
  type BrokerStatus,
  type ClusterStatus,
} from '../stack/kafka/index.js';

/**
 * `stack up|down|status|fetch`: the local Kafka of one data directory, one broker or a cluster
 * of nodes, started detached so that it outlives the command (stack/kafka/ does the work).
 */

export { DEFAULT_BROKER_PORT, type BrokerStatus, type ClusterStatus };

export interface StackUpOptions {
  port: number;
  /** Default: port + 1 (one broker only). */
  controllerPort?: number;
  /** 1: the single broker; more: a cluster of that many KRaft nodes. */
  nodes: number;
  /** JVM maximum heap (of each node), e.g. 512m. */
  heap: string;
  log: Logger;
}

export type StackUpResult =
  | { started: false; status: StackStatus }
  | { started: true; version: string; bootstrapServers: string; nodes: StackNode[]; serverLogs: string[] };

/** One node as `stack status` lists it. */
export interface StackNode {
  id: number;
  address: string;
  pid: number | null;
  roles: readonly string[];
  running: boolean;
  reachable: boolean;
}

/** What runs in the data directory: the single broker's, or the cluster's, nodes. */
export interface StackStatus {
  running: boolean;
  kind: 'single' | 'cluster';
  version: string | null;
  bootstrapServers: string | null;
  nodes: StackNode[];
  dataDir: string;
  /** The single broker's whole status (its log, when it started). */
  broker?: BrokerStatus;
}

/** Starts the broker, or the cluster, in the background unless this data directory's already runs. */
export async function stackUp(config: Config, opts: StackUpOptions): Promise<StackUpResult> {
  const status = await stackStatus(config);
  // A cluster with a node down is brought back to strength; one fully up is left alone.
  if (status.running && (status.kind === 'single' || status.nodes.every((n) => n.running))) return { started: false, status };
  if (opts.nodes > 1 || status.kind === 'cluster') {
    const cluster = await startCluster({
      dataDir: config.dataDir,
      cacheDir: config.cacheDir,
      nodes: status.kind === 'cluster' ? status.nodes.length : opts.nodes,
      port: opts.port,
      heap: opts.heap,
      detached: true,
      logger: opts.log,
    });
    return {
      started: true,
      version: cluster.version,
      bootstrapServers: cluster.bootstrapServers,
      nodes: cluster.nodes.map((n) => ({
        id: n.id,
        address: n.address,
        pid: n.pid,
        roles: ['broker', 'controller'],
        running: true,
        reachable: true,
      })),
      serverLogs: cluster.nodes.map((n) => n.paths.serverLog),
    };
  }
  const broker = await startBroker({
    dataDir: config.dataDir,
    cacheDir: config.cacheDir,
    port: opts.port,
    controllerPort: opts.controllerPort,
    heap: opts.heap,
    detached: true,
    logger: opts.log,
  });
  return {
    started: true,
    version: broker.version,
    bootstrapServers: broker.brokers,
    nodes: [{ id: 1, address: broker.brokers, pid: broker.pid, roles: ['broker', 'controller'], running: true, reachable: true }],
    serverLogs: [broker.paths.serverLog],
  };
}

/** Stops the broker and every node of the cluster (SIGTERM, SIGKILL after `timeoutMs`); the pids stopped. */
export async function stackDown(config: Config, opts: { timeoutMs: number; log: Logger }): Promise<number[]> {
  const [single, cluster] = await Promise.all([
    stopBroker({ dataDir: config.dataDir, timeoutMs: opts.timeoutMs, logger: opts.log }),
    stopCluster({ dataDir: config.dataDir, timeoutMs: opts.timeoutMs, logger: opts.log }),
  ]);
  return [...(single === null ? [] : [single]), ...cluster];
}

/** Whether the broker or the cluster runs, and where each node listens. */
export async function stackStatus(config: Config): Promise<StackStatus> {
  const cluster = await clusterStatus({ dataDir: config.dataDir });
  const broker = await brokerStatus({ dataDir: config.dataDir });
  // A cluster that runs, or that was made here while no single broker runs, is what the directory holds.
  if (cluster && (cluster.running || !broker.running)) {
    return {
      running: cluster.running,
      kind: 'cluster',
      version: cluster.version,
      bootstrapServers: cluster.bootstrapServers,
      nodes: cluster.nodes.map((n) => ({
        id: n.id,
        address: n.address,
        pid: n.pid,
        roles: n.roles,
        running: n.running,
        reachable: n.reachable,
      })),
      dataDir: cluster.dataDir,
    };
  }
  return {
    running: broker.running,
    kind: 'single',
    version: broker.version ?? null,
    bootstrapServers: broker.brokers ?? null,
    nodes: broker.running
      ? [
          {
            id: 1,
            address: broker.brokers!,
            pid: broker.pid!,
            roles: ['broker', 'controller'],
            running: true,
            reachable: broker.reachable ?? false,
          },
        ]
      : [],
    dataDir: broker.dataDir,
    broker,
  };
}

/** Resolves the broker jars into the cache without starting anything. */
export function stackFetch(config: Config, log: Logger): Promise<{ version: string; libsDir: string }> {
  return ensureKafkaJars({ cacheDir: config.cacheDir, logger: log });
}
