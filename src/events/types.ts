/**
 * TypeScript shapes of the Avro events in schemas/avro (one interface per .avsc).
 * Times are epoch milliseconds (Avro timestamp-millis).
 */
export interface SourceFetchEvent {
  id: string;
  observedAt: number;
  runId: string;
  source: string;
  url: string;
  page: number;
  cursor: string | null;
  mode: 'incremental' | 'full' | string;
  status: number | null;
  ok: boolean;
  notModified: boolean;
  etag: string | null;
  itemCount: number;
  invalidItemCount: number;
  nextCursor: string | null;
  bytes: number;
  gate: string;
  durationMs: number;
  errorClass: string | null;
  error: string | null;
}

export interface ListingEvent {
  id: string;
  observedAt: number;
  runId: string;
  fetchId: string;
  source: string;
  itemId: string;
  protocol: 'a2a' | 'mcp';
  name: string;
  description: string;
  version: string | null;
  endpointUrl: string | null;
  endpointTransport: string | null;
  cardUrl: string | null;
  serverJson: string | null;
  status: 'active' | 'deprecated' | 'deleted' | 'invalid' | string;
  invalidReason: string | null;
  updatedAt: string | null;
  raw: string;
  rawTruncated: boolean;
}

export interface ProbeRequestEvent {
  id: string;
  observedAt: number;
  runId: string;
  agentKey: string;
  agentId: string;
  protocol: 'a2a' | 'mcp';
  site: string;
  targetUrl: string;
  transport: string | null;
  reason: 'sample' | 'overdue' | 'new' | 'changed' | 'due' | 'dispute';
  inSample: boolean;
}

/**
 * What a probe exchange's `body` holds (we do not store probe response bodies):
 * - `whole`: the bounded body as read; only events written before this field existed (its default);
 * - `excerpt`: the first bytes of the MCP answer that the transport rules read;
 * - `document`: nothing; the body is a public document in the documents topic, keyed by `bodySha256`;
 * - `none`: nothing is kept (error pages, HTML, redirect and robots.txt bodies).
 */
export type BodyKept = 'whole' | 'excerpt' | 'document' | 'none';

export interface ProbeExchange {
  role: string;
  url: string;
  status: number | null;
  /** The response headers the judgement reads (older events: every recorded header). */
  headers: Record<string, string>;
  /** What `bodyKept` says; empty for `document` and `none`. */
  body: Buffer;
  /** The response was longer than what was read, or (`excerpt`) than the excerpt kept. */
  bodyTruncated: boolean;
  bodyBytes: number;
  /** SHA-256 of the body as read: a `document`'s key in the documents topic. */
  bodySha256: string;
  /** Absent on exchanges built in memory before keeping (read as `whole`). */
  bodyKept?: BodyKept;
  remoteAddress: string | null;
  startedAt: number;
  durationMs: number;
  errorClass: string | null;
  errorMessage: string | null;
  retries: number;
}

export interface ProbeEvent {
  id: string;
  observedAt: number;
  runId: string;
  requestId: string | null;
  agentKey: string;
  protocol: 'a2a' | 'mcp';
  targetUrl: string;
  transport: string | null;
  inSample: boolean;
  exchanges: ProbeExchange[];
  robots: 'allowed' | 'disallowed' | 'unreachable' | 'not_checked';
  canary: 'ok' | 'failed' | 'unknown';
  errorClass: string | null;
  retries: number;
}

export interface CanaryEvent {
  id: string;
  observedAt: number;
  runId: string | null;
  target: string;
  ok: boolean;
  status: number | null;
  durationMs: number;
  errorClass: string | null;
}

export interface RunEvent {
  id: string;
  observedAt: number;
  runId: string;
  kind: 'crawl' | 'daily' | 'replay' | string;
  phase: 'start' | 'finish';
  budget: number | null;
  sampleSize: number | null;
  seed: string | null;
  counts: Record<string, number>;
  complete: boolean;
  note: string | null;
}

/** A public document a probe judged, keyed by the SHA-256 of its bytes (the compacted documents topic). */
export interface DocumentEvent {
  sha256: string;
  body: Buffer;
  observedAt: number;
  url: string;
}

export type AgentChangeKind = 'down' | 'up' | 'verdict' | 'listed' | 'delisted' | 'corrected';

/** A change watchers hear about (feeds, webhooks); its id is a function of its cause (schemas/avro/agent-change.avsc). */
export interface AgentChangeEvent {
  id: string;
  observedAt: number;
  kind: AgentChangeKind;
  agentKey: string;
  agentId: string;
  protocol: 'a2a' | 'mcp';
  name: string;
  checkerVersion: string;
  causeEventId: string;
  fromState: string | null;
  toState: string | null;
  summary: string;
  reasons: string[];
}

export type WebhookDeliveryStatus = 'delivered' | 'dead' | 'refused' | 'stale' | 'hidden';

/** The final outcome of delivering one change to one webhook subscription (schemas/avro/webhook-delivery.avsc). */
export interface WebhookDeliveryEvent {
  id: string;
  subscriptionId: string;
  changeId: string;
  kind: string;
  agentId: string;
  agentKey: string;
  changeObservedAt: number;
  status: WebhookDeliveryStatus;
  attempts: number;
  lastStatus: number | null;
  errorClass: string;
  error: string;
  durationMs: number;
  recordedAt: number;
}

/** An owner's dispute of a result, as recorded by `veronikai dispute` (schemas/avro/dispute.avsc). */
export interface DisputeEvent {
  id: string;
  observedAt: number;
  agentKey: string;
  agentId: string;
  protocol: 'a2a' | 'mcp';
  name: string;
  reason: string;
  /** The checker version served when the dispute was recorded ('' when none). */
  checkerVersion: string;
  /** The result disputed: the agent's latest check and verdict under that version (null: none). */
  disputedEventId: string | null;
  disputedAt: number | null;
  disputedUptime: string | null;
  disputedResult: string | null;
  /** Failing rule ids of the disputed verdict. */
  disputedReasons: string[];
  /** The re-probe's ProbeRequest id, and the id its Probe event gets (null: no re-probe, see notReprobed). */
  requestId: string | null;
  probeEventId: string | null;
  notReprobed: string | null;
}

/** Event type name (the Avro record name) → its TypeScript shape. */
export interface EventMap {
  SourceFetch: SourceFetchEvent;
  Listing: ListingEvent;
  ProbeRequest: ProbeRequestEvent;
  Probe: ProbeEvent;
  Canary: CanaryEvent;
  Run: RunEvent;
  Document: DocumentEvent;
  AgentChange: AgentChangeEvent;
  WebhookDelivery: WebhookDeliveryEvent;
  Dispute: DisputeEvent;
}
export type EventName = keyof EventMap;
export type AnyEvent = { [K in EventName]: { name: K; value: EventMap[K] } }[EventName];
