/**
 * The HTTP side of `veronikai inspect`: speaks MCP (both eras) and fetches the A2A card as a
 * client would, within one session's request budget and time limit, through the SSRF guard,
 * byte caps and pinned connections of src/http. Observes; the judgement is
 * src/conformance/inspect.
 */
import type { InspectObservation, InspectProtocol } from '../conformance/inspect/types.js';
import { inspectA2A } from './a2a.js';
import { inspectMcp } from './mcp.js';
import { InspectSession, type InspectSettings } from './session.js';

export { InspectSession, type InspectSettings } from './session.js';

export async function observeInspect(
  input: string,
  protocol: 'auto' | InspectProtocol,
  settings: InspectSettings,
): Promise<InspectObservation> {
  const startedAt = new Date().toISOString();
  const s = new InspectSession(settings, input);
  const inspected: InspectProtocol[] = protocol === 'auto' ? ['mcp', 'a2a'] : [protocol];
  if (inspected.includes('mcp')) await inspectMcp(s, input);
  if (inspected.includes('a2a')) await inspectA2A(s, input);
  return {
    input,
    protocol,
    inspected,
    exchanges: s.exchanges,
    credentialsSent: Object.keys(settings.ownerHeaders).length > 0,
    requests: s.requests,
    requestBudget: settings.requestBudget,
    timeLimitMs: settings.timeLimitMs,
    timedOut: s.timedOut,
    budgetExhausted: s.budgetExhausted,
    startedAt,
    durationMs: s.elapsedMs,
    userAgent: settings.userAgent,
  };
}
