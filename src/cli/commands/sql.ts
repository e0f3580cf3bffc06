import { Option, type Command } from 'commander';
import { UsageError } from '../../config.js';
import { runSql } from '../../runtime/warehouse-tasks.js';
import { WarehouseError } from '../../warehouse/errors.js';
import { addSettings, configured, WAREHOUSE_SETTINGS } from '../settings.js';

/** `veronikai sql "<query>"`: runs one statement against the warehouse and prints the rows as JSON. */
export function registerSqlCommand(program: Command): void {
  const cmd = program
    .command('sql')
    .description('run one SQL statement against the warehouse and print the rows as JSON')
    .argument('<query>', 'one ClickHouse SQL statement; use {name:Type} placeholders with --param');
  addSettings(cmd, WAREHOUSE_SETTINGS)
    .addOption(new Option('--format <format>', 'json: one JSON array; jsonl: one JSON object per line').choices(['json', 'jsonl']).default('json'))
    .option('--param <name=value>', 'value of a {name:Type} placeholder (repeatable)', (v: string, prev: string[]) => [...prev, v], [] as string[])
    .action(async (query: string, opts: Record<string, unknown>) => {
      const params: Record<string, string> = {};
      for (const pair of opts.param as string[]) {
        const eq = pair.indexOf('=');
        if (eq <= 0) throw new UsageError(`--param expects name=value, got "${pair}"`);
        params[pair.slice(0, eq)] = pair.slice(eq + 1);
      }
      const { config } = configured(opts, 'veronikai-sql');
      try {
        const rows = await runSql(config, query, Object.keys(params).length > 0 ? params : undefined);
        if (rows === null) return;
        if (opts.format === 'jsonl') {
          for (const row of rows) process.stdout.write(`${JSON.stringify(row)}\n`);
        } else {
          process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
        }
      } catch (err) {
        if (!(err instanceof WarehouseError)) throw err;
        process.stderr.write(`veronikai sql: ${err.kind}${err.code === undefined ? '' : ` (code ${err.code})`}: ${err.message}\n`);
        process.exitCode = 1;
      }
    });
}
