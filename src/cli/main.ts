#!/usr/bin/env node
import { Command, CommanderError } from 'commander';
import { UsageError } from '../config.js';
// Each subcommand lives in its own module under ./commands and registers itself here.
// @register-commands (keep one import + one call per command)
import { registerApiCommand } from './commands/api.js';
import { registerCrawlCommand } from './commands/crawl.js';
import { registerMigrateCommand } from './commands/migrate.js';
import { registerProbeWorkerCommand } from './commands/probe-worker.js';
import { registerProcessCommand } from './commands/process.js';
import { registerRunCommand } from './commands/run.js';
import { registerScheduleCommand } from './commands/schedule.js';
import { registerSqlCommand } from './commands/sql.js';
import { registerStackCommand } from './commands/stack.js';
import { registerCheckCommand } from './commands/check.js';
import { registerProbeCommand } from './commands/probe.js';
import { registerReplayCommand } from './commands/replay.js';
import { registerInspectCommand } from './commands/inspect.js';
import { registerExportCommand } from './commands/export.js';
import { registerReportCommand } from './commands/report.js';
import { registerCensusCommand } from './commands/census.js';
import { registerDisputeCommand } from './commands/dispute.js';

const program = new Command('veronikai')
  .description('VeronikAI: an open index of public AI agents (A2A agents and remote MCP servers)')
  .version('0.1.0')
  .showHelpAfterError()
  .exitOverride();

// @register-calls
registerRunCommand(program);
registerCrawlCommand(program);
registerProcessCommand(program);
registerScheduleCommand(program);
registerProbeWorkerCommand(program);
registerApiCommand(program);
registerMigrateCommand(program);
registerSqlCommand(program);
registerStackCommand(program);
registerCheckCommand(program);
registerProbeCommand(program);
registerReplayCommand(program);
registerInspectCommand(program);
registerExportCommand(program);
registerReportCommand(program);
registerCensusCommand(program);
registerDisputeCommand(program);

try {
  await program.parseAsync(process.argv);
} catch (err) {
  if (err instanceof CommanderError) {
    // help and version exit 0; usage errors exit 2 (commander already printed the message)
    process.exitCode = err.exitCode === 0 ? 0 : 2;
  } else if (err instanceof UsageError) {
    process.stderr.write(`veronikai: ${err.message}\n`);
    process.exitCode = 2;
  } else {
    process.stderr.write(`veronikai: ${(err as Error).stack ?? String(err)}\n`);
    process.exitCode = 1;
  }
}
