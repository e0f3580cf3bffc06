/**
 * A local Kafka cluster of several KRaft nodes, each a broker and a voter of the controller
 * quorum, all run from the same jars. Each node has its own ports and directory:
 *
 *   <dataDir>/kafka-cluster/cluster.json   the cluster id and every node's id and ports
 *   <dataDir>/kafka-cluster/node-<id>/     that node's files, laid out as a single broker's (config.ts)
 *
 * The nodes are formatted with one cluster id and started together (a quorum elects a leader
 * only once most of its voters are up). A node that was stopped or killed starts again alone
 * with `startClusterNode` and catches up from the others.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { UsageError } from '../../config.js';
import { createKafka } from '../../kafka/client.js';
import { silentLogger, type Logger } from '../../log.js';
import { pollUntil, PollTimeoutError } from '../../util/poll.js';
import { sleep } from '../../util/time.js';
import { brokerPathsIn, newClusterId, type BrokerPaths } from './config.js';
import { ensureKafkaJars, type KafkaJars } from './jars.js';
import { findJava, type JavaRuntime } from './java.js';
import { canConnect, DEFAULT_BROKER_PORT, freePort, HOST } from './ports.js';
import { cleanupState, readState, writeState } from './state.js';
import { prepareBrokerFiles } from './storage.js';
import { isOurBroker, jvmArgs, launchBroker, stopChild, stopPid, type BrokerProcess } from './supervise.js';
import { tailOf } from './tools.js';

/** Nodes a local cluster may have: a quorum of more than five voters only slows elections. */
export const MAX_CLUSTER_NODES = 5;
/** What each node is: KRaft combined mode. */
export const NODE_ROLES = ['broker', 'controller'] as const;

export interface ClusterNodeSpec {
  id: number;
  port: number;
  controllerPort: number;
}

interface ClusterFile {
  clusterId: string;
  version: string;
  nodes: ClusterNodeSpec[];
}

export interface ClusterPaths {
  dir: string;
  clusterFile: string;
  node(id: number): BrokerPaths;
}

export function clusterPaths(dataDir: string): ClusterPaths {
  const dir = join(resolve(dataDir), 'kafka-cluster');
  return { dir, clusterFile: join(dir, 'cluster.json'), node: (id) => brokerPathsIn(join(dir, `node-${id}`)) };
}

export interface StartClusterOptions {
  dataDir: string;
  cacheDir: string;
  /** Nodes, 2 to MAX_CLUSTER_NODES. */
  nodes: number;
  /** Client port of node 1 (node n: port + 2(n-1), its controller the next one); 0: free ports. Default 9092. */
  port?: number;
  logger?: Logger;
  /** true: the nodes outlive this process (`stack up`); false: they are killed when it exits. */
  detached?: boolean;
  /** JVM heap ceiling of each node (default 384m). */
  heap?: string;
  /** How long to wait until every node answers (default 120 s). */
  readyTimeoutMs?: number;
}

export interface ClusterNodeHandle extends ClusterNodeSpec {
  address: string;
  pid: number;
  paths: BrokerPaths;
  /** Sends a signal to the node's process (SIGKILL: a node lost). */
  kill(signal?: NodeJS.Signals): void;
  /** Resolves once the node's process has exited. */
  exited: Promise<void>;
  /** SIGTERM, wait, SIGKILL after the timeout (default 30 s). */
  stop(timeoutMs?: number): Promise<void>;
}

export interface ClusterHandle {
  clusterId: string;
  version: string;
  /** Every node's `host:port`, comma-separated. */
  bootstrapServers: string;
  nodes: ClusterNodeHandle[];
  /** Starts again a node that was stopped or killed (same id, ports and storage); its handle replaces the old one in `nodes`. */
  restartNode(id: number): Promise<ClusterNodeHandle>;
  /** Stops every node. */
  stop(timeoutMs?: number): Promise<void>;
}

/**
 * Starts (formatting the first time) the nodes of the data dir's cluster that do not run, and
 * waits until each of them serves it: a cluster with a node down is brought back to strength.
 */
export async function startCluster(opts: StartClusterOptions): Promise<ClusterHandle> {
  if (!Number.isInteger(opts.nodes) || opts.nodes < 2 || opts.nodes > MAX_CLUSTER_NODES) {
    throw new UsageError(`a local cluster has 2 to ${MAX_CLUSTER_NODES} nodes, got ${opts.nodes}`);
  }
  const logger = (opts.logger ?? silentLogger).child({ component: 'kafka-cluster' });
  const paths = clusterPaths(opts.dataDir);
  const running = new Map(runningNodes(paths).map((n) => [n.id, n]));
  const java = findJava();
  const jars = await ensureKafkaJars({ cacheDir: opts.cacheDir, logger });
  const file = await planCluster(paths, opts, jars.version);
  if (running.size === file.nodes.length) {
    throw new UsageError(
      `the Kafka cluster in ${paths.dir} is already running; stop it with: veronikai stack down --data-dir ${opts.dataDir}`,
    );
  }
  const started = Date.now();
  const launchedNodes: ClusterNodeHandle[] = [];
  try {
    const launched = await Promise.allSettled(
      file.nodes.filter((spec) => !running.has(spec.id)).map((spec) => launchNode(paths, file, spec, java, jars, opts, logger)),
    );
    for (const l of launched) if (l.status === 'fulfilled') launchedNodes.push(l.value);
    const failed = launched.find((l): l is PromiseRejectedResult => l.status === 'rejected');
    if (failed) throw failed.reason;
    await waitClusterReady(launchedNodes, file.nodes.length, opts.readyTimeoutMs ?? 120_000);
  } catch (err) {
    await Promise.all(launchedNodes.map((n) => n.stop(5000).catch(() => undefined)));
    throw new Error(
      `the Kafka cluster did not start: ${(err as Error).message}\n${launchedNodes.map((n) => `node ${n.id}: ${tailOf(n.paths.serverLog, 5)}`).join('\n')}`,
      { cause: err },
    );
  }
  logger.info(
    { bootstrapServers: bootstrapOf(file.nodes), started: launchedNodes.map((n) => n.id), ms: Date.now() - started },
    'Kafka cluster ready',
  );
  const nodes = file.nodes.map(
    (spec) => launchedNodes.find((n) => n.id === spec.id) ?? runningNodeHandle(spec, running.get(spec.id)!, logger),
  );
  const handle: ClusterHandle = {
    clusterId: file.clusterId,
    version: file.version,
    bootstrapServers: bootstrapOf(file.nodes),
    nodes,
    restartNode: async (id) => {
      const spec = file.nodes.find((n) => n.id === id);
      if (!spec) throw new Error(`no node ${id} in ${paths.dir}`);
      const node = await launchNode(paths, file, spec, java, jars, opts, logger);
      await waitClusterReady([node], file.nodes.length, opts.readyTimeoutMs ?? 120_000);
      handle.nodes = handle.nodes.map((n) => (n.id === id ? node : n));
      return node;
    },
    stop: async (timeoutMs = 30_000) => {
      await Promise.all(handle.nodes.map((n) => n.stop(timeoutMs)));
    },
  };
  return handle;
}

/** The cluster file: read when the cluster was made before (same id and ports), else written now. */
async function planCluster(paths: ClusterPaths, opts: StartClusterOptions, version: string): Promise<ClusterFile> {
  const before = readClusterFile(paths);
  if (before) {
    if (before.nodes.length !== opts.nodes) {
      throw new UsageError(
        `the Kafka cluster in ${paths.dir} has ${before.nodes.length} nodes, not ${opts.nodes}; remove that directory to make another`,
      );
    }
    return { ...before, version };
  }
  const nodes: ClusterNodeSpec[] = [];
  const taken: number[] = [];
  const base = opts.port ?? DEFAULT_BROKER_PORT;
  for (let id = 1; id <= opts.nodes; id++) {
    const port = opts.port === 0 ? await freePort(taken) : base + 2 * (id - 1);
    taken.push(port);
    const controllerPort = opts.port === 0 ? await freePort(taken) : port + 1;
    taken.push(controllerPort);
    nodes.push({ id, port, controllerPort });
  }
  for (const p of taken)
    if (await canConnect(HOST, p, 500))
      throw new UsageError(`port ${p} on ${HOST} is already in use (another Kafka?); choose another with --port`);
  const file: ClusterFile = { clusterId: newClusterId(), version, nodes };
  mkdirSync(paths.dir, { recursive: true });
  writeFileSync(paths.clusterFile, JSON.stringify(file, null, 2) + '\n');
  return file;
}

function readClusterFile(paths: ClusterPaths): ClusterFile | null {
  if (!existsSync(paths.clusterFile)) return null;
  try {
    const f = JSON.parse(readFileSync(paths.clusterFile, 'utf8')) as ClusterFile;
    if (
      typeof f.clusterId === 'string' &&
      Array.isArray(f.nodes) &&
      f.nodes.every((n) => Number.isInteger(n.id) && Number.isInteger(n.port))
    )
      return f;
  } catch {
    /* unreadable: treated as none */
  }
  return null;
}

const bootstrapOf = (nodes: readonly ClusterNodeSpec[]): string => nodes.map((n) => `${HOST}:${n.port}`).join(',');
const votersOf = (nodes: readonly ClusterNodeSpec[]): string => nodes.map((n) => `${n.id}@${HOST}:${n.controllerPort}`).join(',');

async function launchNode(
  paths: ClusterPaths,
  file: ClusterFile,
  spec: ClusterNodeSpec,
  java: JavaRuntime,
  jars: KafkaJars,
  opts: StartClusterOptions,
  logger: Logger,
): Promise<ClusterNodeHandle> {
  const np = paths.node(spec.id);
  await prepareBrokerFiles(np, spec.port, spec.controllerPort, java, jars, logger, {
    nodeId: spec.id,
    voters: votersOf(file.nodes),
    size: file.nodes.length,
    clusterId: file.clusterId,
  });
  const proc = launchBroker(java, jvmArgs(np, jars, opts.heap ?? '384m'), np);
  writeState(np, {
    pid: proc.pid,
    host: HOST,
    port: spec.port,
    controllerPort: spec.controllerPort,
    version: jars.version,
    startedAt: new Date().toISOString(),
    nodeId: spec.id,
    ...(opts.detached ? {} : { owner: process.pid }),
  });
  if (opts.detached) proc.child.unref();
  else process.once('exit', proc.kill);
  return nodeHandle(spec, np, proc, logger);
}

function nodeHandle(spec: ClusterNodeSpec, np: BrokerPaths, proc: BrokerProcess, logger: Logger): ClusterNodeHandle {
  return {
    ...spec,
    address: `${HOST}:${spec.port}`,
    pid: proc.pid,
    paths: np,
    kill: (signal = 'SIGKILL') => void proc.child.kill(signal),
    exited: proc.exited,
    stop: async (timeoutMs = 30_000) => {
      await stopChild(proc, timeoutMs, logger);
      process.removeListener('exit', proc.kill);
      cleanupState(np, proc.pid);
    },
  };
}

/** A node that was already running (not a child of this process): signalled and stopped by its pid. */
function runningNodeHandle(spec: ClusterNodeSpec, node: { pid: number; paths: BrokerPaths }, logger: Logger): ClusterNodeHandle {
  return {
    ...spec,
    address: `${HOST}:${spec.port}`,
    pid: node.pid,
    paths: node.paths,
    kill: (signal = 'SIGKILL') => process.kill(node.pid, signal),
    // Watched only when asked: a watch started here would keep the process alive.
    get exited() {
      return (async () => {
        while (isOurBroker(node.pid, node.paths)) await sleep(200);
      })();
    },
    stop: async (timeoutMs = 30_000) => {
      if (isOurBroker(node.pid, node.paths)) await stopPid(node.pid, timeoutMs, logger);
      cleanupState(node.paths, node.pid);
    },
  };
}

/** Each given node answers Kafka requests and sees `size` brokers in the cluster. */
async function waitClusterReady(nodes: readonly ClusterNodeHandle[], size: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (const node of nodes) {
    let exited = false;
    void node.exited.then(() => (exited = true));
    const kafka = createKafka({ brokers: node.address, clientId: 'veronikai-stack', logger: silentLogger, retry: { retries: 0 } });
    try {
      await pollUntil(
        `node ${node.id}`,
        async () => {
          if (exited) throw new Error(`node ${node.id} exited (see ${node.paths.serverLog})`);
          if (!(await canConnect(HOST, node.port, 500))) return { done: false, why: 'no answer on its port' };
          const seen = await brokersSeen(kafka);
          return seen >= size ? { done: true, value: undefined } : { done: false, why: `${seen} of ${size} brokers seen` };
        },
        { timeoutMs: Math.max(1, deadline - Date.now()), intervalMs: 250 },
      );
    } catch (err) {
      if (err instanceof PollTimeoutError) throw new Error(`node ${node.id} not ready after ${timeoutMs} ms (${err.last})`, { cause: err });
      throw err;
    }
  }
}

async function brokersSeen(kafka: ReturnType<typeof createKafka>): Promise<number> {
  const admin = kafka.admin();
  try {
    await admin.connect();
    return (await admin.describeCluster()).brokers.length;
  } catch {
    return 0; // not yet
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}

export interface ClusterNodeStatus extends ClusterNodeSpec {
  address: string;
  /** null when the node is not running. */
  pid: number | null;
  roles: readonly string[];
  running: boolean;
  /** Its client port accepts connections. */
  reachable: boolean;
  serverLog: string;
}

export interface ClusterStatus {
  /** Some node of the cluster runs. */
  running: boolean;
  clusterId: string;
  version: string;
  bootstrapServers: string;
  nodes: ClusterNodeStatus[];
  dataDir: string;
}

/** The data dir's cluster (null when none was ever made there), each node running or not. */
export async function clusterStatus(opts: { dataDir: string }): Promise<ClusterStatus | null> {
  const paths = clusterPaths(opts.dataDir);
  const file = readClusterFile(paths);
  if (!file) return null;
  const nodes = await Promise.all(
    file.nodes.map(async (spec): Promise<ClusterNodeStatus> => {
      const np = paths.node(spec.id);
      const state = readState(np);
      const running = state !== null && isOurBroker(state.pid, np);
      return {
        ...spec,
        address: `${HOST}:${spec.port}`,
        pid: running ? state.pid : null,
        roles: NODE_ROLES,
        running,
        reachable: running && (await canConnect(HOST, spec.port, 1000)),
        serverLog: np.serverLog,
      };
    }),
  );
  return {
    running: nodes.some((n) => n.running),
    clusterId: file.clusterId,
    version: file.version,
    bootstrapServers: bootstrapOf(file.nodes),
    nodes,
    dataDir: paths.dir,
  };
}

/** Stops every running node of the data dir's cluster (all at once); their pids. */
export async function stopCluster(opts: { dataDir: string; timeoutMs?: number; logger?: Logger }): Promise<number[]> {
  const logger = (opts.logger ?? silentLogger).child({ component: 'kafka-cluster' });
  const paths = clusterPaths(opts.dataDir);
  const nodes = runningNodes(paths);
  await Promise.all(
    nodes.map(async ({ pid, paths: np }) => {
      await stopPid(pid, opts.timeoutMs ?? 30_000, logger);
      cleanupState(np, pid);
    }),
  );
  // A node's stop can take a moment to release its ports: the next start must find them free.
  if (nodes.length > 0) await sleep(200);
  return nodes.map((n) => n.pid);
}

function runningNodes(paths: ClusterPaths): Array<{ id: number; pid: number; paths: BrokerPaths }> {
  const file = readClusterFile(paths);
  if (!file) return [];
  const out: Array<{ id: number; pid: number; paths: BrokerPaths }> = [];
  for (const spec of file.nodes) {
    const np = paths.node(spec.id);
    const state = readState(np);
    if (state && isOurBroker(state.pid, np)) out.push({ id: spec.id, pid: state.pid, paths: np });
    else if (state) cleanupState(np, state.pid);
  }
  return out;
}
