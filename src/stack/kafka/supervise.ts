/** The broker's JVM process: starting it, knowing whether it still runs, and stopping it. */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import type { Logger } from '../../log.js';
import { pollUntil, PollTimeoutError } from '../../util/poll.js';
import type { BrokerPaths } from './config.js';
import type { KafkaJars } from './jars.js';
import type { JavaRuntime } from './java.js';

export interface BrokerExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface BrokerProcess {
  child: ChildProcess;
  pid: number;
  /** How the process ended; null while it runs. */
  exit(): BrokerExit | null;
  /** Resolves once the process has exited. */
  exited: Promise<void>;
  /** SIGKILL, if still there: a failed start, and the 'exit' hook of a broker that must not outlive this process. */
  kill: () => void;
}

export function jvmArgs(paths: BrokerPaths, jars: KafkaJars, heap = '512m'): string[] {
  return [
    '-Xms128m',
    `-Xmx${heap}`,
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
}

/** Spawns the JVM with its stdout and stderr appended to broker.out. */
export function launchBroker(java: JavaRuntime, args: string[], paths: BrokerPaths): BrokerProcess {
  const out = openSync(paths.stdoutLog, 'a');
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
  let exit: BrokerExit | null = null;
  const exited = new Promise<void>((res) =>
    child.once('exit', (code, signal) => {
      exit = { code, signal };
      res();
    }),
  );
  const kill = (): void => {
    try {
      child.kill('SIGKILL');
    } catch {
      /* already gone */
    }
  };
  return { child, pid, exit: () => exit, exited, kill };
}

/** SIGTERM, then SIGKILL if it has not exited after timeoutMs; resolves once it has exited. */
export async function stopChild(proc: BrokerProcess, timeoutMs: number, logger: Logger): Promise<void> {
  if (proc.exit()) return;
  proc.child.kill('SIGTERM');
  const timer = setTimeout(() => {
    logger.warn({ pid: proc.pid }, 'broker did not stop in time; killing it');
    proc.child.kill('SIGKILL');
  }, timeoutMs);
  await proc.exited;
  clearTimeout(timer);
}

/** Like stopChild, for a broker that is not our child (`stack up`'s, found by its pid file). */
export async function stopPid(pid: number, timeoutMs: number, logger: Logger): Promise<void> {
  process.kill(pid, 'SIGTERM');
  if (!(await exitsWithin(pid, timeoutMs, 100)) && isAlive(pid)) {
    logger.warn({ pid }, 'broker did not stop in time; killing it');
    process.kill(pid, 'SIGKILL');
    // SIGKILL cannot be refused: wait as long as the kernel takes to end it.
    await exitsWithin(pid, Number.POSITIVE_INFINITY, 50);
  }
}

/** Whether the process is gone within `timeoutMs`. */
async function exitsWithin(pid: number, timeoutMs: number, intervalMs: number): Promise<boolean> {
  try {
    return await pollUntil(`pid ${pid}`, async () => (isAlive(pid) ? { done: false, why: 'still running' } : { done: true, value: true }), {
      timeoutMs,
      intervalMs,
    });
  } catch (err) {
    if (err instanceof PollTimeoutError) return false;
    throw err;
  }
}

/** Alive and not a zombie (a reaped-late child, or an orphan under a PID 1 that does not reap). */
export function isAlive(pid: number): boolean {
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
export function isOurBroker(pid: number, paths: BrokerPaths): boolean {
  if (!isAlive(pid)) return false;
  try {
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    return cmdline.includes('kafka.Kafka') && cmdline.includes(paths.serverProperties);
  } catch {
    return true; // no /proc: trust the pid file
  }
}

export function exitedDescription(e: BrokerExit): string {
  return e.signal ? `signal ${e.signal}` : `exit code ${e.code}`;
}
