import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, type Config } from '../../src/config.js';
import { silentLogger } from '../../src/log.js';
import { exportSnapshot, type ExportManifest } from '../../src/runtime/usecases/export.js';
import { CLICKHOUSE_PASSWORD_FILE } from '../../src/runtime/clickhouse-password.js';
import { readInstanceFile, startInstance } from '../../src/runtime/instance.js';
import { runSql } from '../../src/runtime/usecases/warehouse-tasks.js';
import type { EmbeddedWarehouse } from '../../src/warehouse/embedded.js';
import { AGENTS, openFilledWarehouse } from '../api/fixture.js';

// A snapshot read back by the engine: every file's rows equal the table's (hidden agents left
// out), the manifest's checksums are the files', and exporting again gives the same checksums,
// whether the export opens the warehouse itself or goes through the running instance.

const TABLES = ['agents', 'listings', 'listing_history', 'checks', 'verdicts', 'daily_rollups', 'agent_daily_history', 'documents'];
const HIDDEN = "agent_key NOT IN (SELECT agent_key FROM agents FINAL WHERE opt_out = 'hidden')";
const sha = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');

describe('export', () => {
  let wh: EmbeddedWarehouse;
  let closeWh: () => Promise<void>;
  let config: Config;
  let out: string;

  beforeAll(async () => {
    ({ wh, close: closeWh } = await openFilledWarehouse('export'));
    config = loadConfig({ dataDir: dirname(wh.path) }, {});
    out = mkdtempSync(join(tmpdir(), 'veronikai-export-'));
    const now = new Date();
    await wh.insert('documents', [
      {
        sha256: 'a'.repeat(64),
        text: '{"name":"Beta","url":"https://beta.agents-hub.dev"}',
        valid_utf8: 1,
        bytes: 51,
        url: `${AGENTS.beta.key}/.well-known/agent-card.json`,
        observed_at: now,
      },
      {
        sha256: 'b'.repeat(64),
        text: '{"name":"hidden"}',
        valid_utf8: 1,
        bytes: 17,
        url: 'https://hidden.owner-asked.dev/.well-known/agent-card.json',
        observed_at: now,
      },
    ]);
    await wh.insert(
      'listings',
      Object.values(AGENTS).map((a, i) => ({
        source: 'mcp-registry',
        item_id: `item-${i}`,
        agent_key: a.key,
        protocol: a.protocol,
        name: a.name,
        description: 'multi\nline, "quoted"',
        version_label: '1',
        endpoint_url: a.key,
        card_url: '',
        server_json: '',
        status: 'active',
        raw: '{}',
        tombstoned: 0,
        changed_at: now,
        first_seen: now,
        last_seen: now,
        last_event_id: `e${i}`,
        version: 1,
      })),
    );
  });

  afterAll(async () => {
    await closeWh?.();
    rmSync(out, { recursive: true, force: true });
  });

  async function expected(table: string): Promise<number> {
    const filter =
      table === 'agents' ? "WHERE opt_out != 'hidden'" : ['daily_rollups', 'documents'].includes(table) ? '' : `WHERE ${HIDDEN}`;
    const [row] = await wh.query<{ n: number }>(`SELECT toUInt32(count()) AS n FROM ${table} FINAL ${filter}`);
    return table === 'documents' ? row!.n - 1 : row!.n;
  }

  it("writes Parquet the engine reads back, with the tables' row counts and the files' checksums", async () => {
    const dir = join(out, 'p1');
    const m = await exportSnapshot(config, { out: dir, format: 'parquet' });
    expect(m.via).toBe('local');
    expect(m.files.map((f) => f.table)).toEqual(TABLES);
    expect(m.checkerVersion).toBeTruthy();
    const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as ExportManifest;
    expect(manifest.files).toEqual(m.files);
    for (const f of m.files) {
      const [back] = await wh.query<{ n: number }>(`SELECT toUInt32(count()) AS n FROM file('${join(dir, f.file)}', Parquet)`);
      expect({ table: f.table, rows: back!.n }).toEqual({ table: f.table, rows: f.rows });
      expect({ table: f.table, rows: f.rows }).toEqual({ table: f.table, rows: await expected(f.table) });
      expect(sha(join(dir, f.file))).toBe(f.sha256);
      expect(f.query).toMatch(/ORDER BY/);
    }
    expect(m.files.find((f) => f.table === 'agents')!.rows).toBeGreaterThan(0);
    const hidden = await wh.query(
      `SELECT agent_key FROM file('${join(dir, 'agents.parquet')}', Parquet) WHERE agent_key = '${AGENTS.hidden.key}'`,
    );
    expect(hidden).toEqual([]);
    expect(readFileSync(join(dir, 'SHA256SUMS'), 'utf8')).toBe(m.files.map((f) => `${f.sha256}  ${f.file}\n`).join(''));
  });

  it('gives the same checksums again, and through the running instance', async () => {
    const first = await exportSnapshot(config, { out: join(out, 'p2'), format: 'parquet' });
    const again = await exportSnapshot(config, { out: join(out, 'p3'), format: 'parquet' });
    expect(again.files.map((f) => f.sha256)).toEqual(first.files.map((f) => f.sha256));
    const instance = await startInstance(config, silentLogger, null);
    try {
      const served = await exportSnapshot(config, { out: join(out, 'p4'), format: 'parquet' });
      expect(served.via).toBe('instance');
      expect(served.files.map((f) => [f.sha256, f.rows])).toEqual(first.files.map((f) => [f.sha256, f.rows]));
    } finally {
      await instance!.close();
    }
  });

  it("exports and queries past the public interface's result cap through the running instance", async () => {
    // The public interface (--clickhouse-port) with a 1 KiB cap; the owner's reads go to the
    // private endpoint the instance file names, which has none.
    const cap = 1_024;
    const served = loadConfig({ dataDir: dirname(wh.path), clickhousePort: '0' }, {});
    const instance = await startInstance(served, silentLogger, null, { publicLimits: { maxResultBytes: cap } });
    try {
      const file = readInstanceFile(served.dataDir)!;
      expect(file.clickhouse.token).toBeTruthy();
      expect(instance!.clickhouseUrl).not.toBe(`http://127.0.0.1:${file.clickhouse.port}`);

      const m = await exportSnapshot(served, { out: join(out, 'past-cap'), format: 'parquet' });
      expect(m.via).toBe('instance');
      const large = m.files.filter((f) => f.bytes > cap);
      expect(large.length).toBeGreaterThan(0);
      for (const f of large) {
        const [back] = await wh.query<{ n: number }>(
          `SELECT toUInt32(count()) AS n FROM file('${join(out, 'past-cap', f.file)}', Parquet)`,
        );
        expect({ table: f.table, rows: back!.n }).toEqual({ table: f.table, rows: f.rows });
        expect(sha(join(out, 'past-cap', f.file))).toBe(f.sha256);
      }
      let rows = 0;
      const outcome = await runSql(served, 'SELECT number FROM numbers(20000)', { maxRows: 0 }, (batch) => void (rows += batch.length));
      expect({ ...outcome, rows }).toEqual({ returnedRows: true, rows: 20_000, truncated: false });

      // The public interface (with its password, on its public schema) still refuses a read past its cap.
      const password = readFileSync(join(served.dataDir, CLICKHOUSE_PASSWORD_FILE), 'utf8').trim();
      const res = await fetch(
        `${instance!.clickhouseUrl}/?query=${encodeURIComponent('SELECT number FROM numbers(100000) FORMAT Parquet')}`,
        {
          headers: { 'X-ClickHouse-User': 'default', 'X-ClickHouse-Key': password },
        },
      );
      expect(Buffer.from(await res.arrayBuffer()).toString('latin1')).toMatch(/Code: 396\. DB::Exception: Limit for result exceeded/);
    } finally {
      await instance!.close();
    }
  });

  it('writes csv and jsonl with stable checksums and --since', async () => {
    for (const format of ['csv', 'jsonl'] as const) {
      const a = await exportSnapshot(config, { out: join(out, `${format}-a`), format });
      const b = await exportSnapshot(config, { out: join(out, `${format}-b`), format });
      expect(b.files.map((f) => f.sha256)).toEqual(a.files.map((f) => f.sha256));
      const fmt = format === 'csv' ? 'CSVWithNames' : 'JSONEachRow';
      for (const f of a.files) {
        const [back] = await wh.query<{ n: number }>(
          `SELECT toUInt32(count()) AS n FROM file('${join(out, `${format}-a`, f.file)}', ${fmt})`,
        );
        expect({ table: f.table, rows: back!.n }).toEqual({ table: f.table, rows: f.rows });
      }
    }
    const since = await exportSnapshot(config, { out: join(out, 'since'), format: 'jsonl', since: '2999-01-01' });
    expect(Object.fromEntries(since.files.map((f) => [f.table, f.rows]))).toMatchObject({
      checks: 0,
      verdicts: 0,
      daily_rollups: 0,
      agent_daily_history: 0,
    });
    expect(since.files.find((f) => f.table === 'agents')!.rows).toBeGreaterThan(0);
  });
});
