import { Option, type Command } from 'commander';
import { parseSinceDate } from '../../runtime/usecases/export.js';
import { censusReport } from '../../runtime/usecases/report.js';
import { renderCensusHtml, renderCensusMarkdown } from '../../stats/census-report.js';
import { WarehouseError } from '../../warehouse/errors.js';
import { addSettings, configured, DATA_DIR_EMBEDDED_WAREHOUSE, WAREHOUSE_SETTINGS } from '../settings.js';

/** `veronikai report census`: the census tables from the index's own data. */
export function registerReportCommand(program: Command): void {
  const report = program.command('report').description('reports from the index');
  const cmd = report
    .command('census')
    .description(
      'the census of A2A cards (docs/CENSUS.md: routes, versions, tolerant_valid, alternative verdicts, defects) with per-source coverage, overlap and outcomes',
    )
    .addHelpText(
      'after',
      "\nCounts are a census of the cards judged that day; shares are estimates from the day's uniform sample only, with 95% Wilson intervals.",
    );
  addSettings(cmd, WAREHOUSE_SETTINGS)
    .option('--date <date>', 'UTC day (YYYY-MM-DD); default the newest day with verdicts')
    .addOption(new Option('--format <format>', 'output').choices(['md', 'json', 'html']).default('md'))
    .action(async (opts: Record<string, unknown>) => {
      const day = typeof opts.date === 'string' ? parseSinceDate(opts.date, '--date') : null;
      const { config } = configured(opts, 'veronikai-report', DATA_DIR_EMBEDDED_WAREHOUSE);
      try {
        const r = await censusReport(config, { day });
        const text =
          opts.format === 'json'
            ? `${JSON.stringify(r, null, 2)}\n`
            : opts.format === 'html'
              ? renderCensusHtml(r)
              : renderCensusMarkdown(r);
        process.stdout.write(text);
      } catch (err) {
        if (!(err instanceof WarehouseError)) throw err;
        process.stderr.write(`veronikai report: ${err.kind}${err.code === undefined ? '' : ` (code ${err.code})`}: ${err.message}\n`);
        process.exitCode = 1;
      }
    });
}
