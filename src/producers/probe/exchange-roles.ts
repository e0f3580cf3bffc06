/** What each exchange of a probe event was: the http client's Exchange given its role in the probe. */
import type { ProbeExchange } from '../../events/types.js';
import { REDIRECT_STATUSES, type Exchange } from '../../http/types.js';
import type { A2ACardChainResult, A2AChainStepKind } from './a2a-chain.js';
import type { McpProbeResult } from './mcp-get.js';

/** What each exchange of a probe event was. `robots` only appears as evidence of an unreachable robots.txt. */
export type ExchangeRole = 'card' | 'well-known' | 'legacy' | 'mcp-get' | 'resource-metadata' | 'redirect' | 'robots';

const STEP_ROLE: Record<A2AChainStepKind, ExchangeRole> = {
  listing: 'card',
  'agent-card': 'well-known',
  'legacy-agent-card': 'legacy',
};

/** The http client's Exchange → the event's ProbeExchange. */
export function toProbeExchange(ex: Exchange, role: ExchangeRole): ProbeExchange {
  const startedAt = Date.parse(ex.startedAt);
  return {
    role,
    url: ex.url,
    status: ex.status,
    headers: { ...ex.headers },
    body: ex.body,
    bodyTruncated: ex.bodyTruncated,
    bodyBytes: ex.bodyBytes,
    bodySha256: ex.bodySha256,
    bodyKept: 'whole',
    remoteAddress: ex.remoteAddress,
    startedAt: Number.isFinite(startedAt) ? startedAt : 0,
    durationMs: Math.max(0, Math.min(Math.round(ex.durationMs), 2 ** 31 - 1)),
    errorClass: ex.errorClass,
    errorMessage: ex.errorMessage,
    retries: ex.retries,
  };
}

/** Roles of one fetch's hops: every hop but the last was a redirect. */
export function hopRoles(exchanges: Exchange[], role: ExchangeRole): ProbeExchange[] {
  return exchanges.map((e, i) => toProbeExchange(e, i < exchanges.length - 1 ? 'redirect' : role));
}

/** A2A chain exchanges with roles: card (listing URL), well-known, legacy, and redirect hops. */
export function a2aExchanges(chain: A2ACardChainResult): ProbeExchange[] {
  return chain.steps.flatMap((s) => hopRoles(s.exchanges, STEP_ROLE[s.kind]));
}

/** MCP exchanges with roles: mcp-get, resource-metadata, and redirect hops. */
export function mcpExchanges(res: McpProbeResult): ProbeExchange[] {
  const out = hopRoles(res.exchanges, 'mcp-get');
  const meta = res.metadataExchanges;
  meta.forEach((e, i) => {
    const next = meta[i + 1];
    let followed = false;
    if (next && e.status !== null && REDIRECT_STATUSES.has(e.status) && e.headers.location !== undefined) {
      try {
        followed = new URL(e.headers.location, e.url).href === next.url;
      } catch {
        followed = false;
      }
    }
    out.push(toProbeExchange(e, followed ? 'redirect' : 'resource-metadata'));
  });
  return out;
}
