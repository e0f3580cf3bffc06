import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { instancePath } from '../../src/runtime/instance.js';
import { runCli, spawnCli, type SpawnedCli } from '../helpers/cli.js';

// `veronikai sql` while `veronikai api` (the platform with the API, as `run` composes it) holds
// the same embedded data directory: the query goes to the running process and answers exactly
// as it does when `sql` opens the warehouse itself. run-serving.test.ts does it with `run` itself
// (and its --clickhouse-port interface).

describe('veronikai sql while an instance serves the data directory', () => {
  let dir: string;
  let api: SpawnedCli | null = null;
  const sql = (...args: string[]) => runCli(['sql', ...args, '--data-dir', dir]);
  const QUERY =
    "SELECT agent_key, sources, count() OVER () AS total, toDateTime64(first_seen, 3, 'UTC') AS first_seen FROM agents FINAL ORDER BY agent_key";

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'veronikai-sql-running-'));
    expect(await runCli(['migrate', '--data-dir', dir])).toMatchObject({ code: 0 });
    const values = ['a', 'b', 'c']
      .map(
        (k, i) =>
          `('id-${k}', 'https://${k}.example/mcp', 'mcp', '${k}', '', '', '', ['mcp-registry'], map(), '2026-01-0${i + 1} 00:00:00.000', now64(3), now64(3), 1, NULL, 0, '', '', 1)`,
      )
      .join(', ');
    expect(await sql(`INSERT INTO agents VALUES ${values}`, '--write')).toMatchObject({ code: 0, stderr: '' });
  }, 60_000);

  afterAll(async () => {
    if (api && api.child.exitCode === null) {
      api.child.kill('SIGKILL');
      await api.exited;
    }
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers through the running instance with the same output, limits and rules', async () => {
    const direct = await sql(QUERY);
    expect(direct).toMatchObject({ code: 0, stderr: '' });

    api = spawnCli(['api', '--data-dir', dir, '--port', '0']);
    await api.waitForStdout(/listening on/);
    expect(existsSync(instancePath(dir))).toBe(true);
    expect(JSON.parse(readFileSync(instancePath(dir), 'utf8'))).toMatchObject({ pid: api.child.pid });

    // Without the instance, opening the directory fails on chdb's lock; with it, sql answers.
    const served = await sql(QUERY);
    expect(served).toMatchObject({ code: 0, stderr: '' });
    expect(served.stdout).toBe(direct.stdout);
    expect(JSON.parse(served.stdout)).toHaveLength(3);

    const params = await sql('SELECT agent_key FROM agents FINAL WHERE name = {n:String}', '--param', 'n=b', '--format', 'jsonl');
    expect(params).toMatchObject({ code: 0, stdout: '{"agent_key":"https://b.example/mcp"}\n' });

    const lines = await sql('SELECT number FROM numbers(20000)', '--format', 'jsonl', '--max-rows', '15000');
    expect(lines.stdout).toBe(Array.from({ length: 15_000 }, (_, i) => `{"number":"${i}"}\n`).join(''));
    expect(lines.stderr).toBe('veronikai sql: output stopped after 15000 rows (--max-rows 15000); --max-rows 0 prints every row\n');

    // The instance's owner endpoint sets no deadline; --sql-timeout binds there too (sql goes away at it).
    const slow = await sql('SELECT sleep(3)', '--sql-timeout', '1s');
    expect(slow.code).toBe(1);
    expect(slow.stderr).toMatch(/deadline.*running instance.*--sql-timeout 1s/s);

    const write = await sql('DROP TABLE agents');
    expect(write.code).toBe(1);
    expect(write.stderr).toMatch(/refused/);
    const forced = await sql('DROP TABLE agents', '--write');
    expect(forced.code).toBe(1);
    expect(forced.stderr).toMatch(/running instance \(pid \d+\) holds/);

    api.child.kill('SIGTERM');
    expect((await api.exited).code).toBe(0);
    expect(existsSync(instancePath(dir))).toBe(false);
    const after = await sql(QUERY);
    expect(after.stdout).toBe(direct.stdout);
  }, 90_000);
});
