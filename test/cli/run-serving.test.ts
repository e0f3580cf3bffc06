/**
 * The real `veronikai run` serving its data directory to readers (issue 13's "Must show"):
 * `veronikai sql` answers while `run` holds the embedded warehouse, with the output it gives
 * once `run` is stopped; and `--clickhouse-port 0` serves the read-only ClickHouse interface at
 * the URL `run` prints, which `@clickhouse/client` reads and where a write is refused.
 *
 * `run` reads one source, a fixture MCP Registry on loopback that lists nothing, so its daily run
 * probes nothing. It starts its own local broker in its data directory (no --brokers): the command
 * has no topic prefix, and on the shared test broker its consumer groups would share partitions
 * with any other test that runs a command at the same time.
 */
import { ClickHouseLogLevel, createClient } from '@clickhouse/client';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { instancePath, readInstanceFile } from '../../src/runtime/instance.js';
import { runCli, spawnCli, type SpawnedCli } from '../helpers/cli.js';
import { startFixtureRegistry, type FixtureRegistry } from '../helpers/fixture-mcp-registry.js';

const URL_LINE = /^ClickHouse HTTP interface \(read-only\) on (http:\/\/\S+)$/m;
const LOGIN_LINE = /^ClickHouse HTTP interface login: user default, password in (\S+)$/m;
const QUERY = 'SELECT sha256, url, bytes FROM documents FINAL ORDER BY sha256';

describe('veronikai run serves its data directory', () => {
  let dir: string;
  let registry: FixtureRegistry;
  let run: SpawnedCli | null = null;
  const sql = (...args: string[]) => runCli(['sql', ...args, '--data-dir', dir]);

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'veronikai-run-serving-'));
    registry = await startFixtureRegistry([]);
    expect(await runCli(['migrate', '--data-dir', dir])).toMatchObject({ code: 0 });
    // Rows of a table the daily run leaves alone (documents are written only by probes), so the
    // answer while `run` serves can be compared with the one after it stopped.
    const values = ['a', 'b', 'c']
      .map(
        (k, i) =>
          `('${k.repeat(64)}', '{"name":"${k}"}', 1, 12, 'https://${k}.example/.well-known/agent-card.json', '2026-01-0${i + 1} 00:00:00.000')`,
      )
      .join(', ');
    expect(
      await sql(`INSERT INTO documents (sha256, text, valid_utf8, bytes, url, observed_at) VALUES ${values}`, '--write'),
    ).toMatchObject({ code: 0, stderr: '' });
  }, 60_000);

  afterAll(async () => {
    if (run && run.child.exitCode === null) {
      run.child.kill('SIGKILL');
      await run.exited;
    }
    await registry?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers sql and the ClickHouse interface while running, and sql the same once stopped', async () => {
    run = spawnCli(
      [
        'run',
        '--data-dir',
        dir,
        '--port',
        '0',
        '--clickhouse-port',
        '0',
        '--source',
        'mcp-registry',
        '--source-url',
        `mcp-registry=${registry.url}`,
      ],
      // Its own broker, whatever the environment names.
      { VERONIKAI_KAFKA_BROKERS: '' },
    );
    await run.waitForStdout(URL_LINE, 120_000);
    const url = URL_LINE.exec(run.stdout)![1]!;
    // The password is generated into the data directory and named, never printed.
    await run.waitForStdout(LOGIN_LINE);
    const passwordFile = LOGIN_LINE.exec(run.stdout)![1]!;
    expect(passwordFile).toBe(join(dir, 'clickhouse-http-password'));
    const password = readFileSync(passwordFile, 'utf8').trim();
    expect(run.stdout).not.toContain(password);
    const instance = readInstanceFile(dir);
    expect(instance).toMatchObject({ pid: run.child.pid });
    // The owner's reads go to the private endpoint (no public limits), not to the public interface.
    expect(url).not.toBe(`http://127.0.0.1:${instance!.clickhouse.port}`);

    // Without the instance, opening the directory would fail on chdb's lock.
    const served = await sql(QUERY);
    expect(served).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(served.stdout)).toEqual(
      ['a', 'b', 'c'].map((k) => ({ sha256: k.repeat(64), url: `https://${k}.example/.well-known/agent-card.json`, bytes: 12 })),
    );
    const write = await sql('DROP TABLE documents');
    expect(write.code).toBe(1);
    expect(write.stderr).toMatch(/refused/);

    // The public interface at the printed URL, read by the official client as Grafana or DBeaver would.
    const client = createClient({ url, database: 'veronikai', password, log: { level: ClickHouseLogLevel.OFF } });
    const anonymous = createClient({ url, database: 'veronikai', log: { level: ClickHouseLogLevel.OFF } });
    try {
      await expect(anonymous.query({ query: 'SELECT 1', format: 'JSONEachRow' })).rejects.toMatchObject({
        code: '516',
        type: 'AUTHENTICATION_FAILED',
      });
      // It serves the public schema: the judged documents are the owner's only (they could name a hidden agent).
      const rows = await (
        await client.query({
          query: 'SELECT name FROM system.tables WHERE name = {t:String}',
          query_params: { t: 'agents' },
          format: 'JSONEachRow',
        })
      ).json<{ name: string }>();
      expect(rows).toEqual([{ name: 'agents' }]);
      await expect(client.query({ query: 'SELECT url FROM documents FINAL', format: 'JSONEachRow' })).rejects.toMatchObject({ code: '60' });
      await expect(
        client.insert({
          table: 'documents',
          values: [
            {
              sha256: 'd'.repeat(64),
              text: '{}',
              valid_utf8: 1,
              bytes: 2,
              url: 'https://d.example/',
              observed_at: '2026-01-04 00:00:00.000',
            },
          ],
          format: 'JSONEachRow',
        }),
      ).rejects.toMatchObject({
        code: '164',
        type: 'READONLY',
      });
    } finally {
      await client.close();
      await anonymous.close();
    }

    // Stopped the way an operator stops it: a clean exit, the instance file gone.
    await run.waitForStdout(/census of latest states/, 120_000);
    run.child.kill('SIGTERM');
    const exited = await run.exited;
    expect(exited.code, `stdout: ${exited.stdout}\nstderr: ${exited.stderr}`).toBe(0);
    expect(exited.stdout).toMatch(/received SIGTERM, shutting down/);
    expect(existsSync(instancePath(dir))).toBe(false);
    // The refused INSERT wrote nothing, and sql on the free directory answers exactly as it did through `run`.
    const after = await sql(QUERY);
    expect(after).toMatchObject({ code: 0, stdout: served.stdout });
  }, 300_000);

  it('stopped while its broker starts: closes in order once it is up, exit 0, no broker left running', async () => {
    const fresh = mkdtempSync(join(tmpdir(), 'veronikai-run-early-stop-'));
    const early = spawnCli([
      'run',
      '--data-dir',
      fresh,
      '--port',
      '0',
      '--source',
      'mcp-registry',
      '--source-url',
      `mcp-registry=${registry.url}`,
    ]);
    try {
      // The API listens before the local broker starts: stop it right there.
      await early.waitForStdout(/VeronikAI API listening on/, 60_000);
      early.child.kill('SIGTERM');
      const exited = await early.exited;
      expect(exited.code, `stdout: ${exited.stdout}\nstderr: ${exited.stderr}`).toBe(0);
      expect(exited.stdout).toMatch(/received SIGTERM, shutting down/);
      // The broker it started was stopped with it (its pid file goes when it has exited).
      expect(existsSync(join(fresh, 'kafka', 'broker.pid'))).toBe(false);
    } finally {
      if (early.child.exitCode === null) early.child.kill('SIGKILL');
      rmSync(fresh, { recursive: true, force: true });
    }
  }, 180_000);
});
