/**
 * What a guarded surface serves: which tables a statement may read, the database unqualified
 * names resolve in, and the rewrite that points the BI tools' catalogue queries
 * (`system.tables`, `system.columns`, `system.databases`) at the public schema's filtered copies.
 */

/** The public schema's database: views with the API's rules (clickhouse/0030). */
export const PUBLIC_DATABASE = 'veronikai_public';
/** Its catalogue: system.tables, system.columns and system.databases narrowed to the public schema. */
export const PUBLIC_CATALOGUE_DATABASE = 'veronikai_public_catalogue';
/** The catalogue tables served through PUBLIC_CATALOGUE_DATABASE. */
const CATALOGUE_TABLES = ['tables', 'columns', 'databases'];
/** System tables that tell nothing about the index or the process: BI tools ask them for types, functions and formats. */
const NEUTRAL_SYSTEM_TABLES = [
  'one',
  'numbers',
  'numbers_mt',
  'zeros',
  'zeros_mt',
  'functions',
  'table_functions',
  'data_type_families',
  'formats',
  'time_zones',
  'aggregate_function_combinators',
];

export interface ServedSchema {
  /** The database unqualified names resolve in. */
  readonly database: string;
  /** Whether a statement may read this table (`db.name`, or `name` in `database`; `db.*` is the database itself). */
  serves(table: string): boolean;
  /** The statement with catalogue references pointed at the served copies (identity when none). */
  rewrite(formatted: string): string;
  /** A word for the refusal, saying what is served. */
  readonly hint: string | null;
}

function qualify(table: string, database: string): [string, string] {
  const dot = table.indexOf('.');
  return dot < 0 ? [database, table] : [table.slice(0, dot), table.slice(dot + 1)];
}

/** The owner's schema: every table of the warehouse (the owner's `sql` and private endpoint). */
export function ownerSchema(database = 'default'): ServedSchema {
  return { database, serves: () => true, rewrite: (s) => s, hint: null };
}

/** The public schema: PUBLIC_DATABASE's views, its catalogue, and the neutral system tables. */
export function publicSchema(): ServedSchema {
  const catalogue = new RegExp(`\\b(system|\`system\`)\\.(\`?)(${CATALOGUE_TABLES.join('|')})\\2(?![\\w\`])`, 'g');
  return {
    database: PUBLIC_DATABASE,
    serves(table) {
      const [db, name] = qualify(table, PUBLIC_DATABASE);
      if (db === PUBLIC_DATABASE || db === PUBLIC_CATALOGUE_DATABASE) return true;
      return db === 'system' && NEUTRAL_SYSTEM_TABLES.includes(name);
    },
    rewrite: (s) => s.replace(catalogue, (_m, _db, _q, name: string) => `${PUBLIC_CATALOGUE_DATABASE}.${name}`),
    hint: `this interface serves the ${PUBLIC_DATABASE} database`,
  };
}
