/**
 * The migrations rendered for a ClickHouse cluster (VERONIKAI_CLICKHOUSE_CLUSTER): the same
 * files, each statement rewritten so that one migrator's run reaches every node.
 *
 *   CREATE TABLE t … ENGINE = XMergeTree(args)
 *     → CREATE TABLE t_local ON CLUSTER c … ENGINE = ReplicatedXMergeTree('<path>', '{replica}', args)
 *       CREATE TABLE t ON CLUSTER c AS t_local ENGINE = Distributed(c, currentDatabase(), t_local, <shard key>)
 *   CREATE VIEW / MATERIALIZED VIEW / DATABASE … → the same, ON CLUSTER c
 *   ALTER TABLE t … → on t_local and on t, ON CLUSTER c
 *   ALTER TABLE t MODIFY SETTING / MATERIALIZE COLUMN … → on t_local only (a MergeTree's settings and
 *     stored parts; the Distributed table has neither)
 *   INSERT … → unchanged: it runs once, through the Distributed table
 *
 * Every reader and writer keeps the names it uses (they are the Distributed tables), so queries,
 * views and materialized views need no change. The shard key is a hash of the first column of
 * the table's ORDER BY: every row of one sorting key (one agent, one event id, one run) lands
 * on one shard, so `FINAL` (applied shard by shard) still collapses every version of a row.
 * The replicas of a shard share the ZooKeeper path of the macros {shard}, {database}, {table};
 * each names itself with {replica}: the nodes' macros must define shard and replica.
 *
 * The statements are rewritten as text, in the shapes the migrations use (clickhouse/SCHEMA.md
 * asks new migrations to keep them); a statement of another shape is refused, never passed on
 * unchanged to one node only. The test parses every rendered statement with the engine's own
 * parser; only a real cluster runs them.
 */

/** Suffix of the replicated table under each Distributed one. */
export const LOCAL_SUFFIX = '_local';

/** A cluster name as ClickHouse's remote_servers spell it. */
const CLUSTER_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

const NAME = '((?:`[^`]+`|[A-Za-z_][A-Za-z0-9_]*)(?:\\.(?:`[^`]+`|[A-Za-z_][A-Za-z0-9_]*))?)';
const CREATE_TABLE = new RegExp(`^CREATE TABLE (IF NOT EXISTS )?${NAME}(\\s*\\()`, 'i');
const CREATE_OTHER = new RegExp(`^CREATE (OR REPLACE )?(MATERIALIZED VIEW|VIEW|DATABASE)( IF NOT EXISTS)? ${NAME}(?=\\s|$)`, 'i');
/** `DROP TABLE [IF EXISTS] name` and nothing after it. */
const DROP_TABLE = new RegExp(`^DROP TABLE (IF EXISTS )?${NAME}\\s*$`, 'i');
const ALTER_TABLE = new RegExp(`^ALTER TABLE ${NAME}(\\s)`, 'i');
const LOCAL_ONLY = /^\s*(MODIFY SETTING|MATERIALIZE COLUMN)\b/i;
const ENGINE = /\bENGINE\s*=\s*(Replacing|Summing|Aggregating|Collapsing|VersionedCollapsing)?MergeTree\b(\s*\(([^()]*)\))?/i;
const ORDER_BY = /\bORDER BY\s+/i;

export class ClusterDdlError extends Error {
  override name = 'ClusterDdlError';
}

/** Renders statements in order; tables created by earlier statements are remembered (ALTERs name them). */
export class ClusterDdlRenderer {
  private readonly sharded = new Set<string>();

  constructor(readonly cluster: string) {
    if (!CLUSTER_NAME.test(cluster)) throw new ClusterDdlError(`a cluster name is letters, digits and _, got "${cluster}"`);
  }

  /** One migration statement as the statements that do its work on the cluster. */
  render(statement: string): string[] {
    const { lead, code } = splitLeadingComments(statement);
    const on = ` ON CLUSTER ${this.cluster}`;

    const table = CREATE_TABLE.exec(code);
    if (table) {
      const [, ifNotExists = '', name] = table as unknown as [string, string | undefined, string];
      const local = localName(name);
      const engine = ENGINE.exec(code);
      if (!engine) throw new ClusterDdlError(`CREATE TABLE ${name}: no MergeTree engine to replicate`);
      const [whole, family = '', , args] = engine as unknown as [string, string | undefined, string | undefined, string | undefined];
      const replicated = `ENGINE = Replicated${family}MergeTree('/clickhouse/tables/{shard}/{database}/{table}', '{replica}'${args?.trim() ? `, ${args.trim()}` : ''})`;
      const body = code.slice(table[0].length - table[3]!.length).replace(whole, replicated);
      this.sharded.add(bare(name));
      const distributed = `CREATE TABLE ${ifNotExists}${name}${on} AS ${local}\nENGINE = Distributed(${this.cluster}, currentDatabase(), ${bare(local)}, ${shardKey(code, name)})`;
      return [`${lead}CREATE TABLE ${ifNotExists}${local}${on}${body}`, distributed];
    }

    const other = CREATE_OTHER.exec(code);
    if (other) return [`${lead}${other[0]}${on}${code.slice(other[0].length)}`];

    const alter = ALTER_TABLE.exec(code);
    if (alter) {
      const name = alter[1]!;
      const rest = code.slice(alter[0].length - 1);
      const onTable = (t: string) => `ALTER TABLE ${t}${on}${rest}`;
      if (!this.sharded.has(bare(name))) return [`${lead}${onTable(name)}`];
      // The replicated table first: the Distributed one only describes it (and has no storage of its own).
      return LOCAL_ONLY.test(rest) ? [`${lead}${onTable(localName(name))}`] : [`${lead}${onTable(localName(name))}`, onTable(name)];
    }

    const drop = DROP_TABLE.exec(code);
    if (drop) {
      const [, ifExists = '', name] = drop as unknown as [string, string | undefined, string];
      const dropOne = (t: string) => `DROP TABLE ${ifExists}${t}${on}`;
      if (!this.sharded.has(bare(name))) return [`${lead}${dropOne(name)}`];
      this.sharded.delete(bare(name));
      // The Distributed table first: it reads the replicated one.
      return [`${lead}${dropOne(name)}`, dropOne(localName(name))];
    }

    if (/^INSERT INTO\b/i.test(code)) return [statement];
    throw new ClusterDdlError(`no cluster form for this statement: ${code.slice(0, 80)}`);
  }
}

/** The migrations' statements for a cluster; the files (and their checksums) stay the same. */
export function renderForCluster<M extends { statements: string[] }>(migrations: readonly M[], cluster: string): M[] {
  const renderer = new ClusterDdlRenderer(cluster);
  return migrations.map((m) => ({ ...m, statements: m.statements.flatMap((s) => renderer.render(s)) }));
}

function splitLeadingComments(statement: string): { lead: string; code: string } {
  const lines = statement.split('\n');
  let i = 0;
  while (i < lines.length && (lines[i]!.trim() === '' || lines[i]!.trim().startsWith('--'))) i++;
  return {
    lead: lines
      .slice(0, i)
      .map((l) => `${l}\n`)
      .join(''),
    code: lines.slice(i).join('\n'),
  };
}

/** The name without a database or backquotes. */
function bare(name: string): string {
  return (name.split('.').pop() ?? name).replace(/`/g, '');
}

/** `t` → `t_local`, keeping a database qualifier and quoting. */
function localName(name: string): string {
  const dot = name.lastIndexOf('.');
  const db = dot >= 0 ? name.slice(0, dot + 1) : '';
  const t = name.slice(dot + 1);
  return t.startsWith('`') ? `${db}\`${t.slice(1, -1)}${LOCAL_SUFFIX}\`` : `${db}${t}${LOCAL_SUFFIX}`;
}

/** cityHash64 of the first ORDER BY column: rows of one sorting key share a shard. */
function shardKey(code: string, name: string): string {
  const m = ORDER_BY.exec(code);
  if (!m) throw new ClusterDdlError(`CREATE TABLE ${name}: no ORDER BY to shard by`);
  const rest = code.slice(m.index + m[0].length);
  let first: string;
  if (rest.startsWith('(')) {
    first = topLevelItems(rest.slice(1, closingParen(rest)))[0] ?? '';
  } else {
    first = /^[^\s]+/.exec(rest)?.[0] ?? '';
  }
  if (!first.trim()) throw new ClusterDdlError(`CREATE TABLE ${name}: empty ORDER BY`);
  return `cityHash64(${first.trim()})`;
}

function closingParen(text: string): number {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '(') depth++;
    else if (text[i] === ')' && --depth === 0) return i;
  }
  throw new ClusterDdlError(`unbalanced parentheses in ${text.slice(0, 60)}`);
}

function topLevelItems(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === ',' && depth === 0) {
      out.push(text.slice(start, i));
      start = i + 1;
    }
  }
  out.push(text.slice(start));
  return out;
}
