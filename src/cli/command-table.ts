import type { Command } from 'commander';

/**
 * The CLI's commands: one entry per command, its name and a one-line summary for
 * `veronikai --help`, and the import of its module under ./commands. Reading the table imports
 * no command: `main.ts` imports only the invoked command's module, so `check` on one card never
 * loads the warehouse engine, Kafka or the API that other commands need.
 */

export type RegisterCommand = (program: Command) => void;

export interface CommandEntry {
  readonly name: string;
  /** Shown in the command list of `veronikai --help`; the command's own help has its full description. */
  readonly summary: string;
  /** Imports the command's module and returns its register function. */
  readonly load: () => Promise<RegisterCommand>;
}

// One entry per command, in the order `veronikai --help` lists them.
export const COMMANDS: readonly CommandEntry[] = [
  {
    name: 'run',
    summary: 'run everything in one process: local Kafka broker, embedded ClickHouse, listing sources, processors and the API',
    load: async () => (await import('./commands/run.js')).registerRunCommand,
  },
  {
    name: 'crawl',
    summary: 'read the listing sources once (or every --every) into the Kafka topics',
    load: async () => (await import('./commands/crawl.js')).registerCrawlCommand,
  },
  {
    name: 'process',
    summary: 'run stream processors until stopped',
    load: async () => (await import('./commands/process.js')).registerProcessCommand,
  },
  {
    name: 'schedule',
    summary: 'plan and emit a daily run of probes (once, or every --every), then record what it did',
    load: async () => (await import('./commands/schedule.js')).registerScheduleCommand,
  },
  {
    name: 'probe-worker',
    summary: 'consume probe requests and emit probe events until stopped',
    load: async () => (await import('./commands/probe-worker.js')).registerProbeWorkerCommand,
  },
  {
    name: 'api',
    summary: 'serve the read API and the dashboard from ClickHouse',
    load: async () => (await import('./commands/api.js')).registerApiCommand,
  },
  {
    name: 'migrate',
    summary: 'apply pending ClickHouse migrations',
    load: async () => (await import('./commands/migrate.js')).registerMigrateCommand,
  },
  {
    name: 'sql',
    summary: 'run one SQL statement against the warehouse and print the rows as JSON',
    load: async () => (await import('./commands/sql.js')).registerSqlCommand,
  },
  {
    name: 'stack',
    summary: 'the local Kafka (KRaft): one broker, or a cluster of nodes on one machine',
    load: async () => (await import('./commands/stack.js')).registerStackCommand,
  },
  {
    name: 'check',
    summary: 'check an A2A agent card, an MCP server.json, an Agent Plugins package or a live URL',
    load: async () => (await import('./commands/check.js')).registerCheckCommand,
  },
  {
    name: 'probe',
    summary: 'probe one agent once, outside Kafka, and print the probe event',
    load: async () => (await import('./commands/probe.js')).registerProbeCommand,
  },
  {
    name: 'replay',
    summary: "replay the probes topic through this build's checker and compare the verdicts",
    load: async () => (await import('./commands/replay.js')).registerReplayCommand,
  },
  {
    name: 'inspect',
    summary: 'inspect your own MCP server or A2A agent as a client would',
    load: async () => (await import('./commands/inspect.js')).registerInspectCommand,
  },
  {
    name: 'export',
    summary: 'write a snapshot of the index with a manifest of row counts and checksums',
    load: async () => (await import('./commands/export.js')).registerExportCommand,
  },
  {
    name: 'search',
    summary: 'search the index by what agents do (ranked, with facets)',
    load: async () => (await import('./commands/search.js')).registerSearchCommand,
  },
  { name: 'report', summary: 'reports from the index', load: async () => (await import('./commands/report.js')).registerReportCommand },
  {
    name: 'census',
    summary: "probe a list of hosts at the A2A card paths and report the frame's census",
    load: async () => (await import('./commands/census.js')).registerCensusCommand,
  },
  {
    name: 'dispute',
    summary: "record an owner's dispute of a result and re-probe the agent at once",
    load: async () => (await import('./commands/dispute.js')).registerDisputeCommand,
  },
  {
    name: 'verify',
    summary: 'check every stored verdict against its signed batch head and the public key',
    load: async () => (await import('./commands/verify.js')).registerVerifyCommand,
  },
];

export function findCommand(name: string): CommandEntry | undefined {
  return COMMANDS.find((c) => c.name === name);
}

/**
 * The command a command line invokes: its first word that is not an option (the program has no
 * option that takes a value), or the word after `help`. Undefined for `--help`, `--version` or
 * no command at all.
 */
export function invokedCommand(args: readonly string[]): string | undefined {
  const words = args.filter((a) => !a.startsWith('-'));
  return words[0] === 'help' ? words[1] : words[0];
}
