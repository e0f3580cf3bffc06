import { createHash } from 'node:crypto';
import { CHECKER_VERSION } from '../../src/conformance/index.js';
import type { ProbeEvent, ProbeExchange } from '../../src/events/types.js';
import { CURRENT_CHECKER, type Checker } from '../../src/processors/verdicts/checker.js';

/** Probe events and exchanges as a probe worker would record them (test data). */

export function probeExchange(
  role: string,
  url: string,
  status: number | null,
  body = '',
  headers: Record<string, string> = {},
  errorClass: string | null = null,
): ProbeExchange {
  const b = Buffer.from(body);
  return {
    role,
    url,
    status,
    headers,
    body: b,
    bodyTruncated: false,
    bodyBytes: b.length,
    bodySha256: createHash('sha256').update(b).digest('hex'),
    remoteAddress: status === null ? null : '203.0.113.7',
    startedAt: 0,
    durationMs: 42,
    errorClass,
    errorMessage: null,
    retries: 0,
  };
}

export function probeEvent(
  at: number,
  id: string,
  agentKey: string,
  protocol: 'a2a' | 'mcp',
  exchanges: ProbeExchange[],
  extra: Partial<ProbeEvent> = {},
): ProbeEvent {
  return {
    id,
    observedAt: at,
    runId: 'run-1',
    requestId: null,
    agentKey,
    protocol,
    targetUrl: agentKey,
    transport: protocol === 'mcp' ? 'streamable-http' : null,
    inSample: true,
    exchanges,
    robots: 'allowed',
    canary: 'ok',
    errorClass: null,
    retries: 0,
    ...extra,
  };
}

/** A server.json as the official registry serves it, with one streamable-http remote. */
export function serverJsonFor(name: string, description: string, url: string): string {
  return JSON.stringify({
    $schema: 'https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json',
    name,
    description,
    version: '1.0.0',
    repository: { url: `https://github.com/${name}`, source: 'github' },
    remotes: [{ type: 'streamable-http', url }],
  });
}

/** A bumped checker for replay tests: today's plus one changed rule (MCP descriptions under 40 characters fail). */
export const BUMPED_CHECKER: Checker = {
  version: `${CHECKER_VERSION}-test.2`,
  judgeA2A: CURRENT_CHECKER.judgeA2A,
  judgeMcp: (obs, ctx) => {
    const r = CURRENT_CHECKER.judgeMcp(obs, ctx);
    const doc = obs.serverJson as { description?: unknown } | null;
    if (r.verdict.result === 'pass' && typeof doc?.description === 'string' && doc.description.length < 40) {
      return {
        ...r,
        verdict: {
          ...r.verdict,
          checker: `${CHECKER_VERSION}-test.2`,
          result: 'fail',
          reasons: ['TEST-001 /description: shorter than 40 characters', ...r.verdict.reasons],
        },
      };
    }
    return r;
  },
};
