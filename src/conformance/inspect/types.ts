import type { HttpExchange } from '../types.js';

/**
 * Plain-data inputs and outputs of the inspect judgement (`veronikai inspect`). The producer
 * (src/inspect) records every request it made as an InspectExchange, labelled with
 * the step it belonged to; the judge reads them back by step. Nothing here is a class.
 */

export type InspectProtocol = 'mcp' | 'a2a';
export type DetectionState = 'not_detected' | 'indicated' | 'confirmed';
export type McpEra = 'modern' | 'legacy' | 'legacy-sse';
export type Registration = 'cimd' | 'dcr' | 'both' | 'none';

/** The steps a recorded exchange can belong to. */
export type InspectStep =
  | 'mcp.discover'
  | 'mcp.initialize'
  | 'mcp.initialized'
  | 'mcp.tools-list'
  | 'mcp.delete-session'
  | 'mcp.sse-open'
  | 'auth.prm'
  | 'auth.oidc'
  | 'auth.oauth'
  | 'a2a.card'
  | 'a2a.oidc';

/**
 * One request the inspect made, and what came back (bounded, decoded; credentials redacted):
 * an HttpExchange with the request beside it.
 */
export interface InspectExchange extends HttpExchange {
  step: InspectStep;
  method: 'GET' | 'POST' | 'DELETE';
  /** Headers sent, lowercase names; every value the owner passed with --header reads `[redacted]`. */
  requestHeaders: Record<string, string>;
  /** The JSON-RPC text sent (never carries a credential). */
  requestBody?: string;
  /** Bounded, decoded response text. */
  body: string;
  bodyTruncated: boolean;
  /** The HTTP client's error class when the exchange did not complete normally. */
  errorClass: string | null;
  errorMessage: string | null;
  durationMs: number;
  /**
   * Legacy HTTP+SSE only: the JSON-RPC message that answered this POST on the event stream
   * (the `data` of its `message` event), or null when none arrived in time.
   */
  streamReply?: string | null;
  /** mcp.sse-open only: the events read from the stream before the POSTs (name and data). */
  events?: Array<{ event: string; data: string }>;
  /** For an auth step: which candidate form this was (`resource_metadata`, `path-inserted`, `root`, `path-appended`). */
  form?: string;
}

export interface InspectObservation {
  /** The URL the owner gave. */
  input: string;
  /** What was asked for. */
  protocol: 'auto' | InspectProtocol;
  /** Which protocols were inspected (auto: both). */
  inspected: InspectProtocol[];
  exchanges: InspectExchange[];
  /** The owner passed a credential header (its value is never recorded). */
  credentialsSent: boolean;
  /** Requests made, and the budget. */
  requests: number;
  requestBudget: number;
  /** The whole inspect's time limit, and whether it was reached. */
  timeLimitMs: number;
  timedOut: boolean;
  /** The request budget ran out before the inspect finished. */
  budgetExhausted: boolean;
  startedAt: string;
  durationMs: number;
  userAgent: string;
}
