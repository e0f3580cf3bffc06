import { once } from 'node:events';
import { Option, type Command } from 'commander';
import ms from 'ms';
import { parseCount, SETTINGS, UsageError } from '../../config.js';
import { runSql } from '../../runtime/usecases/warehouse-tasks.js';
import { WarehouseError } from '../../warehouse/errors.js';
import { SQL_DEFAULT_MAX_ROWS } from '../../warehouse/limits.js';
import { addSettings, configured, DATA_DIR_EMBEDDED_WAREHOUSE, WAREHOUSE_SETTINGS } from '../settings.js';

/** Characters gathered before one write to stdout: one write per row would cost more than the query. */
const OUTPUT_CHUNK = 64 * 1024;

/** Stdout in chunks of about OUTPUT_CHUNK, waiting while its buffer is full, so rows never pile up in memory. */
class Output {
  private pending: string[] = [];
  private size = 0;

  /** Adds text; written at the next flush, or now when a chunk's worth is waiting. */
  add(text: string): void {
    this.pending.push(text);
    this.size += text.length;
    if (this.size >= OUTPUT_CHUNK) this.writeOut();
  }

  /** Writes what is waiting and resolves when stdout can take more. */
  async flush(): Promise<void> {
    this.writeOut();
    if (process.stdout.writableNeedDrain) await once(process.stdout, 'drain');
  }

  private writeOut(): void {
    if (this.size === 0) return;
    process.stdout.write(this.pending.join(''));
    this.pending = [];
    this.size = 0;
  }
}

/** `veronikai sql "<query>"`: runs one statement against the warehouse and streams the rows as JSON. */
export function registerSqlCommand(program: Command): void {
  const cmd = program
    .command('sql')
    .description('run one SQL statement against the warehouse and print the rows as JSON (read-only unless --write)')
    .argument('<query>', 'one ClickHouse SQL statement; use {name:Type} placeholders with --param')
    .addHelpText(
      'after',
      `
Read-only by default: the statement runs on a connection with readonly=1 and must be
one SELECT, WITH, SHOW, DESCRIBE, EXISTS or EXPLAIN, without INTO OUTFILE and without
functions that reach files or the network (file, url, s3, remote, mysql, …).
--write runs any one statement (DDL, INSERT, …) on a writing connection.
Rows are streamed as they come; at most ${SQL_DEFAULT_MAX_ROWS} unless --max-rows says otherwise.
A read stops at its deadline (--sql-timeout, default ${SETTINGS.sqlTimeout.default}); --write statements have none.`,
    );
  addSettings(cmd, WAREHOUSE_SETTINGS, ['sqlTimeout'])
    .addOption(
      new Option('--format <format>', 'json: one JSON array; jsonl: one JSON object per line').choices(['json', 'jsonl']).default('json'),
    )
    .option(
      '--param <name=value>',
      'value of a {name:Type} placeholder (repeatable)',
      (v: string, prev: string[]) => [...prev, v],
      [] as string[],
    )
    .option('--max-rows <n>', `print at most n rows (0: no limit); stderr says when the limit cut the output`, String(SQL_DEFAULT_MAX_ROWS))
    .option('--write', 'run on a writing connection: DDL, INSERT and other changes are allowed', false)
    .action(async (query: string, opts: Record<string, unknown>) => {
      const params: Record<string, string> = {};
      for (const pair of opts.param as string[]) {
        const eq = pair.indexOf('=');
        if (eq <= 0) throw new UsageError(`--param expects name=value, got "${pair}"`);
        params[pair.slice(0, eq)] = pair.slice(eq + 1);
      }
      const maxRows = parseCount(opts.maxRows as string, '--max-rows');
      const { config } = configured(opts, 'veronikai-sql', DATA_DIR_EMBEDDED_WAREHOUSE);
      const jsonl = opts.format === 'jsonl';
      let opened = false;
      const out = new Output();
      try {
        const outcome = await runSql(
          config,
          query,
          {
            ...(Object.keys(params).length > 0 ? { params } : {}),
            write: opts.write === true,
            maxRows,
            onStaleInstance: (note) => void process.stderr.write(`veronikai sql: ${note}\n`),
          },
          async (rows) => {
            for (const row of rows) {
              if (jsonl) out.add(`${JSON.stringify(row)}\n`);
              else {
                // The same text as JSON.stringify(rows, null, 2), one row at a time.
                out.add(`${opened ? ',' : '['}\n  ${JSON.stringify(row, null, 2).replace(/\n/g, '\n  ')}`);
                opened = true;
              }
            }
            await out.flush();
          },
        );
        if (!jsonl && outcome.returnedRows) out.add(opened ? '\n]\n' : '[]\n');
        await out.flush();
        if (outcome.truncated) {
          process.stderr.write(
            `veronikai sql: output stopped after ${outcome.rows} rows (--max-rows ${maxRows}); --max-rows 0 prints every row\n`,
          );
        }
      } catch (err) {
        await out.flush();
        if (!(err instanceof WarehouseError)) throw err;
        const hint =
          err.kind === 'timeout' && opts.write !== true
            ? ` (the deadline is --sql-timeout ${ms(config.sqlTimeoutMs)}; raise it for a longer read)`
            : '';
        process.stderr.write(`veronikai sql: ${err.kind}${err.code === undefined ? '' : ` (code ${err.code})`}: ${err.message}${hint}\n`);
        process.exitCode = 1;
      }
    });
}
