import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findClickHouseServer, startClickHouseServer, type ClickHouseServer } from '../helpers/clickhouse-server.js';
import { runCli } from '../helpers/cli.js';

// `veronikai sql` on the embedded warehouse with no running instance: every verb its --help
// allows answers (SHOW, DESCRIBE, EXISTS and EXPLAIN are not streamed by the engine, so they run
// in one piece), and a read has a deadline (--sql-timeout) that stops a slow query.

type Row = Record<string, unknown>;

describe('veronikai sql: the reading verbs besides SELECT', () => {
  let dir: string;
  const sql = (...args: string[]) => runCli(['sql', ...args, '--data-dir', dir]);
  const rows = async (...args: string[]): Promise<Row[]> => {
    const r = await sql(...args);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    return JSON.parse(r.stdout) as Row[];
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'veronikai-cli-sql-describe-'));
    const migrated = await runCli(['migrate', '--data-dir', dir], {}, 180_000);
    expect(migrated.code, migrated.stderr).toBe(0);
  }, 200_000);

  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('DESCRIBE v_agents_current__v2 lists opt_out (and DESC the same columns)', async () => {
    const described = await rows('DESCRIBE v_agents_current__v2');
    const names = described.map((r) => r.name);
    expect(names).toContain('opt_out');
    expect(names).toContain('opt_out_reason');
    expect(await rows('desc v_agents_current__v2')).toEqual(described);
  });

  it('SHOW TABLES and EXISTS answer', async () => {
    const tables = (await rows('SHOW TABLES')).map((r) => r.name);
    expect(tables).toContain('listings');
    expect(tables).toContain('v_agents_current__v2');
    expect(await rows('EXISTS TABLE listings')).toEqual([{ result: 1 }]);
    expect(await rows('EXISTS TABLE no_such_table')).toEqual([{ result: 0 }]);
  });

  it('EXPLAIN answers with the plan', async () => {
    const plan = await rows('EXPLAIN SELECT count() FROM listings');
    expect(plan.length).toBeGreaterThan(0);
    expect(plan.map((r) => r.explain).join('\n')).toMatch(/ReadFrom/);
  });

  it('answers these verbs on a writing connection too, and in jsonl', async () => {
    const r = await sql('DESCRIBE v_agents_current__v2', '--write', '--format', 'jsonl');
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(
      r.stdout
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as Row).name),
    ).toContain('opt_out');
  });

  it('holds the one-piece verbs to --max-rows as well', async () => {
    const r = await sql('DESCRIBE v_agents_current__v2', '--max-rows', '2');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toHaveLength(2);
    expect(r.stderr).toMatch(/output stopped after 2 rows/);
  });
});

/**
 * A read that takes far longer than a second: a sum over 10^12 numbers (from system.numbers, as
 * an old server refuses table functions such as numbers() under readonly=1).
 */
const SLOW_QUERY = 'SELECT sum(n) AS s FROM (SELECT number AS n FROM system.numbers LIMIT 1000000000000)';

describe('veronikai sql: the deadline', () => {
  let dir: string;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'veronikai-cli-sql-deadline-'));
  });

  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('says in --help that a read has a deadline, 5m by default', async () => {
    const r = await runCli(['sql', '--help']);
    expect(r.stdout).toMatch(/--sql-timeout <duration>[\s\S]*default 5m/);
  });

  it('stops a slow read at --sql-timeout with a clear error', async () => {
    const started = Date.now();
    const r = await runCli(['sql', SLOW_QUERY, '--data-dir', dir, '--sql-timeout', '1s'], {}, 60_000);
    const took = Date.now() - started;
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^veronikai sql: timeout \(code 159\): .*--sql-timeout 1s/m);
    // Stopped by the deadline, not by the test's own 60 s kill.
    expect(took).toBeLessThan(30_000);
  });

  it('takes the deadline from VERONIKAI_SQL_TIMEOUT and refuses a malformed one', async () => {
    const r = await runCli(['sql', SLOW_QUERY, '--data-dir', dir], { VERONIKAI_SQL_TIMEOUT: '1s' }, 60_000);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/timeout \(code 159\)/);
    const bad = await runCli(['sql', 'SELECT 1', '--data-dir', dir, '--sql-timeout', '10']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--sql-timeout.*expects a duration/);
  });

  it('lets a quick read finish under the deadline', async () => {
    const r = await runCli(['sql', 'SELECT toUInt32(1) AS a', '--data-dir', dir, '--sql-timeout', '1s']);
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(r.stdout)).toEqual([{ a: 1 }]);
  });
});

const binary = findClickHouseServer();

describe.skipIf(!binary)('veronikai sql: the deadline on a ClickHouse server', () => {
  let server: ClickHouseServer;

  beforeAll(async () => {
    server = await startClickHouseServer({ binary: binary ?? undefined });
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
  });

  it('stops a slow read at --sql-timeout on the server too', async () => {
    const started = Date.now();
    const r = await runCli(
      ['sql', SLOW_QUERY, '--warehouse', server.url, '--clickhouse-database', 'default', '--sql-timeout', '1s'],
      {},
      60_000,
    );
    expect(r.code).toBe(1);
    // The client's deadline and the server's max_execution_time are the same second: either may say it first.
    expect(r.stderr).toMatch(/^veronikai sql: timeout.*--sql-timeout 1s/m);
    expect(Date.now() - started).toBeLessThan(30_000);
  });
});
