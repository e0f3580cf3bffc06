import type { Config } from '../../config.js';
import type { ProbeEvent } from '../../events/types.js';
import { Canary } from '../../producers/canary.js';
import { ProbeEngine } from '../../producers/probe/probe-agent.js';

export interface ProbeOnceOptions {
  protocol: 'a2a' | 'mcp';
  url: string;
  /** Permit loopback targets (local testing); nothing else the guard refuses can be permitted. */
  allowLoopback?: boolean;
  /** Limit on each exchange (ms). */
  timeoutMs?: number;
}

/**
 * One probe outside Kafka, exactly as a probe worker makes it (robots.txt, per-host limits,
 * GET only, bounded reads, SSRF guard). The canary runs only when targets are configured
 * explicitly: without them the event's canary is `unknown`.
 */
export async function probeOnce(config: Config, opts: ProbeOnceOptions): Promise<ProbeEvent> {
  const policy = opts.allowLoopback ? { allowLoopback: true } : {};
  const targets = config.canaryUrls ?? [];
  const canary = targets.length > 0 ? new Canary({ targets, contact: config.contact, ...policy }) : null;
  const engine = new ProbeEngine({
    contact: config.contact,
    ...policy,
    ...(opts.timeoutMs !== undefined ? { timeoutMs: opts.timeoutMs } : {}),
    canary,
  });
  const runId = `cli-${Date.now()}`;
  await engine.beforeRun(runId);
  return engine.probe({ protocol: opts.protocol, url: opts.url, runId });
}
