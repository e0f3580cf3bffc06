import type { Command } from 'commander';
import { migrateWarehouse } from '../../runtime/usecases/warehouse-tasks.js';
import { MigrationError } from '../../warehouse/migrate.js';
import { WarehouseError } from '../../warehouse/errors.js';
import { say } from '../format.js';
import { addSettings, configured, DATA_DIR_EMBEDDED_WAREHOUSE, WAREHOUSE_SETTINGS } from '../settings.js';

/** `veronikai migrate`: applies the pending clickhouse/NNNN_*.sql migrations, idempotently. */
export function registerMigrateCommand(program: Command): void {
  const cmd = program
    .command('migrate')
    .description('apply pending ClickHouse migrations (clickhouse/NNNN_*.sql); a second run applies nothing');
  addSettings(cmd, WAREHOUSE_SETTINGS)
    .option('--dry-run', 'only list the migrations that would be applied')
    .action(async (opts: Record<string, unknown>) => {
      const { config, log } = configured(opts, 'veronikai-migrate', DATA_DIR_EMBEDDED_WAREHOUSE);
      const dryRun = Boolean(opts.dryRun);
      try {
        const result = await migrateWarehouse(config, log, dryRun);
        const verb = dryRun ? 'would apply' : 'applied';
        for (const m of result.applied) say(`${verb} ${String(m.version).padStart(4, '0')}_${m.name}`);
        say(
          `${result.applied.length} ${verb}, ${result.alreadyApplied} already applied` +
            (result.missingFiles.length > 0 ? `, ${result.missingFiles.length} applied without a file` : ''),
        );
      } catch (err) {
        // Known failures are reported in one line with exit code 1; anything else propagates to main.
        if (!(err instanceof MigrationError || err instanceof WarehouseError)) throw err;
        process.stderr.write(`veronikai migrate: ${err.message}\n`);
        process.exitCode = 1;
      }
    });
}
