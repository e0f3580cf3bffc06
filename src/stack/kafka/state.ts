/** broker.pid and broker.json: which process runs a data dir's broker, and on which ports. */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { BrokerPaths } from './config.js';
import { HOST } from './ports.js';

export interface BrokerState {
  pid: number;
  host: string;
  port: number;
  controllerPort: number;
  version: string;
  startedAt: string;
  /** The process a broker belongs to (absent: detached, `stack up`'s): it must not outlive it. */
  owner?: number;
  /** The node's id in its cluster (absent: the single node, 1). */
  nodeId?: number;
}

export function writeState(paths: BrokerPaths, state: BrokerState): void {
  writeFileSync(paths.pidFile, `${state.pid}\n`);
  writeFileSync(paths.stateFile, JSON.stringify(state, null, 2) + '\n');
}

/** broker.json, else a bare broker.pid (ports unknown), else null. */
export function readState(paths: BrokerPaths): BrokerState | null {
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

/** Removes the files of the broker with this pid; those of a broker started since are left alone. */
export function cleanupState(paths: BrokerPaths, pid: number): void {
  try {
    if (Number(readFileSync(paths.pidFile, 'utf8').trim()) !== pid) return; // someone else's now
  } catch {
    /* no pid file */
  }
  rmSync(paths.pidFile, { force: true });
  rmSync(paths.stateFile, { force: true });
}
