import { CheckList } from '../../../inspect/checks.js';
import type { InspectExchange } from '../../../inspect/types.js';
import { judgeAuth } from '../auth/index.js';
import { INSPECT_SET } from '../rules.js';
import { NO_DEPRECATED } from './capabilities.js';
import { DISCOVER_COMPLETE } from './handshake.js';
import type { McpJudgeInput, McpJudgement } from './input.js';
import { INITIALIZED_ACCEPTED } from './session.js';
import { TOOLS_LIST } from './tools.js';

/**
 * The MCP half of an inspect, judged from the recorded exchanges: the state (not_detected,
 * indicated, confirmed), the era (modern, legacy, legacy-sse), the handshake checks of each
 * era, the tool list (twice: order, and a hash of each tool's definition), cache metadata,
 * extensions, deprecations, and the authorization discovery after a 401/403.
 */

/** The groups of MCP rules, in the order a client meets what they judge: each group's check runs once. */
const GROUPS = [DISCOVER_COMPLETE, INITIALIZED_ACCEPTED, NO_DEPRECATED, TOOLS_LIST];

export function judgeMcp(endpoint: string, all: InspectExchange[]): McpJudgement {
  const checks = new CheckList('mcp', INSPECT_SET);
  const input: McpJudgeInput = {
    checks,
    endpoint,
    ex: all.filter((e) => e.step.startsWith('mcp.') || e.step.startsWith('auth.')),
    summary: { state: 'not_detected', era: null, toolsListStable: null, cacheMetadata: null, extensions: [], auth: null },
    detail: { serverInfo: null, protocolVersion: null, supportedVersions: [], tools: [], toolsChanged: [] },
    signal: false,
    confirmed: false,
    capabilities: null,
    capsFrom: null,
  };
  for (const group of GROUPS) group.check(input);
  const { summary } = input;
  const challenged = input.ex.find((e) => e.step.startsWith('mcp.') && (e.status === 401 || e.status === 403));
  if (challenged) {
    summary.auth = judgeAuth(endpoint, challenged, input.ex, checks);
    // A protected endpoint that says so the MCP way (Bearer challenge or RFC 9728 metadata) is a signal.
    if (summary.auth.resourceMetadataUrl !== null || /bearer/i.test(challenged.headers['www-authenticate'] ?? '')) input.signal = true;
  }
  summary.state = input.confirmed ? 'confirmed' : input.signal ? 'indicated' : 'not_detected';
  if (!input.confirmed) {
    summary.toolsListStable = null;
    summary.cacheMetadata = null;
  }
  return { summary, checks: checks.list, detail: input.detail };
}

export type { McpJudgement, McpSummary, ToolHash } from './input.js';
