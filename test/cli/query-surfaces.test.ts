import { ClickHouseLogLevel, createClient, type ClickHouseClient } from '@clickhouse/client';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, spawnCli, type SpawnedCli } from '../helpers/cli.js';

// The analysts' query surfaces tried as an attacker would, through the real commands: the public
// ClickHouse interface of `api --clickhouse-port` (with its password) and the owner's `sql`. The
// statement is judged by the engine's own parser, so no spelling (Unicode whitespace the engine
// skips, comments, case, quoting) reaches a file, and the public schema serves what the API shows.

const URL_LINE = /^ClickHouse HTTP interface \(read-only\) on (http:\/\/\S+)$/m;
const PASSWORD = 'query-surfaces-test-password';

describe('query surfaces cannot be talked out of read-only', () => {
  let dir: string;
  let secret: string;
  let api: SpawnedCli | null = null;
  let client: ClickHouseClient;
  let url: string;
  const sql = (...args: string[]) => runCli(['sql', ...args, '--data-dir', dir]);
  const rows = async (query: string) => await (await client.query({ query, format: 'JSONEachRow' })).json<Record<string, unknown>>();

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'veronikai-query-surfaces-'));
    secret = join(dir, 'keys-signing.pem');
    writeFileSync(secret, 'THE-SIGNING-KEY\n', { mode: 0o600 });
    expect(await runCli(['migrate', '--data-dir', dir])).toMatchObject({ code: 0 });
    const agent = (k: string, optOut: string) =>
      `('id-${k}', 'https://${k}.example/mcp', 'mcp', '${k}', '', '', '', ['mcp-registry'], map(), now64(3), now64(3), now64(3), 1, NULL, 0, '${optOut}', '${optOut ? 'private reason of the owner' : ''}', 1)`;
    expect(await sql(`INSERT INTO agents VALUES ${agent('shown', '')}, ${agent('hidden', 'hidden')}`, '--write')).toMatchObject({
      code: 0,
    });
    expect(
      await sql(
        "INSERT INTO webhook_deliveries (subscription_id, delivery_id, error) VALUES ('s', 'd', 'connect ECONNREFUSED receiver.internal')",
        '--write',
      ),
    ).toMatchObject({ code: 0 });
    expect(
      await sql(
        "INSERT INTO corrections (dispute_id, agent_key, reason, outcome) VALUES ('d1', 'https://shown.example/mcp', 'the dispute reason', 'answered')",
        '--write',
      ),
    ).toMatchObject({ code: 0 });
    api = spawnCli(['api', '--data-dir', dir, '--port', '0', '--clickhouse-port', '0'], { VERONIKAI_CLICKHOUSE_HTTP_PASSWORD: PASSWORD });
    await api.waitForStdout(URL_LINE, 60_000);
    url = URL_LINE.exec(api.stdout)![1]!;
    client = createClient({ url, username: 'default', password: PASSWORD, log: { level: ClickHouseLogLevel.OFF } });
  }, 120_000);

  afterAll(async () => {
    await client?.close();
    if (api && api.child.exitCode === null) {
      api.child.kill('SIGKILL');
      await api.exited;
    }
    rmSync(dir, { recursive: true, force: true });
  });

  it('reads no file through the interface, whatever the whitespace between file and its call', async () => {
    for (const gap of ['', '\u200b', '\u2060', '\u00a0', '\ufeff', '\u3000', ' /* */ ']) {
      const attempt = client.query({ query: `SELECT file${gap}('${secret}') AS f`, format: 'JSONEachRow' }).then((r) => r.text());
      const err = await attempt.then(
        (text) => new Error(`ran: ${text}`),
        (e: Error) => e,
      );
      expect(err.message).not.toContain('THE-SIGNING-KEY');
      expect(err).toMatchObject({ code: expect.stringMatching(/^(164|62|47|46)$/) });
    }
  });

  it('writes and appends no file through the interface or sql', async () => {
    const target = join(dir, 'written.txt');
    for (const gap of [' ', '\u2060', '\u200b', '\u2028']) {
      await expect(client.query({ query: `SELECT 1 INTO${gap}OUTFILE '${target}' APPEND`, format: 'JSONEachRow' })).rejects.toBeDefined();
      const owner = await sql(`SELECT 1 INTO${gap}OUTFILE '${target}' APPEND`);
      expect(owner.code).toBe(1);
    }
    expect(existsSync(target)).toBe(false);
  });

  it("reads no file through the owner's sql either", async () => {
    const out = await sql(`SELECT file\u200b('${secret}') AS f`);
    expect(out.code).toBe(1);
    expect(out.stdout + out.stderr).not.toContain('THE-SIGNING-KEY');
    expect(out.stderr).toMatch(/refused.*file\(\)/);
  });

  it('serves the public schema: no hidden agent, no opt-out reason, no operator table, no other session', async () => {
    expect(await rows('SELECT name FROM agents ORDER BY name')).toEqual([{ name: 'shown' }]);
    expect(await rows("SELECT count() AS n FROM agents WHERE agent_key = 'https://hidden.example/mcp'")).toEqual([{ n: '0' }]);
    expect(await rows('SELECT dispute_id FROM corrections')).toEqual([{ dispute_id: 'd1' }]);
    for (const query of [
      "SELECT opt_out_reason FROM default.agents WHERE opt_out = 'hidden'",
      'SELECT error FROM default.webhook_deliveries',
      'SELECT reason FROM default.corrections',
      'SELECT reason FROM corrections',
      'SELECT query FROM system.processes',
      'SELECT count() FROM webhook_deliveries',
    ]) {
      await expect(client.query({ query, format: 'JSONEachRow' }), query).rejects.toMatchObject({
        code: expect.stringMatching(/^(164|60|47|16)$/),
      });
    }
    // The catalogue a BI tool reads lists the public views only.
    const tables = (await rows("SELECT name FROM system.tables WHERE database = 'veronikai_public' ORDER BY name")).map((r) => r.name);
    expect(tables).toContain('agents');
    expect(tables).not.toContain('webhook_deliveries');
    expect(await rows("SELECT count() AS n FROM system.tables WHERE name = 'webhook_deliveries'")).toEqual([{ n: '0' }]);
    // The owner keeps the whole schema.
    const owner = await sql("SELECT opt_out_reason FROM agents FINAL WHERE opt_out = 'hidden'");
    expect(JSON.parse(owner.stdout)).toEqual([{ opt_out_reason: 'private reason of the owner' }]);
  });

  it('stops a large result in the engine before it is built', async () => {
    // The serving process's peak resident memory (Linux), before and after.
    const peak = () => Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${api!.child.pid}/status`, 'utf8'))![1]) * 1024;
    const before = peak();
    // A one-piece JSON answer of 300 million rows (about 10 GB): the engine stops it at the public
    // session's result limits instead of building it, and says so.
    const res = await fetch(
      `${url}/?query=${encodeURIComponent('SELECT repeat(toString(number), 4) AS s FROM numbers(300000000) FORMAT JSON')}`,
      {
        headers: { authorization: `Basic ${Buffer.from(`default:${PASSWORD}`).toString('base64')}` },
      },
    );
    const body = Buffer.from(await res.arrayBuffer());
    expect(body.length).toBeLessThan(400 * 1024 * 1024);
    expect(body.subarray(-4096).toString('utf8')).toMatch(/Limit for result exceeded|Code: 396/);
    // Before the engine enforced them, a 571 MB answer grew the process by 2.3–2.9 GB; this one would be 10 GB.
    expect(peak() - before).toBeLessThan(1.5 * 1024 ** 3);
    // Still serving.
    expect(await rows('SELECT 1 AS one')).toEqual([{ one: 1 }]);
  }, 120_000);
});
