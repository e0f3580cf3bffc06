import { Command } from 'commander';
import { loadConfig } from '../../config.js';
import { createLogger } from '../../log.js';
import { migrate, MigrationError } from '../../warehouse/migrate.js';
import { openWarehouse } from '../../warehouse/open.js';
import { WarehouseError } from '../../warehouse/errors.js';

interface MigrateFlags {
  dataDir?: string;
  warehouse?: string;
  dryRun?: boolean;
}

/** `veronikai migrate`: applies the pending clickhouse/NNNN_*.sql migrations, idempotently. */
export function registerMigrateCommand(program: Command): void {
  program
    .command('migrate')
    .description('apply pending ClickHouse migrations (clickhouse/NNNN_*.sql); a second run applies nothing')
    .option('--data-dir <dir>', 'local state directory (embedded warehouse lives in <dir>/warehouse)')
    .option('--warehouse <target>', '"embedded" (chdb in the data directory) or the http(s) URL of a ClickHouse server')
    .option('--dry-run', 'only list the migrations that would be applied')
    .action(async (flags: MigrateFlags) => {
      const config = loadConfig({
        ...(flags.dataDir === undefined ? {} : { dataDir: flags.dataDir }),
        ...(flags.warehouse === undefined ? {} : { warehouse: flags.warehouse }),
      });
      const logger = createLogger('migrate');
      const warehouse = await openWarehouse(config.warehouse, { createDatabase: !flags.dryRun }).catch(fail);
      if (!warehouse) return;
      try {
        const result = await migrate(warehouse, { logger, ...(flags.dryRun ? { dryRun: true } : {}) });
        const verb = flags.dryRun ? 'would apply' : 'applied';
        for (const m of result.applied) {
          process.stdout.write(`${verb} ${String(m.version).padStart(4, '0')}_${m.name}\n`);
        }
        process.stdout.write(
          `${result.applied.length} ${verb}, ${result.alreadyApplied} already applied` +
            (result.missingFiles.length > 0 ? `, ${result.missingFiles.length} applied without a file` : '') +
            '\n',
        );
      } catch (err) {
        fail(err);
      } finally {
        await warehouse.close();
      }
    });
}

/** Known failures are reported in one line with exit code 1; anything else propagates to main. */
function fail(err: unknown): undefined {
  if (err instanceof MigrationError || err instanceof WarehouseError) {
    process.stderr.write(`veronikai migrate: ${err.message}\n`);
    process.exitCode = 1;
    return undefined;
  }
  throw err;
}
