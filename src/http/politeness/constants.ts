/**
 * Every politeness number of the probe engine, in one place (Methods §2, RFC 9309).
 * Tests pass smaller values through the constructors' options; production uses these.
 */
import { REQUEST_TIMEOUT_MS } from '../limits.js';

const KIB = 1024;
const MIB = 1024 * KIB;
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

export const POLITENESS = {
  /** Requests in flight at once to one host name (any port). */
  perHostConcurrency: 2,
  /** Requests in flight at once to one site (registrable domain, public-suffix list via tldts). */
  perSiteConcurrency: 6,
  /** Checks (probes) of one site per run; the next ones are recorded as `budget_exhausted`. */
  perSiteRunBudget: 4_000,
  /** Runs whose budgets and host-failure counts are remembered (older runs are forgotten). */
  runsRemembered: 8,

  /** After a 429 or 503 without a usable Retry-After, the host's request spacing starts here… */
  pacingInitialIntervalMs: 1_000,
  /** …doubles on every further 429/503… */
  pacingBackoffFactor: 2,
  /** …up to this… */
  pacingMaxIntervalMs: 60_000,
  /** …and halves after every other answer, back to no spacing below pacingInitialIntervalMs. */
  pacingRecoveryFactor: 0.5,
  /**
   * A request never waits longer than this for a host's Retry-After or pacing window: past it the
   * hop is not sent and is recorded as `rate_limited` (the host asked for more time than a probe
   * may wait; a later run comes back).
   */
  maxPacingWaitMs: 2 * MINUTE,

  /** Product tokens whose robots.txt groups we honour, in order, before `*`. */
  robotsUserAgents: ['veronikai', 'veronica-agents'] as readonly string[],
  /** A fetched (2xx) or unavailable (4xx) robots.txt is reused for at most this long (RFC 9309 §2.4). */
  robotsCacheTtlMs: 24 * HOUR,
  /**
   * An unreachable robots.txt that answered (5xx, 429) is reused this long; one that failed at the
   * network level is not cached, so the host-failure tracker counts each try and skips the host.
   */
  robotsErrorTtlMs: 10 * MINUTE,
  /** robots.txt is read up to this many bytes (RFC 9309 §2.5: at least 500 KiB); the rest is ignored. */
  robotsMaxBytes: 500 * KIB,
  /**
   * Path characters one robots.txt check may scan for wildcard rules (about one pass over the
   * path per wildcard rule; 500 KiB, §2.5, holds some 40,000 such rules). Past it the URL is
   * disallowed. 1,000 wildcard rules against a 1,000-character path fit; the worst case costs
   * tens of milliseconds (robots-rules.ts).
   */
  robotsMaxScanChars: 1_000_000,
  /** An unreachable robots.txt's answers are kept as evidence on the probe event up to this many body bytes each. */
  robotsEvidenceMaxBytes: 4 * KIB,
  /**
   * Origins whose robots.txt is cached (least recently used evicted first): every origin a daily
   * run reaches, so no robots.txt is fetched twice in a run (each is a request to its host). At
   * the default daily budget (10,000 probes) a run reaches at most about 2 origins a probe (the
   * target; a card chain's or a redirect's other origin). An entry of a small robots.txt holds
   * about 1.5 KB of heap (measured), so the full cache is about 30 MB; large files are bounded by
   * robotsCacheMaxChars below.
   */
  robotsCacheMaxEntries: 20_000,
  /** …and the total robots.txt text kept, in characters. */
  robotsCacheMaxChars: 64 * MIB,
} as const;

export type PolitenessSettings = typeof POLITENESS;

export const CANARY = {
  /** Re-check interval during a run. */
  intervalMs: 5 * MINUTE,
  /** When a probe fails and the last canary check is older than this, check again before recording. */
  failureRecheckMs: 30_000,
  /** Limit on one canary exchange: the same as any exchange. */
  timeoutMs: REQUEST_TIMEOUT_MS,
  /** Bytes read from a canary target. */
  maxBytes: 16 * KIB,
  /** Transient-error retries per target check (a canary must answer quickly). */
  maxRetries: 1,
  /** Delay before that retry. */
  retryBaseDelayMs: 200,
} as const;
