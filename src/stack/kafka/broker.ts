/** Starting, stopping and asking after the local broker: the steps of the other modules, in order. */
import { dirname } from 'node:path';
import { UsageError } from '../../config.js';
import { silentLogger, type Logger } from '../../log.js';
import { sleep } from '../../util/time.js';
import { brokerPaths, type BrokerPaths } from './config.js';
import { ensureKafkaJars } from './jars.js';
import { findJava } from './java.js';
import { canConnect, DEFAULT_BROKER_PORT, freePort, HOST } from './ports.js';
import { waitReady } from './ready.js';
import { cleanupState, readState, writeState, type BrokerState } from './state.js';
import { prepareBrokerFiles } from './storage.js';
import { exitedDescription, isAlive, isOurBroker, jvmArgs, launchBroker, stopChild, stopPid, type BrokerProcess } from './supervise.js';
import { tailOf } from './tools.js';

export interface StartBrokerOptions {
  dataDir: string;
  cacheDir: string;
  /** Client port (default 9092; 0 picks a free one). */
  port?: number;
  /** Controller port (default port + 1; 0 picks a free one). */
  controllerPort?: number;
  logger?: Logger;
  /**
   * true: the broker outlives this process (pid file; `stack up`). false (default): it is a
   * child of this process, killed if this process exits.
   */
  detached?: boolean;
  /** JVM heap ceiling (default 512m). */
  heap?: string;
  /** How long to wait until the broker answers (default 90 s). */
  readyTimeoutMs?: number;
  /** Aborting while the broker starts kills it and rejects. */
  signal?: AbortSignal;
}

export interface BrokerHandle {
  /** Bootstrap servers, `host:port`. */
  brokers: string;
  pid: number;
  port: number;
  controllerPort: number;
  version: string;
  paths: BrokerPaths;
  /** SIGTERM, wait, SIGKILL after the timeout (default 30 s). */
  stop(timeoutMs?: number): Promise<void>;
}

/** Tries of a start on free ports whose port another process took first. */
const FREE_PORT_TRIES = 3;

/** Starts the broker (formatting its storage the first time) and waits until it answers. */
export async function startBroker(opts: StartBrokerOptions): Promise<BrokerHandle> {
  const freePorts = opts.port === 0 || opts.controllerPort === 0;
  for (let attempt = 1; ; attempt++) {
    try {
      return await startBrokerOnce(opts);
    } catch (err) {
      // A free port is found by binding and closing it, and the JVM binds it seconds later: another
      // process (a parallel test's server, say) can take it in between. Other ports then, not a failure.
      if (!freePorts || attempt >= FREE_PORT_TRIES || !/Address already in use/.test((err as Error).message)) throw err;
      (opts.logger ?? silentLogger).warn(
        { attempt },
        'the free port picked for the Kafka broker was taken before it bound; trying other ports',
      );
    }
  }
}

async function startBrokerOnce(opts: StartBrokerOptions): Promise<BrokerHandle> {
  const logger = (opts.logger ?? silentLogger).child({ component: 'kafka-broker' });
  const paths = brokerPaths(opts.dataDir);
  const orphan = adoptableOrphan(paths);
  if (orphan) return adopt(orphan, paths, opts.detached === true, logger);
  refuseIfRunning(paths);
  const java = findJava();
  const jars = await ensureKafkaJars({ cacheDir: opts.cacheDir, logger });
  opts.signal?.throwIfAborted();
  const { port, controllerPort } = await choosePorts(opts);
  await prepareBrokerFiles(paths, port, controllerPort, java, jars, logger);

  const started = Date.now();
  const proc = launchBroker(java, jvmArgs(paths, jars, opts.heap), paths);
  const { pid } = proc;
  writeState(paths, {
    pid,
    host: HOST,
    port,
    controllerPort,
    version: jars.version,
    startedAt: new Date().toISOString(),
    ...(opts.detached ? {} : { owner: process.pid }),
  });
  if (!opts.detached) process.once('exit', proc.kill);

  const brokers = `${HOST}:${port}`;
  await readyOrCleanUp(proc, brokers, jars.version, paths, opts);
  logger.info({ brokers, pid, version: jars.version, ms: Date.now() - started }, 'Kafka broker ready');
  if (opts.detached) proc.child.unref();

  return {
    brokers,
    pid,
    port,
    controllerPort,
    version: jars.version,
    paths,
    stop: async (timeoutMs = 30_000) => {
      await stopChild(proc, timeoutMs, logger);
      process.removeListener('exit', proc.kill);
      cleanupState(paths, pid);
      logger.info({ pid }, 'Kafka broker stopped');
    },
  };
}

/**
 * A broker left running by a process that was killed (SIGKILL cannot be caught, and the broker
 * runs in a process group of its own): it serves this data dir's storage and belongs to no one.
 */
function adoptableOrphan(paths: BrokerPaths): BrokerState | null {
  const existing = readState(paths);
  if (!existing || existing.owner === undefined || existing.owner === process.pid || isAlive(existing.owner)) return null;
  if (!Number.isFinite(existing.port) || !isOurBroker(existing.pid, paths)) return null;
  return existing;
}

/**
 * Takes the orphan on as if this process had started it, instead of waiting for it to stop and
 * starting another (a restart after a crash serves sooner): same stop, same 'exit' hook.
 */
async function adopt(state: BrokerState, paths: BrokerPaths, detached: boolean, logger: Logger): Promise<BrokerHandle> {
  const brokers = `${state.host}:${state.port}`;
  logger.warn(
    { pid: state.pid, brokers, owner: state.owner },
    'the Kafka broker of a process that ended without stopping it is still running; using it',
  );
  const kill = (): void => {
    try {
      process.kill(state.pid, 'SIGKILL');
    } catch {
      /* already gone */
    }
  };
  const { owner: _previous, ...rest } = state;
  writeState(paths, { ...rest, ...(detached ? {} : { owner: process.pid }) });
  if (!detached) process.once('exit', kill);
  await waitReady(brokers, 30_000, () => !isOurBroker(state.pid, paths));
  return {
    brokers,
    pid: state.pid,
    port: state.port,
    controllerPort: state.controllerPort,
    version: state.version,
    paths,
    stop: async (timeoutMs = 30_000) => {
      if (isOurBroker(state.pid, paths)) await stopPid(state.pid, timeoutMs, logger);
      process.removeListener('exit', kill);
      cleanupState(paths, state.pid);
      logger.info({ pid: state.pid }, 'Kafka broker stopped');
    },
  };
}

function refuseIfRunning(paths: BrokerPaths): void {
  const existing = readState(paths);
  if (existing && isOurBroker(existing.pid, paths)) {
    throw new UsageError(
      `a Kafka broker is already running from ${paths.dir} (pid ${existing.pid}, ${existing.host}:${existing.port}); use it, or stop it with: veronikai stack down --data-dir ${dirname(paths.dir)}`,
    );
  }
}

/** The ports asked for (0: a free one), checked to be distinct and unused. */
async function choosePorts(opts: StartBrokerOptions): Promise<{ port: number; controllerPort: number }> {
  const port = opts.port === 0 ? await freePort() : (opts.port ?? DEFAULT_BROKER_PORT);
  const controllerPort =
    opts.controllerPort === 0 || (opts.port === 0 && opts.controllerPort === undefined)
      ? await freePort([port])
      : (opts.controllerPort ?? port + 1);
  if (port === controllerPort) throw new UsageError('the broker port and the controller port must differ');
  for (const p of [port, controllerPort]) {
    if (await canConnect(HOST, p, 500))
      throw new UsageError(`port ${p} on ${HOST} is already in use (another Kafka?); choose another with --port`);
  }
  return { port, controllerPort };
}

/** Waits until the broker answers; on failure kills it, removes its state and says why, with its log's tail. */
async function readyOrCleanUp(
  proc: BrokerProcess,
  brokers: string,
  version: string,
  paths: BrokerPaths,
  opts: StartBrokerOptions,
): Promise<void> {
  try {
    await waitReady(brokers, opts.readyTimeoutMs ?? 90_000, () => {
      if (opts.signal?.aborted) throw new Error('start aborted');
      return proc.exit();
    });
  } catch (err) {
    proc.kill();
    await Promise.race([proc.exited, sleep(5000)]);
    process.removeListener('exit', proc.kill);
    cleanupState(paths, proc.pid);
    const exit = proc.exit();
    const why = exit ? `the broker exited (${exitedDescription(exit)})` : (err as Error).message;
    throw new Error(
      `Kafka ${version} did not start: ${why}\n${tailOf(paths.serverLog, 15)}\n(see ${paths.serverLog} and ${paths.stdoutLog})`,
      { cause: err },
    );
  }
}

export interface BrokerStatus {
  running: boolean;
  pid?: number;
  host?: string;
  port?: number;
  controllerPort?: number;
  brokers?: string;
  version?: string;
  startedAt?: string;
  /** The client port accepts connections. */
  reachable?: boolean;
  dataDir: string;
  serverLog: string;
}

export async function brokerStatus(opts: { dataDir: string }): Promise<BrokerStatus> {
  const paths = brokerPaths(opts.dataDir);
  const base = { dataDir: paths.dir, serverLog: paths.serverLog };
  const state = readState(paths);
  if (!state || !isOurBroker(state.pid, paths)) return { running: false, ...base };
  return {
    running: true,
    ...state,
    brokers: `${state.host}:${state.port}`,
    reachable: await canConnect(state.host, state.port, 1000),
    ...base,
  };
}

/** Stops a broker started with a pid file (`stack up`). Returns its pid, or null when none was running. */
export async function stopBroker(opts: { dataDir: string; timeoutMs?: number; logger?: Logger }): Promise<number | null> {
  const logger = (opts.logger ?? silentLogger).child({ component: 'kafka-broker' });
  const paths = brokerPaths(opts.dataDir);
  const state = readState(paths);
  if (!state || !isOurBroker(state.pid, paths)) {
    if (state) cleanupState(paths, state.pid);
    return null;
  }
  const { pid } = state;
  await stopPid(pid, opts.timeoutMs ?? 30_000, logger);
  cleanupState(paths, pid);
  return pid;
}
