import { Option, type Command } from 'commander';
import { UsageError } from '../../config.js';
import { dispute, disputeCandidates, disputeReason, type DisputeOutcome } from '../../runtime/usecases/dispute.js';
import { formatDispute } from '../format.js';
import { addSettings, configured, DATA_DIR_LOCAL_STATE, PLATFORM_SETTINGS } from '../settings.js';

/**
 * `veronikai dispute <agent-url> --reason TEXT [--protocol a2a|mcp] [--json]`: for the operator who
 * received an owner's dispute (Methods §9). Records the dispute and requests an immediate re-probe
 * outside the daily budget (still polite: the probe workers apply robots.txt and every limit); the
 * corrections processor logs the outcome. Talks to the running instance of --data-dir (its broker
 * and warehouse) when there is one, else to --brokers / the local broker.
 *
 * Exit codes: 0 recorded and a probe worker is listening for the re-probe; 1 recorded, but no
 * re-probe was requested (the owner opted out of probing, no URL) or no probe worker is running yet
 * (the request waits in the topic); 2 usage error, or no agent (or several) has that URL.
 */

interface DisputeOptions {
  reason?: string;
  protocol?: 'a2a' | 'mcp';
  json?: boolean;
}

export function registerDisputeCommand(program: Command): void {
  const cmd = program
    .command('dispute')
    .description("record an owner's dispute of a result and re-probe the agent at once, outside the daily budget (Methods §9)")
    .argument('<agent-url>', "the agent's card URL (A2A) or endpoint URL (MCP), its page URL or its short id")
    .requiredOption('--reason <text>', 'what the owner believes is wrong (kept in the corrections log)')
    .addOption(new Option('--protocol <protocol>', 'what the URL is, when it names agents of both protocols').choices(['a2a', 'mcp']))
    .option('--json', 'print the recorded dispute and re-probe request as JSON');
  addSettings(cmd, PLATFORM_SETTINGS, ['optOutFile']).action(async (target: string, opts: DisputeOptions & Record<string, unknown>) => {
    process.exitCode = await runDispute(target, opts);
  });
}

/** 0, or 1 when the dispute was recorded but its re-probe will not (yet) happen. */
export function disputeExitCode(o: DisputeOutcome): number {
  return o.request !== null && o.workersListening ? 0 : 1;
}

async function runDispute(target: string, opts: DisputeOptions & Record<string, unknown>): Promise<number> {
  // Usage first, before anything is opened.
  const reason = disputeReason(String(opts.reason ?? ''));
  if (opts.protocol !== undefined && opts.protocol !== 'a2a' && opts.protocol !== 'mcp')
    throw new UsageError('--protocol must be a2a or mcp');
  disputeCandidates(target, opts.protocol);
  const { config, log } = configured(opts, 'veronikai-dispute', DATA_DIR_LOCAL_STATE);
  const outcome = await dispute(config, log, { target, reason, ...(opts.protocol ? { protocol: opts.protocol } : {}) });
  if (opts.json) {
    const { dispute: d, request, workersListening, kafkaVia } = outcome;
    process.stdout.write(JSON.stringify({ dispute: d, request, workersListening, kafka: kafkaVia }, null, 2) + '\n');
  } else {
    process.stdout.write(formatDispute(outcome).join('\n') + '\n');
  }
  return disputeExitCode(outcome);
}
