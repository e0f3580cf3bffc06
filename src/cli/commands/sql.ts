import { Command, Option } from 'commander';
import { UsageError, loadConfig } from '../../config.js';
import { openWarehouse } from '../../warehouse/open.js';
import { WarehouseError } from '../../warehouse/errors.js';

interface SqlFlags {
  dataDir?: string;
  warehouse?: string;
  format: 'json' | 'jsonl';
  param: string[];
}

/** Statements that return rows; anything else (DDL, INSERT, OPTIMIZE, …) runs without a result. */
const RETURNS_ROWS = /^(?:\(|select\b|with\b|show\b|desc\b|describe\b|exists\b|explain\b|check\b|values\b)/i;

function stripLeadingComments(sql: string): string {
  let s = sql.trimStart();
  for (;;) {
    if (s.startsWith('--')) {
      const nl = s.indexOf('\n');
      s = nl < 0 ? '' : s.slice(nl + 1).trimStart();
    } else if (s.startsWith('/*')) {
      const end = s.indexOf('*/');
      s = end < 0 ? '' : s.slice(end + 2).trimStart();
    } else {
      return s;
    }
  }
}

function collectParam(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/** `veronikai sql "<query>"`: runs one statement against the warehouse and prints the rows as JSON. */
export function registerSqlCommand(program: Command): void {
  program
    .command('sql')
    .description('run one SQL statement against the warehouse and print the rows as JSON')
    .argument('<query>', 'one ClickHouse SQL statement; use {name:Type} placeholders with --param')
    .option('--data-dir <dir>', 'local state directory (embedded warehouse lives in <dir>/warehouse)')
    .option('--warehouse <target>', '"embedded" (chdb in the data directory) or the http(s) URL of a ClickHouse server')
    .addOption(
      new Option('--format <format>', 'json: one JSON array; jsonl: one JSON object per line').choices(['json', 'jsonl']).default('json'),
    )
    .option('--param <name=value>', 'value of a {name:Type} placeholder (repeatable)', collectParam, [] as string[])
    .action(async (query: string, flags: SqlFlags) => {
      const params: Record<string, string> = {};
      for (const pair of flags.param) {
        const eq = pair.indexOf('=');
        if (eq <= 0) throw new UsageError(`--param expects name=value, got "${pair}"`);
        params[pair.slice(0, eq)] = pair.slice(eq + 1);
      }
      const config = loadConfig({
        ...(flags.dataDir === undefined ? {} : { dataDir: flags.dataDir }),
        ...(flags.warehouse === undefined ? {} : { warehouse: flags.warehouse }),
      });
      const warehouse = await openWarehouse(config.warehouse).catch(report);
      if (!warehouse) return;
      try {
        const bound = Object.keys(params).length > 0 ? params : undefined;
        if (RETURNS_ROWS.test(stripLeadingComments(query))) {
          const rows = await warehouse.query(query, bound);
          if (flags.format === 'jsonl') {
            for (const row of rows) process.stdout.write(`${JSON.stringify(row)}\n`);
          } else {
            process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
          }
        } else {
          await warehouse.exec(query, bound);
        }
      } catch (err) {
        report(err);
      } finally {
        await warehouse.close();
      }
    });
}

function report(err: unknown): undefined {
  if (err instanceof WarehouseError) {
    process.stderr.write(`veronikai sql: ${err.kind}${err.code === undefined ? '' : ` (code ${err.code})`}: ${err.message}\n`);
    process.exitCode = 1;
    return undefined;
  }
  throw err;
}
