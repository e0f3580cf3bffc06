import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { CHALLENGE_PATH, challengeProof } from '../../src/api/clickhouse-http-admission.js';
import {
  findInstance,
  instancePath,
  processUid,
  readInstanceFile,
  removeInstanceFile,
  writeInstanceFile,
  type InstanceInfo,
} from '../../src/runtime/instance.js';

// The running-instance file: written 0600, read back, removed only by its own process, and a
// file whose process is gone, does not answer, or does not prove it holds the file's token read
// as stale, without the token ever leaving this process.

const TOKEN = 'the-instance-token';
const info = (pid: number, port: number): InstanceInfo => ({
  v: 1,
  pid,
  startedAt: new Date().toISOString(),
  apiUrl: null,
  clickhouse: { host: '127.0.0.1', port, token: TOKEN },
});

interface Received {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

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

  /** Serves `answer` on a free loopback port, recording every request; resolves with the port. */
  async function serve(
    answer: (req: IncomingMessage, res: ServerResponse, nonce: string) => void,
  ): Promise<{ port: number; received: Received[] }> {
    const received: Received[] = [];
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (d: Buffer) => (body += d.toString()));
      req.on('end', () => {
        received.push({ method: req.method!, url: req.url!, headers: req.headers, body });
        answer(req, res, new URL(req.url!, 'http://x').searchParams.get('nonce') ?? '');
      });
    });
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    return { port: (server.address() as { port: number }).port, received };
  }

  it('does not trust a live pid whose port answers like ClickHouse but cannot prove itself, and sends it nothing secret', async () => {
    // Something else on the port of a stale file whose pid was reused (here: this live process).
    const { port, received } = await serve((req, res) => {
      if (req.url === '/ping') res.end('Ok.\n');
      else res.end(`${'0'.repeat(64)}\n`);
    });
    writeInstanceFile(dir, info(process.pid, port));
    const found = await findInstance(dir);
    expect(found).toMatchObject({
      state: 'stale',
      removed: false,
      reason: expect.stringMatching(/does not prove it is process \d+ holding the instance file's token/),
    });
    // Kept: the pid lives, so the file may be its own.
    expect(existsSync(instancePath(dir))).toBe(true);
    // One challenge with a fresh nonce, and nothing else: no token, no credentials, no query.
    expect(received.map((r) => ({ method: r.method, path: r.url.replace(/nonce=[0-9a-f]{64}$/, 'nonce=…') }))).toEqual([
      { method: 'GET', path: `${CHALLENGE_PATH}?nonce=…` },
    ]);
    expect(JSON.stringify(received)).not.toContain(TOKEN);
    expect(received[0]!.headers).not.toHaveProperty('authorization');
    expect(received[0]!.headers).not.toHaveProperty('x-clickhouse-key');
  });

  it('takes no proof made with another token or for another pid, and no replayed one', async () => {
    const answers: Array<(nonce: string) => string> = [
      (nonce) => challengeProof('another-token', nonce, process.pid),
      (nonce) => challengeProof(TOKEN, nonce, process.pid + 1),
      () => challengeProof(TOKEN, 'ab'.repeat(32), process.pid),
    ];
    for (const proof of answers) {
      const { port } = await serve((_, res, nonce) => res.end(`${proof(nonce)}\n`));
      writeInstanceFile(dir, info(process.pid, port));
      expect(await findInstance(dir)).toMatchObject({ state: 'stale', reason: expect.stringMatching(/does not prove/) });
      await new Promise((r) => server!.close(r));
      server = null;
    }
  });

  it('finds a running instance that proves it holds the token and runs as the pid, with a fresh nonce each time', async () => {
    const { port, received } = await serve((_, res, nonce) => res.end(`${challengeProof(TOKEN, nonce, process.pid)}\n`));
    writeInstanceFile(dir, info(process.pid, port));
    expect(await findInstance(dir)).toMatchObject({ state: 'running', info: { pid: process.pid, clickhouse: { port } } });
    expect(await findInstance(dir)).toMatchObject({ state: 'running' });
    expect(new Set(received.map((r) => r.url)).size).toBe(2);
    expect(JSON.stringify(received)).not.toContain(TOKEN);
  });

  it.skipIf(!existsSync(`/proc/${process.pid}/status`))('reads the user a process runs as, to pass over a pid of another user', () => {
    expect(processUid(process.pid)).toBe(process.getuid!());
    expect(processUid(2 ** 22 + 1)).toBeNull();
  });

  it('takes --clickhouse-port for the embedded warehouse only, on 127.0.0.1 unless told otherwise', () => {
    expect(loadConfig({}, {}).clickhouseInterface).toMatchObject({ host: '127.0.0.1', port: null });
    expect(loadConfig({ clickhousePort: '8123' }, {}).clickhouseInterface).toMatchObject({ host: '127.0.0.1', port: 8123 });
    expect(() => loadConfig({ clickhousePort: '8123', warehouse: 'http://127.0.0.1:8123' }, {})).toThrow(
      /already has its own HTTP interface/,
    );
    expect(() => loadConfig({}, { VERONIKAI_CLICKHOUSE_PORT: 'x' })).toThrow(/port/);
  });
});
