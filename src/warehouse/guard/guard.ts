import { WarehouseError } from '../errors.js';
import type { ReadOnlyWarehouse } from '../warehouse.js';
import { inspectAst, parseAstDump, Refusal, resolvedTables, type StatementKind } from './ast.js';
import type { ServedSchema } from './schema.js';

/**
 * The guard in front of every surface that runs someone's SQL read-only: the engine decides what
 * the statement is. It formats the text with the engine's own formatter (one statement, comments
 * gone, names written plainly), reads the engine's parse of that text (`EXPLAIN AST`) and, for a
 * query, the analyser's resolution of every table it reads (`EXPLAIN QUERY TREE`), and allows only
 * reads of the served schema that call allowed functions, with no INTO OUTFILE and no SETTINGS.
 * What then runs is the engine's formatted text: exactly what was checked.
 */

/** Runs one statement on the engine and gives its output as text (TSVRaw). */
export type EngineText = (sql: string, params?: Readonly<Record<string, string>>) => Promise<string>;

export interface GuardedStatement {
  /** The text to run: the engine's own formatting of the statement (after a served-schema rewrite). */
  text: string;
  kind: StatementKind;
  /** The statement's FORMAT clause, if any (it wins over a requested format). */
  format: string | null;
}

const FORMAT_STATEMENT = 'SELECT formatQuerySingleLine({statement_text:String}) AS statement';

/** The statement as the engine formats it (one line); a syntax error or a second statement is the engine's error. */
async function engineFormat(engine: EngineText, sql: string): Promise<string> {
  try {
    const out = await engine(`${FORMAT_STATEMENT} FORMAT JSONEachRow`, { statement_text: sql });
    return (JSON.parse(out) as { statement: string }).statement;
  } catch (err) {
    throw cleanFormatError(err);
  }
}

/** One statement of any kind as the engine formats it, on a warehouse connection (`sql --write`). */
export async function engineFormatted(warehouse: Pick<ReadOnlyWarehouse, 'query'>, sql: string): Promise<string> {
  try {
    const [row] = await warehouse.query<{ statement: string }>(FORMAT_STATEMENT, { statement_text: sql });
    return row!.statement;
  } catch (err) {
    throw cleanFormatError(err);
  }
}

/** The engine's message names our wrapper ("In scope SELECT formatQuerySingleLine(…)"): keep only what it said of the statement. */
function cleanFormatError(err: unknown): unknown {
  if (!(err instanceof WarehouseError)) return err;
  const message = err.message.replace(/\s*:?\s*In scope SELECT formatQuerySingleLine[\s\S]*$/, '').replace(/\s*\n\s*in: [\s\S]*$/, '');
  return new WarehouseError(err.kind, message, err.code === undefined ? {} : { code: err.code });
}

const FORMAT_SUFFIX = / FORMAT (`[^`]+`|[A-Za-z0-9_]+)$/;

function refused(why: string): WarehouseError {
  return new WarehouseError('refused', `refused on a read-only connection: ${why}`, { code: 164 });
}

/** Checks `sql` with the engine against `schema`; resolves with what to run, or rejects with a 'refused' WarehouseError. */
export async function guardStatement(
  engine: EngineText,
  sql: string,
  params: Readonly<Record<string, string>>,
  schema: ServedSchema,
): Promise<GuardedStatement> {
  let text = await engineFormat(engine, sql);
  const rewritten = schema.rewrite(text);
  if (rewritten !== text) text = await engineFormat(engine, rewritten);
  try {
    return await check(engine, text, params, schema);
  } catch (err) {
    if (err instanceof Refusal) throw refused(err.message);
    throw err;
  }
}

async function check(
  engine: EngineText,
  text: string,
  params: Readonly<Record<string, string>>,
  schema: ServedSchema,
): Promise<GuardedStatement> {
  const facts = inspectAst(parseAstDump(await engine(`EXPLAIN AST ${text}`, params)));
  if (facts.kind === 'show' && !/^SHOW (FULL )?TABLES\b/.test(text)) throw new Refusal('of the SHOW statements only SHOW TABLES runs here');
  let body = facts.format ? text.replace(FORMAT_SUFFIX, '') : text;
  if (facts.format && body === text) throw new Refusal('the FORMAT clause could not be told apart from the statement');
  if (facts.kind === 'explain') {
    if (!body.startsWith(`${facts.explainKind} `)) throw new Refusal(`the ${facts.explainKind} could not be told apart from its statement`);
    body = body.slice(facts.explainKind!.length + 1);
  }
  const ctes = new Set<string>();
  const analysed: string[] = [];
  if (facts.kind === 'select' || (facts.kind === 'explain' && /^(SELECT|WITH)\b|^\(/.test(body))) {
    const tree = await engine(`EXPLAIN QUERY TREE ${body}`, params);
    for (const m of tree.matchAll(/\bcte_name: ([^,\s]+)/g)) ctes.add(m[1]!);
    analysed.push(...resolvedTables(tree));
  }
  for (const name of [...facts.tables.filter((t) => !ctes.has(t)), ...analysed]) {
    if (!schema.serves(name)) throw new Refusal(`${name} is not served here${schema.hint ? ` (${schema.hint})` : ''}`);
  }
  return { text, kind: facts.kind === 'explain' ? 'explain' : facts.kind, format: facts.format?.replace(/^`|`$/g, '') ?? null };
}
