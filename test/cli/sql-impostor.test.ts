import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { instancePath, writeInstanceFile } from '../../src/runtime/instance.js';
import { runCli } from '../helpers/cli.js';

// `veronikai sql` and an instance file it must not trust: the file's pid lives (this test's own
// process) but what answers on its port is an impostor that speaks enough ClickHouse to look
// like the instance (`/ping` answers `Ok.`, any query gets rows). It receives neither the token
// nor the query, and `sql` prints the directory's own rows, saying why it did not use the file.

const TOKEN = 'instance-token-the-impostor-must-never-see';
const QUERY = 'SELECT agent_key FROM agents FINAL ORDER BY agent_key';

describe('veronikai sql with an instance file whose port an impostor holds', () => {
  let dir: string;
  let impostor: Server;
  const received: Array<{ method: string; url: string; headers: IncomingHttpHeaders; body: string }> = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'veronikai-sql-impostor-'));
    expect(await runCli(['migrate', '--data-dir', dir])).toMatchObject({ code: 0 });
    const rows = ['a', 'b']
      .map(
        (k, i) =>
          `SELECT 'id-${k}', 'https://${k}.example/mcp', 'mcp', '${k}', '', '', '', ['mcp-registry'], map(), '2026-01-0${i + 1} 00:00:00.000', now64(3), now64(3), 1, NULL, 0, '', '', 1`,
      )
      .join(' UNION ALL ');
    expect(await runCli(['sql', `INSERT INTO agents ${rows}`, '--write', '--data-dir', dir])).toMatchObject({ code: 0, stderr: '' });

    impostor = createServer((req, res) => {
      let body = '';
      req.on('data', (d: Buffer) => (body += d.toString()));
      req.on('end', () => {
        received.push({ method: req.method!, url: req.url!, headers: req.headers, body });
        if (req.url === '/ping') res.end('Ok.\n');
        else if (req.url!.startsWith('/veronikai/challenge')) res.end(`${'f'.repeat(64)}\n`);
        else res.writeHead(200, { 'Content-Type': 'application/x-ndjson' }).end('{"agent_key":"https://impostor.example/fake-row"}\n');
      });
    });
    await new Promise<void>((r) => impostor.listen(0, '127.0.0.1', r));
    const port = (impostor.address() as { port: number }).port;
    writeInstanceFile(dir, {
      v: 1,
      pid: process.pid,
      startedAt: new Date().toISOString(),
      apiUrl: null,
      clickhouse: { host: '127.0.0.1', port, token: TOKEN },
    });
  }, 60_000);

  afterAll(async () => {
    if (impostor) await new Promise((r) => impostor.close(r));
    rmSync(dir, { recursive: true, force: true });
  });

  it("sends the impostor no token and no query, and prints the directory's own rows", async () => {
    const out = await runCli(['sql', QUERY, '--format', 'jsonl', '--data-dir', dir]);
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).toBe('{"agent_key":"https://a.example/mcp"}\n{"agent_key":"https://b.example/mcp"}\n');
    expect(out.stdout).not.toContain('impostor');
    expect(out.stderr).toMatch(
      /^veronikai sql: not using .*instance\.json: what answers on port \d+ does not prove it is process \d+ holding the instance file's token; opening the warehouse here\n$/,
    );

    // All it got: a challenge with a random nonce. No token in any form, no query.
    const seen = JSON.stringify(received);
    expect(seen).not.toContain(TOKEN);
    expect(seen).not.toContain(Buffer.from(`default:${TOKEN}`).toString('base64'));
    expect(seen).not.toContain('agents');
    expect(
      received.every(
        (r) => r.method === 'GET' && r.body === '' && r.headers.authorization === undefined && r.headers['x-clickhouse-key'] === undefined,
      ),
    ).toBe(true);
    expect(received.map((r) => r.url.replace(/[0-9a-f]{64}/, '<nonce>'))).toEqual(['/veronikai/challenge?nonce=<nonce>']);
    // The file names a live pid: it is left alone (only a file whose process is gone is removed).
    expect(existsSync(instancePath(dir))).toBe(true);
  }, 60_000);
});
