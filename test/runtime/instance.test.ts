import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { findInstance, instancePath, readInstanceFile, removeInstanceFile, writeInstanceFile, type InstanceInfo } from '../../src/runtime/instance.js';

// The running-instance file: written 0600, read back, removed only by its own process, and a
// file whose process is gone (or does not answer) read as stale.

const info = (pid: number, port: number): InstanceInfo => ({ v: 1, pid, startedAt: new Date().toISOString(), apiUrl: null, clickhouse: { host: '127.0.0.1', port, token: 't' } });

/** The pid of a process that has exited. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await new Promise((resolve) => child.on('exit', resolve));
  return child.pid!;
}

describe('instance file', () => {
  let dir: string;
  let server: Server | null = null;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'veronikai-instance-'));
  });
  afterEach(async () => {
    if (server) await new Promise((r) => server!.close(r));
    server = null;
    rmSync(dir, { recursive: true, force: true });
  });

  it('is written atomically, owner-only, and removed only by the process it names', () => {
    writeInstanceFile(dir, info(process.pid, 1234));
    expect(statSync(instancePath(dir)).mode & 0o777).toBe(0o600);
    expect(readInstanceFile(dir)).toMatchObject({ pid: process.pid, clickhouse: { port: 1234 } });
    removeInstanceFile(dir, process.pid + 1);
    expect(existsSync(instancePath(dir))).toBe(true);
    removeInstanceFile(dir);
    expect(existsSync(instancePath(dir))).toBe(false);
  });

  it('reads no instance from a missing or foreign file', async () => {
    expect(await findInstance(dir)).toEqual({ state: 'none' });
    writeFileSync(instancePath(dir), 'not json');
    expect(await findInstance(dir)).toEqual({ state: 'none' });
  });

  it('calls a file whose process is gone stale and removes it', async () => {
    writeInstanceFile(dir, info(await deadPid(), 1));
    const found = await findInstance(dir);
    expect(found).toMatchObject({ state: 'stale', reason: expect.stringMatching(/is gone/) });
    expect(existsSync(instancePath(dir))).toBe(false);
  });

  it('calls a live process that does not answer stale but keeps its file', async () => {
    writeInstanceFile(dir, info(process.pid, 1));
    expect(await findInstance(dir)).toMatchObject({ state: 'stale', reason: expect.stringMatching(/does not answer/) });
    expect(existsSync(instancePath(dir))).toBe(true);
  });

  it('finds a running instance that answers /ping', async () => {
    server = createServer((_, res) => res.end('Ok.\n'));
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    const port = (server.address() as { port: number }).port;
    writeInstanceFile(dir, info(process.pid, port));
    expect(await findInstance(dir)).toMatchObject({ state: 'running', info: { pid: process.pid, clickhouse: { port } } });
  });

  it('takes --clickhouse-port for the embedded warehouse only, on 127.0.0.1 unless told otherwise', () => {
    expect(loadConfig({}, {}).clickhouseInterface).toEqual({ host: '127.0.0.1', port: null });
    expect(loadConfig({ clickhousePort: '8123' }, {}).clickhouseInterface).toEqual({ host: '127.0.0.1', port: 8123 });
    expect(() => loadConfig({ clickhousePort: '8123', warehouse: 'http://127.0.0.1:8123' }, {})).toThrow(/already has its own HTTP interface/);
    expect(() => loadConfig({}, { VERONIKAI_CLICKHOUSE_PORT: 'x' })).toThrow(/port/);
  });
});
