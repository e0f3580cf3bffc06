/**
 * Plain-data inputs the engine judges. Producers fill these; processors and the CLI pass
 * them in. Nothing here is a class: every value survives JSON and Avro round trips.
 */

/** One HTTP exchange as the producer saw it. Header names are lowercase. */
export interface HttpExchange {
  url: string;
  /** HTTP status, or null when no response arrived (see errorClass). */
  status: number | null;
  headers: Record<string, string>;
  /** Decoded response text, bounded by the producer (card ≤ 512 KB, MCP GET ≤ 2 KB). */
  body?: string;
  /** True when the producer stopped reading at its bound. */
  bodyTruncated?: boolean;
  /**
   * False when the body was not valid UTF-8 (the text then holds U+FFFD in place of the bad
   * bytes); absent means valid. A card that is not UTF-8 is not JSON text (RFC 8259 §8.1).
   */
  bodyValidUtf8?: boolean;
  /**
   * Why no (complete) response arrived, in the HTTP client's vocabulary (src/http):
   * `dns`, `refused`, `reset`, `timeout`, `tls`, `blocked_address`, `redirect_loop`,
   * `too_many_redirects`, `body_too_large`, `headers_too_large`, `invalid_url`, `protocol`,
   * `host_skipped`, `other`, and the probe's politeness refusals `robots_disallowed`,
   * `robots_unreachable`, `rate_limited`, `budget_exhausted`, `hop_refused`. Unrecognised
   * values are treated as `other`.
   */
  errorClass?: string | null;
}

/** A document given as text: `validUtf8: false` when its bytes were not valid UTF-8 (absent: valid). */
export interface DocumentText {
  text: string;
  validUtf8?: boolean;
}

export type RobotsDecision = 'allowed' | 'disallowed' | 'unknown';
export type CanaryState = 'ok' | 'failed' | 'unknown';

/** The A2A card chain: listing URL, then /.well-known/agent-card.json, then /.well-known/agent.json. */
export interface A2AObservation {
  exchanges: HttpExchange[];
  robots: RobotsDecision;
  canary: CanaryState;
}

export interface McpRemote {
  /** `streamable-http` or `sse` as declared by the listing or server.json. */
  type: string;
  url: string;
}

/** One MCP probe: a single GET (Accept: text/event-stream) to the declared remote. */
export interface McpObservation {
  /** The remote the probe targeted, as declared; null when nothing was declared. */
  remote: McpRemote | null;
  /** The one GET; null when no GET was made (a static check of a server.json). */
  get: HttpExchange | null;
  /** RFC 9728 protected-resource metadata GET, made after a 401/403. */
  metadata?: HttpExchange | null;
  robots: RobotsDecision;
  canary: CanaryState;
  /** The server.json document (untrusted JSON), or null when the listing had none. */
  serverJson: unknown;
}

export type Result = 'pass' | 'fail' | 'unknown' | 'n/a';
export type Severity = 'fail' | 'warn';

/** Which artefact a finding's location points into. */
export type Artifact = 'document' | 'card-chain' | 'http-get' | 'http-metadata';

export interface Finding {
  ruleId: string;
  severity: Severity;
  artifact: Artifact;
  /** JSON pointer (RFC 6901) into the document ('' = the whole document), or a URL for HTTP artefacts. */
  location: string;
  message: string;
  spec: { section: string; url: string };
}

/** Plain words for the HTTP client's error classes, for reasons. */
export const ERROR_WORDS: Readonly<Record<string, string>> = {
  dns: 'host name did not resolve',
  refused: 'connection refused',
  reset: 'connection reset (not confirmed)',
  timeout: 'timed out',
  tls: 'TLS handshake failed',
  blocked_address: 'address refused by the SSRF guard',
  redirect_loop: 'redirect loop',
  too_many_redirects: 'too many redirects',
  body_too_large: 'response larger than the read bound',
  headers_too_large: 'response headers too large',
  invalid_url: 'invalid URL',
  protocol: 'malformed HTTP response',
  host_skipped: 'host skipped after repeated network failures',
  robots_disallowed: 'a redirect led to a path robots.txt disallows us',
  robots_unreachable: 'a redirect led to an origin whose robots.txt could not be read',
  rate_limited: 'held back by our rate limits for the host',
  budget_exhausted: "the run's budget of checks for the site was used up",
  hop_refused: 'a redirect was not followed (robots or rate limits)',
  other: 'network error',
};

export function errorWords(errorClass: unknown): string {
  return (
    (typeof errorClass === 'string' && Object.prototype.hasOwnProperty.call(ERROR_WORDS, errorClass)
      ? ERROR_WORDS[errorClass]
      : undefined) ?? 'network error'
  );
}
