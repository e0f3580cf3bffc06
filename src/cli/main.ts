#!/usr/bin/env node
import { readFileSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
// The command table (./command-table.ts) names every command; only the invoked command's module
// is imported, and `--help` lists the commands from the table alone.
// @register-commands: one entry per command in COMMANDS (./command-table.ts)
import { COMMANDS, findCommand, invokedCommand } from './command-table.js';

/** The version of the package this CLI runs from (src/cli and dist/cli are both two levels down). */
function packageVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version?: unknown };
    return typeof pkg.version === 'string' ? pkg.version : 'unknown';
  } catch {
    return 'unknown';
  }
}

const program = new Command('veronikai')
  .description('VeronikAI: an open index of public AI agents (A2A agents and remote MCP servers)')
  .version(packageVersion())
  .showHelpAfterError()
  .exitOverride();

try {
  const entry = findCommand(invokedCommand(process.argv.slice(2)) ?? '');
  if (entry) (await entry.load())(program);
  // No known command (help, --version, a mistyped name): list the table, loading no module.
  else for (const c of COMMANDS) program.command(c.name).summary(c.summary);
  await program.parseAsync(process.argv);
} catch (err) {
  if (err instanceof CommanderError) {
    // help and version exit 0; usage errors exit 2 (commander already printed the message)
    process.exitCode = err.exitCode === 0 ? 0 : 2;
  } else if (err instanceof (await import('../config.js')).UsageError) {
    // Imported here, not above: `--help` and `--version` need none of the configuration's modules.
    process.stderr.write(`veronikai: ${err.message}\n`);
    process.exitCode = 2;
  } else {
    process.stderr.write(`veronikai: ${(err as Error).stack ?? String(err)}\n`);
    process.exitCode = 1;
  }
}
