import { Option, type Command } from 'commander';
import { EXPORT_FORMATS, exportSnapshot, parseSinceDate, type ExportFormat } from '../../runtime/usecases/export.js';
import { WarehouseError } from '../../warehouse/errors.js';
import { say } from '../format.js';
import { addSettings, configured, DATA_DIR_EMBEDDED_WAREHOUSE, WAREHOUSE_SETTINGS } from '../settings.js';

/** `veronikai export`: a reproducible snapshot of the index. */
export function registerExportCommand(program: Command): void {
  const cmd = program
    .command('export')
    .description(
      'write a snapshot of the index (agents, listings and their history, checks, verdicts, daily rollups, per-agent daily history, judged documents) with a manifest of row counts and SHA-256 checksums',
    )
    .addHelpText(
      'after',
      `
Files are written by the ClickHouse engine itself, each ordered by its table's dedupe key, so
exporting the same data again gives the same checksums (manifest.json, SHA256SUMS). While
\`run\` or \`api\` holds the data directory, the queries go to it.`,
    );
  addSettings(cmd, WAREHOUSE_SETTINGS)
    .requiredOption('--out <dir>', 'directory to write the snapshot into')
    .addOption(new Option('--format <format>', 'file format').choices(Object.keys(EXPORT_FORMATS)).default('parquet'))
    .option('--since <date>', 'checks, verdicts and daily tables from this UTC day on (YYYY-MM-DD); agents, listings and documents whole')
    .action(async (opts: Record<string, unknown>) => {
      const since = typeof opts.since === 'string' ? parseSinceDate(opts.since) : null;
      const { config } = configured(opts, 'veronikai-export', DATA_DIR_EMBEDDED_WAREHOUSE);
      try {
        const m = await exportSnapshot(config, { out: String(opts.out), format: opts.format as ExportFormat, since });
        for (const f of m.files) say(`${f.file}: ${f.rows} row(s), ${f.bytes} bytes, sha256 ${f.sha256}`);
        say(
          `snapshot of checker ${m.checkerVersion ?? '(none yet)'} written to ${String(opts.out)} (manifest.json, SHA256SUMS)${m.via === 'instance' ? ' through the running instance' : ''}`,
        );
      } catch (err) {
        if (!(err instanceof WarehouseError)) throw err;
        process.stderr.write(`veronikai export: ${err.kind}${err.code === undefined ? '' : ` (code ${err.code})`}: ${err.message}\n`);
        process.exitCode = 1;
      }
    });
}
