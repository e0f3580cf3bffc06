import { cpSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  DEFAULT_MIGRATIONS_DIR,
  MigrationError,
  appliedMigrations,
  loadMigrations,
  migrate,
  splitStatements,
} from '../../src/warehouse/migrate.js';
import type { Warehouse } from '../../src/warehouse/warehouse.js';
import { withWarehouse, type TestWarehouse } from '../helpers/warehouse.js';

describe('splitStatements', () => {
  it('splits at a ; that ends a line, never inside comments, and drops comment-only pieces', () => {
    const sql = [
      '-- a comment that ends with a semicolon;',
      'CREATE TABLE a (x String) -- trailing',
      "ENGINE = MergeTree ORDER BY x COMMENT 'one; two';",
      '',
      'CREATE VIEW v AS',
      'SELECT 1;;   ',
      '-- only a comment',
    ].join('\r\n');
    expect(splitStatements(sql)).toEqual([
      "-- a comment that ends with a semicolon;\nCREATE TABLE a (x String) -- trailing\nENGINE = MergeTree ORDER BY x COMMENT 'one; two'",
      'CREATE VIEW v AS\nSELECT 1',
    ]);
  });

  it('keeps a last statement without a semicolon', () => {
    expect(splitStatements('SELECT 1;\nSELECT 2\n')).toEqual(['SELECT 1', 'SELECT 2']);
  });
});

describe('loadMigrations', () => {
  it('reads the repository migrations in order, one numbered file per change', () => {
    const ms = loadMigrations(DEFAULT_MIGRATIONS_DIR);
    expect(ms.length).toBeGreaterThanOrEqual(16);
    expect(ms.map((m) => m.version)).toEqual(ms.map((_, i) => i + 1));
    for (const m of ms) {
      expect(m.checksum).toMatch(/^[0-9a-f]{64}$/);
      expect(m.statements.length).toBeGreaterThan(0);
    }
  });

  it('rejects badly named files and duplicate versions', () => {
    const dir = mkdtempSync(join(tmpdir(), 'veronikai-mig-bad-'));
    try {
      writeFileSync(join(dir, '1_short.sql'), 'SELECT 1;\n');
      expect(() => loadMigrations(dir)).toThrow(MigrationError);
      rmSync(join(dir, '1_short.sql'));
      writeFileSync(join(dir, '0001_a.sql'), 'SELECT 1;\n');
      writeFileSync(join(dir, '0001_b.sql'), 'SELECT 1;\n');
      expect(() => loadMigrations(dir)).toThrow(/share version 0001/);
      rmSync(join(dir, '0001_b.sql'));
      writeFileSync(join(dir, '0002_empty.sql'), '-- nothing\n');
      expect(() => loadMigrations(dir)).toThrow(/no statements/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('migrate (embedded)', () => {
  // Each test on a fresh, unmigrated warehouse of its own (chdb holds one directory at a time).
  let t: TestWarehouse;
  let wh: Warehouse;
  let root: string;

  beforeEach(async () => {
    t = await withWarehouse('wh-migrate', { migrate: false });
    wh = t.wh;
    root = t.dir;
  });
  afterEach(async () => {
    await t?.close();
  });

  it('applies every migration on a fresh warehouse, then nothing on a second run', async () => {
    const all = loadMigrations();
    const first = await migrate(wh);
    expect(first.applied.map((m) => m.version)).toEqual(all.map((m) => m.version));
    expect(first.alreadyApplied).toBe(0);

    const second = await migrate(wh);
    expect(second.applied).toEqual([]);
    expect(second.alreadyApplied).toBe(all.length);

    const recorded = await appliedMigrations(wh);
    expect(recorded.map((r) => [r.version, r.name, r.checksum])).toEqual(all.map((m) => [m.version, m.name, m.checksum]));
    expect(recorded[0]?.applied_at).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{3}$/);
  });

  it('creates the tables with the intended engines, keys and TTLs', async () => {
    await migrate(wh);
    const rows = await wh.query<{ name: string; engine: string; sorting_key: string; engine_full: string }>(
      "SELECT name, engine, sorting_key, engine_full FROM system.tables WHERE database = currentDatabase() AND engine NOT IN ('View') ORDER BY name",
    );
    const byName = Object.fromEntries(rows.map((r) => [r.name, r]));
    const expectTable = (name: string, engine: string, key: string, ttl: boolean): void => {
      const t = byName[name];
      expect(t, name).toBeDefined();
      expect(t?.engine, name).toBe(engine);
      expect(t?.sorting_key, name).toBe(key);
      expect(t?.engine_full.includes(' TTL '), `${name} TTL`).toBe(ttl);
      if (ttl) expect(t?.engine_full).toContain('TTL observed_at + toIntervalDay(90)');
    };
    expectTable('listings', 'ReplacingMergeTree', 'source, item_id', false);
    expectTable('agents', 'ReplacingMergeTree', 'agent_key', false);
    expectTable('source_fetches', 'ReplacingMergeTree', 'source, observed_at, event_id', true);
    expectTable('checks', 'ReplacingMergeTree', 'agent_key, observed_at, event_id, checker_version', true);
    expectTable('verdicts', 'ReplacingMergeTree', 'checker_version, agent_key, observed_at, event_id', true);
    expectTable('agent_latest', 'ReplacingMergeTree', 'checker_version, agent_key', false);
    expectTable('daily_rollups', 'ReplacingMergeTree', 'day, protocol, source, checker_version', false);
    expectTable('agent_daily_history', 'ReplacingMergeTree', 'checker_version, agent_key, day', false);
    expectTable('checker_current', 'ReplacingMergeTree', '', false);
    // The read model of the API pages (issue 16).
    expectTable('agent_status', 'ReplacingMergeTree', 'checker_version, agent_key', false);
    expectTable('agent_search_rows', 'ReplacingMergeTree', 'agent_id', false);
    expectTable('agent_search_terms', 'ReplacingMergeTree', 'term, sort_key, agent_id', false);
    expectTable('census_totals', 'ReplacingMergeTree', 'checker_version', false);
    expectTable('run_samples', 'ReplacingMergeTree', 'run_id, checker_version, event_id', false);
    expectTable('schema_migrations', 'ReplacingMergeTree', 'version', false);

    const views = await wh.query<{ name: string }>(
      "SELECT name FROM system.tables WHERE database = currentDatabase() AND engine = 'View' ORDER BY name",
    );
    // Every analyst view at __v1 (kept for compatibility) and __v2 (explicit columns); v_agent_uptime also at __v3 (on agent_status).
    const names = [
      'v_agent_latest_current',
      'v_agent_uptime',
      'v_agents_current',
      'v_checker_current',
      'v_daily_rollups',
      'v_listings_current',
      'v_verdicts_current',
    ];
    expect(views.map((v) => v.name)).toEqual(
      names.flatMap((n) => [`${n}__v1`, `${n}__v2`, ...(n === 'v_agent_uptime' ? [`${n}__v3`] : [])]),
    );
    // Every view runs on an empty warehouse.
    for (const v of views) await wh.query(`SELECT * FROM ${v.name} LIMIT 1`);
  });

  it('applies only a newly added migration', async () => {
    await migrate(wh);
    const dir = join(root, 'added');
    cpSync(DEFAULT_MIGRATIONS_DIR, dir, { recursive: true });
    const next = loadMigrations(dir).length + 1;
    const file = `${String(next).padStart(4, '0')}_create_scratch.sql`;
    writeFileSync(join(dir, file), '-- test only\nCREATE TABLE IF NOT EXISTS scratch (x UInt8)\nENGINE = MergeTree ORDER BY x;\n');
    const result = await migrate(wh, { dir });
    expect(result.applied).toEqual([{ version: next, name: 'create_scratch' }]);
    expect(await wh.query('EXISTS TABLE scratch')).toEqual([{ result: 1 }]);
    expect((await migrate(wh, { dir })).applied).toEqual([]);
    // Back on the repository directory, the extra applied version is reported, not an error.
    const back = await migrate(wh);
    expect(back.applied).toEqual([]);
    expect(back.missingFiles).toEqual([{ version: next, name: 'create_scratch' }]);
  });

  it('reports an edited or renamed applied migration as an error and applies nothing', async () => {
    await migrate(wh);
    const dir = join(root, 'edited');
    cpSync(DEFAULT_MIGRATIONS_DIR, dir, { recursive: true });
    const target = loadMigrations(dir).find((m) => m.version === 4);
    expect(target).toBeDefined();
    const path = join(dir, target!.file);
    writeFileSync(path, `${readFileSync(path, 'utf8')}\n-- an innocent-looking edit\n`);
    const pendingVersion = 900;
    writeFileSync(
      join(dir, `0${pendingVersion}_must_not_apply.sql`),
      'CREATE TABLE must_not_apply (x UInt8) ENGINE = MergeTree ORDER BY x;\n',
    );

    await expect(migrate(wh, { dir })).rejects.toThrow(MigrationError);
    await expect(migrate(wh, { dir })).rejects.toThrow(/0004_create_checks\.sql: changed since it was applied/);
    expect(await wh.query('EXISTS TABLE must_not_apply')).toEqual([{ result: 0 }]);

    writeFileSync(path, readFileSync(join(DEFAULT_MIGRATIONS_DIR, target!.file)));
    renameSync(path, join(dir, '0004_create_probe_checks.sql'));
    await expect(migrate(wh, { dir })).rejects.toThrow(/applied as 0004_create_checks\.sql, now named create_probe_checks/);
    expect(await wh.query('EXISTS TABLE must_not_apply')).toEqual([{ result: 0 }]);
  });

  it('does not record a migration whose statement fails, and names the file', async () => {
    const dir = join(root, 'failing');
    cpSync(DEFAULT_MIGRATIONS_DIR, dir, { recursive: true });
    writeFileSync(
      join(dir, '0950_broken.sql'),
      'CREATE TABLE IF NOT EXISTS half_done (x UInt8) ENGINE = MergeTree ORDER BY x;\nCREATE TABLE oops (x UInt8) ENGINE = NoSuchEngine;\n',
    );
    await expect(migrate(wh, { dir })).rejects.toThrow(/0950_broken\.sql failed at statement 2 of 2/);
    const recorded = await appliedMigrations(wh);
    expect(recorded.some((r) => r.version === 950)).toBe(false);
    // Fixed, it runs again from its first statement (which is written to run twice).
    writeFileSync(join(dir, '0950_broken.sql'), 'CREATE TABLE IF NOT EXISTS half_done (x UInt8) ENGINE = MergeTree ORDER BY x;\n');
    expect((await migrate(wh, { dir })).applied.map((m) => m.version)).toEqual([950]);
  });
});
