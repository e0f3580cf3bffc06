import type { CheckList, InspectCheck } from '../../../inspect/checks.js';
import type { DetectionState, InspectExchange, McpEra } from '../../../inspect/types.js';
import type { JsonObject } from '../../../../core/json-util.js';
import type { AuthSummary } from '../auth/input.js';

export interface McpSummary {
  state: DetectionState;
  era: McpEra | null;
  toolsListStable: boolean | null;
  cacheMetadata: boolean | null;
  extensions: string[];
  auth: AuthSummary | null;
}

export interface ToolHash {
  name: string;
  /** sha256 of the canonical JSON of the tool's definition (as the first tools/list returned it). */
  sha256: string;
}

export interface McpJudgement {
  summary: McpSummary;
  checks: InspectCheck[];
  /** Detail kept for later scans: the server's self-description and each tool's hash. */
  detail: {
    serverInfo: JsonObject | null;
    protocolVersion: string | null;
    supportedVersions: string[];
    tools: ToolHash[];
    toolsChanged: string[];
  };
}

/** What the MCP rules of the inspect read (the recorded exchanges) and what they found so far. */
export interface McpJudgeInput {
  checks: CheckList;
  /** The URL the owner gave. */
  endpoint: string;
  /** The MCP and authorization exchanges. */
  ex: InspectExchange[];
  summary: McpSummary;
  detail: McpJudgement['detail'];
  /** Something answered the MCP way. */
  signal: boolean;
  /** A handshake completed with a complete result. */
  confirmed: boolean;
  capabilities: JsonObject | null;
  /** The exchange the capabilities were read from: the evidence of the checks on them. */
  capsFrom: InspectExchange | null;
}
