/**
 * The migrations rendered for a ClickHouse cluster (src/warehouse/cluster-ddl.ts), parsed by the
 * embedded engine's own parser (formatQuerySingleLine, as the statement guard uses it) without
 * being executed: every statement of every migration has a cluster form the engine reads, every
 * table is replicated under a Distributed table of the same name, sharded by its first sorting
 * column, and every DDL runs ON CLUSTER. No cluster runs here: these statements are only rendered.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, UsageError } from '../../src/config.js';
import { ClusterDdlError, ClusterDdlRenderer, renderForCluster } from '../../src/warehouse/cluster-ddl.js';
import { engineFormatted } from '../../src/warehouse/guard/guard.js';
import { loadMigrations, SCHEMA_MIGRATIONS_DDL } from '../../src/warehouse/migrate.js';
import { withWarehouse, type TestWarehouse } from '../helpers/warehouse.js';

const CLUSTER = 'veronikai_cluster';

describe('migrations rendered for a ClickHouse cluster', () => {
  let t: TestWarehouse;
  beforeAll(async () => {
    t = await withWarehouse('cluster-ddl', { migrate: false });
  });
  afterAll(async () => {
    await t?.close();
  });

  const migrations = loadMigrations();
  const rendered = renderForCluster(migrations, CLUSTER);
  const plainCount = migrations.flatMap((m) => m.statements).length;
  const all = [...new ClusterDdlRenderer(CLUSTER).render(SCHEMA_MIGRATIONS_DDL), ...rendered.flatMap((m) => m.statements)];
  const creates = migrations.flatMap((m) => m.statements).filter((s) => /^CREATE TABLE/im.test(s.replace(/^--.*$/gm, '').trim()));

  it('parses every rendered statement with the engine, and each DDL runs ON CLUSTER', async () => {
    expect(all.length).toBeGreaterThan(plainCount);
    const formatted: string[] = [];
    for (const statement of all) {
      const text = await engineFormatted(t.wh, statement).catch((err: unknown) => {
        throw new Error(`the engine does not parse:\n${statement}\n${(err as Error).message}`);
      });
      formatted.push(text);
      if (!/^INSERT INTO/.test(text)) expect(text, text).toContain(`ON CLUSTER ${CLUSTER}`);
    }
    // Every table engine is a replicated one or a Distributed table; none stays on one server.
    const engines = formatted.flatMap((f) => [...f.matchAll(/ENGINE = (\w+)/g)].map((m) => m[1]!));
    expect(engines.length).toBe(2 * (creates.length + 1));
    expect(engines.filter((e) => e === 'Distributed')).toHaveLength(creates.length + 1);
    for (const e of engines.filter((x) => x !== 'Distributed')) expect(e).toMatch(/^Replicated(Replacing|Summing)?MergeTree$/);
    // Parsed, not executed: nothing was created.
    expect(await t.wh.query("SELECT name FROM system.tables WHERE database = currentDatabase() AND name LIKE '%agents%'")).toEqual([]);
  });

  it('keeps the names readers use for Distributed tables sharded by the first sorting column, and alters both tables', async () => {
    const agents = all.filter((s) => /CREATE TABLE IF NOT EXISTS agents(_local)? /.test(s));
    expect(agents).toHaveLength(2);
    const [local, distributed] = agents.map((s) => s);
    expect(await engineFormatted(t.wh, local!)).toMatch(
      /^CREATE TABLE IF NOT EXISTS agents_local ON CLUSTER veronikai_cluster \(.*\) ENGINE = ReplicatedReplacingMergeTree\('\/clickhouse\/tables\/\{shard\}\/\{database\}\/\{table\}', '\{replica\}', version\) ORDER BY agent_key/,
    );
    expect(await engineFormatted(t.wh, distributed!)).toBe(
      'CREATE TABLE IF NOT EXISTS agents ON CLUSTER veronikai_cluster AS agents_local ENGINE = Distributed(veronikai_cluster, currentDatabase(), agents_local, cityHash64(agent_key))',
    );
    // A composite sorting key shards by its first column.
    const terms = all.find((s) => s.startsWith('CREATE TABLE IF NOT EXISTS agent_search_terms ON CLUSTER'));
    expect(terms).toContain('cityHash64(term)');
    // An ALTER of a sharded table changes the replicated table, then the Distributed one.
    const alters = all.filter((s) =>
      /ALTER TABLE agents(_local)? ON CLUSTER veronikai_cluster ADD COLUMN IF NOT EXISTS opt_out /.test(s.replace(/^--.*\n/gm, '')),
    );
    expect(alters.map((s) => /ALTER TABLE (\w+)/.exec(s)![1])).toEqual(['agents_local', 'agents']);
    // A storage setting is the replicated table's alone: the Distributed one has none to modify.
    const settings = all.filter((s) =>
      /ALTER TABLE search_documents(_local)? ON CLUSTER \w+ MODIFY SETTING/.test(s.replace(/^--.*\n/gm, '')),
    );
    expect(settings.map((s) => /ALTER TABLE (\w+)/.exec(s.replace(/^--.*\n/gm, ''))![1])).toEqual(['search_documents_local']);
    // So is a mutation that writes a column into the stored parts.
    const mutations = all.filter((s) =>
      /ALTER TABLE listing_history(_local)? ON CLUSTER \w+ MATERIALIZE COLUMN/.test(s.replace(/^--.*\n/gm, '')),
    );
    expect(mutations.map((s) => /ALTER TABLE (\w+)/.exec(s.replace(/^--.*\n/gm, ''))![1])).toEqual(['listing_history_local']);
    // A dropped sharded table goes on every node, the Distributed one first (it reads the replicated one).
    const drops = all.filter((s) =>
      /^DROP TABLE IF EXISTS replay_proofs(_local)? ON CLUSTER veronikai_cluster$/.test(s.replace(/^--.*\n/gm, '')),
    );
    expect(drops.map((s) => /DROP TABLE IF EXISTS (\w+)/.exec(s)![1])).toEqual(['replay_proofs', 'replay_proofs_local']);
    // Materialized views and views keep reading the names they read, on every node.
    const mv = all.find((s) => /CREATE MATERIALIZED VIEW IF NOT EXISTS agent_search_rows_mv/.test(s))!;
    expect(await engineFormatted(t.wh, mv)).toMatch(
      /^CREATE MATERIALIZED VIEW IF NOT EXISTS agent_search_rows_mv ON CLUSTER veronikai_cluster TO agent_search_rows AS SELECT .* FROM agents$/,
    );
  });

  it('refuses a statement it has no cluster form for, and a cluster for the embedded warehouse', () => {
    const r = new ClusterDdlRenderer(CLUSTER);
    expect(() => r.render('OPTIMIZE TABLE agents FINAL')).toThrow(ClusterDdlError);
    expect(() => r.render('CREATE TABLE t (a UInt8) ENGINE = Memory')).toThrow(/no MergeTree engine/);
    expect(() => new ClusterDdlRenderer('no-dashes')).toThrow(ClusterDdlError);
    expect(() => loadConfig({ clickhouseCluster: CLUSTER }, {})).toThrow(UsageError);
    expect(loadConfig({ clickhouseCluster: CLUSTER, warehouse: 'http://127.0.0.1:8123' }, {}).clickhouseCluster).toBe(CLUSTER);
  });
});
