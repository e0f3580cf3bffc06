import { createHash } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { silentLogger, type Logger } from '../log.js';
import { ClusterDdlRenderer, renderForCluster } from './cluster-ddl.js';
import type { Warehouse } from './warehouse.js';

/**
 * Numbered DDL migrations in `clickhouse/`: `NNNN_what_it_does.sql`, one change
 * per file, statements separated by a `;` at the end of a line. They are
 * applied in version order and recorded in `schema_migrations`; a second run
 * applies nothing, and an applied file that was edited (or renamed) since is
 * an error: write a new migration instead.
 *
 * A migration that fails half-way is not recorded, so the next run starts it
 * again from its first statement: write statements that can run twice
 * (`CREATE … IF NOT EXISTS`, `ADD COLUMN IF NOT EXISTS`, …).
 * Two migrators must not run against the same warehouse at the same time.
 */

export interface Migration {
  version: number;
  name: string;
  file: string;
  checksum: string;
  statements: string[];
}

export interface AppliedMigration {
  version: number;
  name: string;
  checksum: string;
  applied_at: string;
}

export interface MigrateOptions {
  /** Directory of the `.sql` files (default: the repository's `clickhouse/`). */
  dir?: string;
  logger?: Logger;
  /** Only report what would be applied. */
  dryRun?: boolean;
  /** A ClickHouse cluster: every statement rendered for it (cluster-ddl.ts); unset: one server. */
  cluster?: string | null;
}

export interface MigrateResult {
  /** Applied by this run (or, with dryRun, that would be). */
  applied: Array<{ version: number; name: string }>;
  /** Already recorded before this run. */
  alreadyApplied: number;
  /** Recorded in schema_migrations but no longer present as a file (reported, not an error). */
  missingFiles: Array<{ version: number; name: string }>;
}

export class MigrationError extends Error {
  override name = 'MigrationError';
}

/** Where the migrations live: `<repo>/clickhouse`, two levels up from this module in src/ and in dist/ alike. */
export const DEFAULT_MIGRATIONS_DIR = fileURLToPath(new URL('../../clickhouse/', import.meta.url));

const FILE_RE = /^(\d{4})_([a-z0-9_]+)\.sql$/;

export const SCHEMA_MIGRATIONS_DDL = `CREATE TABLE IF NOT EXISTS schema_migrations
(
    version    UInt32,
    name       String,
    checksum   String,
    applied_at DateTime64(3, 'UTC')
)
ENGINE = ReplacingMergeTree(applied_at)
ORDER BY version
COMMENT 'Applied DDL migrations (clickhouse/NNNN_*.sql); written by veronikai migrate'`;

/**
 * Splits a migration file into statements: a statement ends at a line whose
 * last non-blank character is `;` (comment lines never end one). Statements
 * holding only comments are dropped.
 */
export function splitStatements(sql: string): string[] {
  const statements: string[] = [];
  let current: string[] = [];
  const flush = (): void => {
    const text = current.join('\n').trim();
    const hasCode = current.some((l) => l.trim() !== '' && !l.trim().startsWith('--'));
    if (hasCode) statements.push(text);
    current = [];
  };
  for (const line of sql.replace(/\r\n?/g, '\n').split('\n')) {
    const trimmed = line.trimEnd();
    if (!trimmed.trimStart().startsWith('--') && trimmed.endsWith(';')) {
      current.push(trimmed.replace(/;+$/, ''));
      flush();
    } else {
      current.push(line);
    }
  }
  flush();
  return statements;
}

export function checksumOf(sql: string): string {
  return createHash('sha256').update(sql.replace(/\r\n?/g, '\n'), 'utf8').digest('hex');
}

/** Reads and validates the migration files of a directory, in version order. */
export function loadMigrations(dir: string = DEFAULT_MIGRATIONS_DIR): Migration[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (err) {
    throw new MigrationError(`cannot read the migrations directory ${dir}: ${(err as Error).message}`);
  }
  const migrations: Migration[] = [];
  const seen = new Map<number, string>();
  for (const file of names.filter((n) => n.endsWith('.sql')).sort()) {
    const m = FILE_RE.exec(file);
    if (!m?.[1] || !m[2]) {
      throw new MigrationError(`migration file name must look like 0001_what_it_does.sql, got ${file}`);
    }
    const version = Number(m[1]);
    const other = seen.get(version);
    if (other) throw new MigrationError(`two migrations share version ${m[1]}: ${other} and ${file}`);
    seen.set(version, file);
    const text = readFileSync(join(dir, file), 'utf8');
    const statements = splitStatements(text);
    if (statements.length === 0) throw new MigrationError(`migration ${file} has no statements`);
    migrations.push({ version, name: m[2], file, checksum: checksumOf(text), statements });
  }
  return migrations.sort((a, b) => a.version - b.version);
}

export async function appliedMigrations(warehouse: Warehouse): Promise<AppliedMigration[]> {
  const rows = await warehouse.query<{ version: number | string; name: string; checksum: string; applied_at: string }>(
    'SELECT version, name, checksum, applied_at FROM schema_migrations FINAL ORDER BY version',
  );
  return rows.map((r) => ({ ...r, version: Number(r.version) }));
}

/** Applies the pending migrations in order; idempotent. */
export async function migrate(warehouse: Warehouse, options: MigrateOptions = {}): Promise<MigrateResult> {
  const log = options.logger ?? silentLogger;
  const migrations = options.cluster ? renderForCluster(loadMigrations(options.dir), options.cluster) : loadMigrations(options.dir);
  for (const statement of options.cluster ? new ClusterDdlRenderer(options.cluster).render(SCHEMA_MIGRATIONS_DDL) : [SCHEMA_MIGRATIONS_DDL])
    await warehouse.exec(statement);
  const applied = await appliedMigrations(warehouse);
  const byVersion = new Map(applied.map((a) => [a.version, a]));

  // Verify everything before changing anything.
  const changed: string[] = [];
  for (const m of migrations) {
    const a = byVersion.get(m.version);
    if (a && (a.checksum !== m.checksum || a.name !== m.name)) {
      changed.push(
        a.name !== m.name
          ? `${m.file}: applied as ${String(m.version).padStart(4, '0')}_${a.name}.sql, now named ${m.name}`
          : `${m.file}: changed since it was applied (checksum ${a.checksum.slice(0, 12)}…, now ${m.checksum.slice(0, 12)}…)`,
      );
    }
  }
  if (changed.length > 0) {
    throw new MigrationError(
      `applied migrations were modified; add a new migration instead of editing an applied one:\n  ${changed.join('\n  ')}`,
    );
  }

  const files = new Set(migrations.map((m) => m.version));
  const missingFiles = applied.filter((a) => !files.has(a.version)).map((a) => ({ version: a.version, name: a.name }));
  for (const m of missingFiles) log.warn({ migration: m }, 'applied migration has no file any more');

  const pending = migrations.filter((m) => !byVersion.has(m.version));
  const maxApplied = applied.reduce((max, a) => Math.max(max, a.version), 0);
  const result: MigrateResult = { applied: [], alreadyApplied: applied.length - missingFiles.length, missingFiles };

  for (const m of pending) {
    if (m.version < maxApplied) log.warn({ migration: m.file }, 'applying a migration older than the newest applied one');
    if (options.dryRun) {
      result.applied.push({ version: m.version, name: m.name });
      continue;
    }
    for (const [i, statement] of m.statements.entries()) {
      try {
        await warehouse.exec(statement);
      } catch (err) {
        throw new MigrationError(`migration ${m.file} failed at statement ${i + 1} of ${m.statements.length}: ${(err as Error).message}`, {
          cause: err,
        });
      }
    }
    await warehouse.insert('schema_migrations', [{ version: m.version, name: m.name, checksum: m.checksum, applied_at: new Date() }]);
    log.info({ migration: m.file, statements: m.statements.length }, 'migration applied');
    result.applied.push({ version: m.version, name: m.name });
  }
  return result;
}
