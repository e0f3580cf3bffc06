import type { ProbeRequestEvent } from '../../src/events/types.js';
import { agentId, agentKey, siteOf } from '../../src/identity/agent-key.js';

/** A sample ProbeRequest for the agent at `url`, as the scheduler sends it (MCP over Streamable HTTP). */
export function probeRequest(protocol: 'a2a' | 'mcp', url: string, runId: string): ProbeRequestEvent {
  const key = agentKey(protocol, protocol === 'a2a' ? { cardUrl: url } : { endpointUrl: url })!;
  return {
    id: `req-${protocol}-${Math.random().toString(36).slice(2)}`,
    observedAt: Date.now(),
    runId,
    agentKey: key,
    agentId: agentId(key),
    protocol,
    site: siteOf(url),
    targetUrl: url,
    transport: protocol === 'mcp' ? 'streamable-http' : null,
    reason: 'sample',
    inSample: true,
  };
}
