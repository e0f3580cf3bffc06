/**
 * The local single-node Kafka broker: Apache Kafka in KRaft mode (one process is both
 * broker and controller), run from its Maven Central jars on the machine's Java.
 *
 * Layout under <dataDir>/kafka/: server.properties, log4j2.xml, data/ (the log dirs),
 * server.log (the broker's own log), broker.out (JVM stdout/stderr), broker.pid and
 * broker.json (pid and ports of a running broker). Jars live in
 * <cacheDir>/kafka-<version>/libs, resolved by Maven from stack/kafka/pom.xml.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, openSync, closeSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync, accessSync, constants as fsConstants } from 'node:fs';
import { createServer, connect as netConnect } from 'node:net';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { UsageError } from '../config.js';
import { silentLogger, type Logger } from '../log.js';
import { createKafka } from '../kafka/client.js';
import { pollUntil, PollTimeoutError } from '../util/poll.js';
import { sleep } from '../util/time.js';

/** A tool the broker needs is missing or too old: one line saying what to install. */
export class MissingToolError extends UsageError {
  override name = 'MissingToolError';
}

export const DEFAULT_BROKER_PORT = 9092;
const HOST = '127.0.0.1';
const MIN_JAVA = 17;

// ---------------------------------------------------------------------------------------------
// The pom and the jars

/** Finds stack/kafka/pom.xml by walking up from this module (works from src/ and from dist/). */
export function findKafkaPom(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, 'stack', 'kafka', 'pom.xml');
    if (existsSync(candidate)) return candidate;
    const parent = dirname(dir);
    if (parent === dir) throw new Error('stack/kafka/pom.xml not found above ' + dirname(fileURLToPath(import.meta.url)));
    dir = parent;
  }
}

/** The Kafka version pinned in the pom (`<kafka.version>`). */
export function kafkaVersion(pomPath = findKafkaPom()): string {
  const m = /<kafka\.version>\s*([^<\s]+)\s*<\/kafka\.version>/.exec(readFileSync(pomPath, 'utf8'));
  if (!m?.[1]) throw new Error(`no <kafka.version> in ${pomPath}`);
  return m[1];
}

export interface KafkaJars {
  version: string;
  libsDir: string;
  /** For `java -cp`. */
  classpath: string;
}

export interface EnsureJarsOptions {
  cacheDir: string;
  logger?: Logger;
  pomPath?: string;
  /** Where to look for mvn (PATH); default process.env. */
  env?: NodeJS.ProcessEnv;
}

const MARKER = '.veronikai-resolved';

/** The libs directory for a version, whether or not it is resolved yet. */
export function kafkaLibsDir(cacheDir: string, version: string): string {
  return join(resolve(cacheDir), `kafka-${version}`, 'libs');
}

function libsComplete(libsDir: string, version: string): boolean {
  if (!existsSync(libsDir)) return false;
  const files = readdirSync(libsDir);
  // Resolved by us (marker) or pre-resolved by the same mvn command, e.g. in CI.
  return files.includes(`kafka_2.13-${version}.jar`) && files.some((f) => f.startsWith('log4j-core-')) && files.some((f) => f.startsWith('log4j-slf4j2-impl-'));
}

/**
 * Makes sure the broker's jars are in the cache, resolving them with Maven when they are not:
 * `mvn -q -B -f stack/kafka/pom.xml dependency:copy-dependencies -DoutputDirectory=<libs>`.
 */
export async function ensureKafkaJars(opts: EnsureJarsOptions): Promise<KafkaJars> {
  const logger = opts.logger ?? silentLogger;
  const pomPath = opts.pomPath ?? findKafkaPom();
  const version = kafkaVersion(pomPath);
  const libsDir = kafkaLibsDir(opts.cacheDir, version);
  const jars = { version, libsDir, classpath: join(libsDir, '*') };
  if (libsComplete(libsDir, version)) return jars;

  const mvn = findExecutable('mvn', opts.env);
  if (!mvn) {
    throw new MissingToolError(
      `mvn not found: Kafka ${version}'s jars are resolved from Maven Central with Maven; install Maven (Debian: apt-get install maven) or put the jars in ${libsDir}`,
    );
  }
  const tmp = `${libsDir}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(dirname(libsDir), { recursive: true });
  logger.info({ version, libsDir }, 'resolving the Kafka broker jars with Maven');
  const started = Date.now();
  const res = await run(mvn, ['-q', '-B', '-f', pomPath, 'dependency:copy-dependencies', `-DoutputDirectory=${tmp}`, '-DincludeScope=runtime']);
  if (res.code !== 0 || !libsComplete(tmp, version)) {
    rmSync(tmp, { recursive: true, force: true });
    const tail = (res.stdout + res.stderr).trim().split('\n').slice(-15).join('\n');
    throw new Error(`Maven could not resolve the Kafka ${version} jars (exit ${res.code}):\n${tail}`);
  }
  writeFileSync(join(tmp, MARKER), createHash('sha256').update(readFileSync(pomPath)).digest('hex') + '\n');
  rmSync(libsDir, { recursive: true, force: true });
  try {
    renameSync(tmp, libsDir);
  } catch (err) {
    // Another process resolved the same jars at the same time: keep theirs.
    rmSync(tmp, { recursive: true, force: true });
    if (!libsComplete(libsDir, version)) throw err;
  }
  logger.info({ version, libsDir, ms: Date.now() - started }, 'Kafka broker jars resolved');
  return jars;
}

// ---------------------------------------------------------------------------------------------
// Java

export interface JavaRuntime {
  path: string;
  major: number;
}

/** JAVA_HOME's java if set, else java on PATH; must be 17 or newer. */
export function findJava(env: NodeJS.ProcessEnv = process.env): JavaRuntime {
  const fromHome = env.JAVA_HOME ? join(env.JAVA_HOME, 'bin', 'java') : null;
  const path = fromHome && isExecutable(fromHome) ? fromHome : findExecutable('java', env);
  if (!path) {
    throw new MissingToolError(
      `java not found: the Kafka broker needs a Java ${MIN_JAVA}+ runtime; install one (Debian: apt-get install openjdk-17-jre-headless) or set JAVA_HOME`,
    );
  }
  const out = spawnSync(path, ['-version'], { encoding: 'utf8' });
  const text = `${out.stderr ?? ''}${out.stdout ?? ''}`;
  const m = /version "(\d+)(?:\.(\d+))?/.exec(text);
  let major = m ? Number(m[1]) : NaN;
  if (major === 1 && m?.[2]) major = Number(m[2]); // "1.8.0_…" style
  if (!Number.isFinite(major)) throw new MissingToolError(`could not tell the version of ${path}: ${text.trim().split('\n')[0] ?? ''}`);
  if (major < MIN_JAVA) {
    throw new MissingToolError(`${path} is Java ${major}; the Kafka broker needs Java ${MIN_JAVA}+ (Debian: apt-get install openjdk-17-jre-headless, or set JAVA_HOME)`);
  }
  return { path, major };
}

// ---------------------------------------------------------------------------------------------
// Configuration files and storage

export interface BrokerPaths {
  dir: string;
  serverProperties: string;
  log4jConfig: string;
  logDirs: string;
  serverLog: string;
  stdoutLog: string;
  pidFile: string;
  stateFile: string;
}

export function brokerPaths(dataDir: string): BrokerPaths {
  const dir = join(resolve(dataDir), 'kafka');
  return {
    dir,
    serverProperties: join(dir, 'server.properties'),
    log4jConfig: join(dir, 'log4j2.xml'),
    logDirs: join(dir, 'data'),
    serverLog: join(dir, 'server.log'),
    stdoutLog: join(dir, 'broker.out'),
    pidFile: join(dir, 'broker.pid'),
    stateFile: join(dir, 'broker.json'),
  };
}

export function serverProperties(paths: BrokerPaths, port: number, controllerPort: number): string {
  const settings: [string, string | number][] = [
    // KRaft, combined mode: this one process is the whole cluster (static quorum of one).
    ['process.roles', 'broker,controller'],
    ['node.id', 1],
    ['controller.quorum.voters', `1@${HOST}:${controllerPort}`],
    ['listeners', `PLAINTEXT://${HOST}:${port},CONTROLLER://${HOST}:${controllerPort}`],
    ['advertised.listeners', `PLAINTEXT://${HOST}:${port}`],
    ['controller.listener.names', 'CONTROLLER'],
    ['inter.broker.listener.name', 'PLAINTEXT'],
    ['listener.security.protocol.map', 'PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT'],
    ['log.dirs', paths.logDirs],
    // One broker: every internal topic has one replica.
    ['offsets.topic.replication.factor', 1],
    ['transaction.state.log.replication.factor', 1],
    ['transaction.state.log.min.isr', 1],
    ['share.coordinator.state.topic.replication.factor', 1],
    ['share.coordinator.state.topic.min.isr', 1],
    ['default.replication.factor', 1],
    ['min.insync.replicas', 1],
    // Small and quick on a two-core machine.
    ['offsets.topic.num.partitions', 5],
    ['transaction.state.log.num.partitions', 5],
    ['num.partitions', 1],
    ['num.network.threads', 2],
    ['num.io.threads', 4],
    ['num.recovery.threads.per.data.dir', 1],
    ['group.initial.rebalance.delay.ms', 0],
    // Topics are created explicitly with their partitions and retention (src/kafka/topics-admin.ts).
    ['auto.create.topics.enable', 'false'],
    ['delete.topic.enable', 'true'],
  ];
  return (
    '# Written by `veronikai stack up`; rewritten at each start.\n' +
    settings.map(([k, v]) => `${k}=${String(v).replace(/\\/g, '\\\\')}`).join('\n') +
    '\n'
  );
}

function log4jXml(serverLog: string): string {
  const file = serverLog.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
  return `<?xml version="1.0" encoding="UTF-8"?>
<!-- Written by veronikai stack up: the broker logs to a size-capped file. -->
<Configuration status="warn">
  <Appenders>
    <RollingFile name="file" fileName="${file}" filePattern="${file}.%i">
      <PatternLayout pattern="[%d] %p %m (%c)%n"/>
      <Policies><SizeBasedTriggeringPolicy size="20 MB"/></Policies>
      <DefaultRolloverStrategy max="3"/>
    </RollingFile>
  </Appenders>
  <Loggers>
    <Logger name="kafka.request.logger" level="warn"/>
    <Logger name="org.apache.kafka.controller" level="info"/>
    <Logger name="state.change.logger" level="warn"/>
    <Root level="info"><AppenderRef ref="file"/></Root>
  </Loggers>
</Configuration>
`;
}

/** A Kafka cluster id: 16 random bytes, URL-safe base64 without padding, not starting with '-'. */
export function newClusterId(): string {
  for (;;) {
    const id = randomBytes(16).toString('base64url');
    if (!id.startsWith('-')) return id;
  }
}

function isFormatted(paths: BrokerPaths): boolean {
  return existsSync(join(paths.logDirs, 'meta.properties'));
}

async function formatStorage(java: JavaRuntime, jars: KafkaJars, paths: BrokerPaths, logger: Logger): Promise<void> {
  const clusterId = newClusterId();
  logger.info({ logDirs: paths.logDirs, clusterId }, 'formatting Kafka storage');
  const res = await run(java.path, [
    '-Xmx256m',
    `-Dlog4j2.configurationFile=${paths.log4jConfig}`,
    '-cp',
    jars.classpath,
    'kafka.tools.StorageTool',
    'format',
    '--cluster-id',
    clusterId,
    '--config',
    paths.serverProperties,
    '--ignore-formatted',
  ]);
  if (res.code !== 0) {
    const tail = (res.stdout + res.stderr).trim().split('\n').slice(-10).join('\n');
    throw new Error(`formatting Kafka storage failed (exit ${res.code}):\n${tail}`);
  }
}

// ---------------------------------------------------------------------------------------------
// Start, stop, status

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

interface BrokerState {
  pid: number;
  host: string;
  port: number;
  controllerPort: number;
  version: string;
  startedAt: string;
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
      (opts.logger ?? silentLogger).warn({ attempt }, 'the free port picked for the Kafka broker was taken before it bound; trying other ports');
    }
  }
}

async function startBrokerOnce(opts: StartBrokerOptions): Promise<BrokerHandle> {
  const logger = (opts.logger ?? silentLogger).child({ component: 'kafka-broker' });
  const paths = brokerPaths(opts.dataDir);
  const existing = readState(paths);
  if (existing && isOurBroker(existing.pid, paths)) {
    throw new UsageError(
      `a Kafka broker is already running from ${paths.dir} (pid ${existing.pid}, ${existing.host}:${existing.port}); use it, or stop it with: veronikai stack down --data-dir ${dirname(paths.dir)}`,
    );
  }

  const java = findJava();
  const jars = await ensureKafkaJars({ cacheDir: opts.cacheDir, logger });
  opts.signal?.throwIfAborted();
  const port = opts.port === 0 ? await freePort() : (opts.port ?? DEFAULT_BROKER_PORT);
  const controllerPort = opts.controllerPort === 0 || (opts.port === 0 && opts.controllerPort === undefined) ? await freePort([port]) : (opts.controllerPort ?? port + 1);
  if (port === controllerPort) throw new UsageError('the broker port and the controller port must differ');
  for (const p of [port, controllerPort]) {
    if (await canConnect(HOST, p, 500)) throw new UsageError(`port ${p} on ${HOST} is already in use (another Kafka?); choose another with --port`);
  }

  mkdirSync(paths.logDirs, { recursive: true });
  writeFileSync(paths.serverProperties, serverProperties(paths, port, controllerPort));
  writeFileSync(paths.log4jConfig, log4jXml(paths.serverLog));
  if (!isFormatted(paths)) await formatStorage(java, jars, paths, logger);

  const args = [
    '-Xms128m',
    `-Xmx${opts.heap ?? '512m'}`,
    '-XX:+UseG1GC',
    '-XX:MaxGCPauseMillis=20',
    '-XX:InitiatingHeapOccupancyPercent=35',
    '-XX:+ExplicitGCInvokesConcurrent',
    '-Djava.awt.headless=true',
    // Kafka's own shutdown hook logs until the end; log4j's would close the log file first.
    '-Dlog4j2.shutdownHookEnabled=false',
    `-Dlog4j2.configurationFile=${paths.log4jConfig}`,
    `-Dkafka.logs.dir=${paths.dir}`,
    '-cp',
    jars.classpath,
    'kafka.Kafka',
    paths.serverProperties,
  ];
  const out = openSync(paths.stdoutLog, 'a');
  const started = Date.now();
  let child: ChildProcess;
  try {
    // Its own process group (detached) in every mode: a Ctrl-C or a signal to our group must
    // not kill the broker under us while we shut down in order; we stop it ourselves, and a
    // broker that is not `stack up`'s is SIGKILLed if this process exits first.
    child = spawn(java.path, args, { cwd: paths.dir, detached: true, stdio: ['ignore', out, out] });
  } finally {
    closeSync(out);
  }
  const pid = child.pid;
  if (pid === undefined) throw new Error(`could not start ${java.path}`);
  let exited: { code: number | null; signal: NodeJS.Signals | null } | null = null;
  const exitedPromise = new Promise<void>((res) =>
    child.once('exit', (code, signal) => {
      exited = { code, signal };
      res();
    }),
  );
  writeFileSync(paths.pidFile, `${pid}\n`);
  const state: BrokerState = { pid, host: HOST, port, controllerPort, version: jars.version, startedAt: new Date().toISOString() };
  writeFileSync(paths.stateFile, JSON.stringify(state, null, 2) + '\n');

  const killOnExit = (): void => {
    try {
      child.kill('SIGKILL');
    } catch {
      /* already gone */
    }
  };
  if (!opts.detached) process.once('exit', killOnExit);

  const brokers = `${HOST}:${port}`;
  try {
    await waitReady(brokers, opts.readyTimeoutMs ?? 90_000, () => {
      if (opts.signal?.aborted) throw new Error('start aborted');
      return exited;
    });
  } catch (err) {
    killOnExit();
    await Promise.race([exitedPromise, sleep(5000)]);
    process.removeListener('exit', killOnExit);
    cleanupState(paths, pid);
    const why = exited ? `the broker exited (${exitedDescription(exited)})` : (err as Error).message;
    throw new Error(`Kafka ${jars.version} did not start: ${why}\n${tailOf(paths.serverLog, 15)}\n(see ${paths.serverLog} and ${paths.stdoutLog})`);
  }
  logger.info({ brokers, pid, version: jars.version, ms: Date.now() - started }, 'Kafka broker ready');
  if (opts.detached) child.unref();

  return {
    brokers,
    pid,
    port,
    controllerPort,
    version: jars.version,
    paths,
    stop: async (timeoutMs = 30_000) => {
      if (!exited) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => {
          logger.warn({ pid }, 'broker did not stop in time; killing it');
          child.kill('SIGKILL');
        }, timeoutMs);
        await exitedPromise;
        clearTimeout(timer);
      }
      process.removeListener('exit', killOnExit);
      cleanupState(paths, pid);
      logger.info({ pid }, 'Kafka broker stopped');
    },
  };
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
  process.kill(pid, 'SIGTERM');
  if (!(await exitsWithin(pid, opts.timeoutMs ?? 30_000, 100)) && isAlive(pid)) {
    logger.warn({ pid }, 'broker did not stop in time; killing it');
    process.kill(pid, 'SIGKILL');
    // SIGKILL cannot be refused: wait as long as the kernel takes to end it.
    await exitsWithin(pid, Number.POSITIVE_INFINITY, 50);
  }
  cleanupState(paths, pid);
  return pid;
}

/** Whether the process is gone within `timeoutMs`. */
async function exitsWithin(pid: number, timeoutMs: number, intervalMs: number): Promise<boolean> {
  try {
    return await pollUntil(`pid ${pid}`, async () => (isAlive(pid) ? { done: false, why: 'still running' } : { done: true, value: true }), { timeoutMs, intervalMs });
  } catch (err) {
    if (err instanceof PollTimeoutError) return false;
    throw err;
  }
}

// ---------------------------------------------------------------------------------------------
// helpers

async function waitReady(brokers: string, timeoutMs: number, exited: () => unknown): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const [host, portText] = brokers.split(':') as [string, string];
  // Both steps share the one deadline; each says on timeout which step it was waiting for.
  const step = async (look: () => Promise<boolean>, intervalMs: number, timeoutMessage: string): Promise<void> => {
    try {
      await pollUntil(brokers, async () => ((await look()) ? { done: true, value: undefined } : { done: false, why: 'not yet' }), { timeoutMs: deadline - Date.now(), intervalMs });
    } catch (err) {
      if (err instanceof PollTimeoutError) throw new Error(timeoutMessage);
      throw err;
    }
  };
  await step(
    async () => {
      if (await canConnect(host, Number(portText), 500)) return true;
      if (exited()) throw new Error('exited');
      return false;
    },
    100,
    `no answer on ${brokers} after ${timeoutMs} ms`,
  );
  const kafka = createKafka({ brokers, clientId: 'veronikai-stack', logger: silentLogger, retry: { retries: 0 } });
  await step(
    async () => {
      if (exited()) throw new Error('exited');
      const admin = kafka.admin();
      try {
        await admin.connect();
        const cluster = await admin.describeCluster();
        return cluster.brokers.length > 0 && cluster.controller !== null && cluster.controller >= 0;
      } catch {
        return false; // not yet
      } finally {
        await admin.disconnect().catch(() => undefined);
      }
    },
    200,
    `${brokers} accepts connections but does not answer Kafka requests after ${timeoutMs} ms`,
  );
}

function readState(paths: BrokerPaths): BrokerState | null {
  try {
    const s = JSON.parse(readFileSync(paths.stateFile, 'utf8')) as BrokerState;
    if (typeof s.pid === 'number' && typeof s.port === 'number') return s;
  } catch {
    /* none */
  }
  try {
    const pid = Number(readFileSync(paths.pidFile, 'utf8').trim());
    if (Number.isInteger(pid) && pid > 0) return { pid, host: HOST, port: NaN, controllerPort: NaN, version: '?', startedAt: '?' };
  } catch {
    /* none */
  }
  return null;
}

function cleanupState(paths: BrokerPaths, pid: number): void {
  try {
    if (Number(readFileSync(paths.pidFile, 'utf8').trim()) !== pid) return; // someone else's now
  } catch {
    /* no pid file */
  }
  rmSync(paths.pidFile, { force: true });
  rmSync(paths.stateFile, { force: true });
}

/** Alive and not a zombie (a reaped-late child, or an orphan under a PID 1 that does not reap). */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state !== 'Z' && state !== 'X';
  } catch {
    return true; // no /proc: trust kill(0)
  }
}

/** The pid is alive and is a Kafka broker running this data dir's server.properties (pids get reused). */
function isOurBroker(pid: number, paths: BrokerPaths): boolean {
  if (!isAlive(pid)) return false;
  try {
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    return cmdline.includes('kafka.Kafka') && cmdline.includes(paths.serverProperties);
  } catch {
    return true; // no /proc: trust the pid file
  }
}

export function canConnect(host: string, port: number, timeoutMs: number): Promise<boolean> {
  return new Promise((res) => {
    const socket = netConnect({ host, port });
    const done = (ok: boolean): void => {
      socket.destroy();
      res(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/** A TCP port that was free a moment ago on 127.0.0.1. */
export async function freePort(avoid: readonly number[] = []): Promise<number> {
  for (;;) {
    const port = await new Promise<number>((res, rej) => {
      const srv = createServer();
      srv.unref();
      srv.once('error', rej);
      srv.listen(0, HOST, () => {
        const addr = srv.address();
        const p = typeof addr === 'object' && addr ? addr.port : 0;
        srv.close(() => res(p));
      });
    });
    if (!avoid.includes(port)) return port;
  }
}

function findExecutable(name: string, env: NodeJS.ProcessEnv = process.env): string | null {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, name);
    if (isExecutable(candidate)) return candidate;
  }
  return null;
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, fsConstants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

function run(cmd: string, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((res, rej) => {
    const p = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    p.stdout.setEncoding('utf8').on('data', (d: string) => (stdout = (stdout + d).slice(-20_000)));
    p.stderr.setEncoding('utf8').on('data', (d: string) => (stderr = (stderr + d).slice(-20_000)));
    p.once('error', rej);
    p.once('close', (code) => res({ code, stdout, stderr }));
  });
}

function tailOf(file: string, lines: number): string {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}

function exitedDescription(e: { code: number | null; signal: NodeJS.Signals | null }): string {
  return e.signal ? `signal ${e.signal}` : `exit code ${e.code}`;
}
