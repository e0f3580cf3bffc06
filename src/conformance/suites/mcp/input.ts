import type { VerdictRecorder } from '../../findings.js';
import type { McpObservation } from '../../types.js';

/**
 * What the rules of suite veronikai-mcp-conformance read: the server.json (as text or as a
 * value; MCP-Q-001 parses the text) for the quality rules, the probe's one GET for the transport
 * rules.
 */
export interface McpInput {
  rec: VerdictRecorder;
  /** The server.json text, or null when it was given as a value (or is absent). */
  text: string | null;
  validUtf8: boolean;
  /** The server.json as a value: given, or parsed from the text by MCP-Q-001. */
  doc: unknown;
  /** The probe (transport rules only). */
  obs: McpObservation | null;
  /** The remotes the server.json declares (for MCP-T-103); none without a server.json. */
  declared: Array<{ type: string; url: string }>;
  /** Set by the transport rules: whether the GET could be judged, and why not. */
  transport?: TransportOutcome;
}

export type TransportOutcome = { kind: 'judged' } | { kind: 'not-run'; reason: string } | { kind: 'unknown'; reason: string };
