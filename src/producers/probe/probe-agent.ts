/**
 * One whole probe of one agent, as a ProbeEvent:
 *
 *   invalid URL / skipped host → run budget → robots.txt of the target → A2A card chain or MCP GET,
 *   every hop gated by robots.txt (its own origin) and the limiter → exchanges with roles →
 *   error class → canary state.
 *
 * Observations only (DESIGN principle 1). Event-level `errorClass`:
 * - `robots_disallowed`: robots.txt disallows the target for us; no request to the target
 *   (robots: 'disallowed', no exchanges; processors record skipped (robots), never down);
 * - `robots_unreachable`: robots.txt answered 5xx/429 or failed at the network level, so
 *   everything is disallowed (RFC 9309 §2.3.1.4); no request to the target; the robots.txt
 *   exchanges are kept as evidence with role `robots` (robots: 'unreachable');
 * - `host_skipped`: the host failed 3 times in a row at the network level in this run; nothing
 *   was sent (a synthetic exchange says so);
 * - `budget_exhausted`: the site's checks for this run are used up; nothing was sent;
 * - otherwise the network error class of the probe when it got no usable answer: for A2A the
 *   first failed exchange of a chain that found no card; for MCP the GET's own error class;
 *   null when the target answered (whatever the status).
 */
import { agentKey as agentKeyOf } from '../../identity/agent-key.js';
import { newEventId } from '../../events/ids.js';
import type { ProbeEvent, ProbeExchange, ProbeRequestEvent } from '../../events/types.js';
import { silentLogger, type Logger } from '../../log.js';
import type { Canary } from '../canary.js';
import type { RequestGate } from '../http/client.js';
import { HostFailureTracker } from '../http/host-tracker.js';
import { HOST_FAILURE_LIMIT } from '../http/limits.js';
import { parseProbeUrl } from '../http/ssrf-guard.js';
import type { AddressPolicy, ErrorClass, Exchange } from '../http/types.js';
import { POLITENESS } from '../politeness/constants.js';
import { Limiter, limitKeys } from '../politeness/limiter.js';
import { RobotsCache, type RobotsDecision } from '../politeness/robots.js';
import { fetchA2ACardChain, type A2ACardChainResult, type A2AChainStepKind } from './a2a-chain.js';
import { probeMcpEndpoint, type McpProbeResult } from './mcp-get.js';

export type ProbeProtocol = 'a2a' | 'mcp';

/** What each exchange of a probe event was. `robots` only appears as evidence of an unreachable robots.txt. */
export type ExchangeRole = 'card' | 'well-known' | 'legacy' | 'mcp-get' | 'resource-metadata' | 'redirect' | 'robots';

/** Event-level error classes added by the engine to the client's ErrorClass. */
export type ProbeErrorClass = ErrorClass | 'robots_disallowed' | 'robots_unreachable' | 'budget_exhausted';

/**
 * Bodies kept in one probe event, in total. A Kafka message must stay under the broker's
 * 1 MB default; one card (≤ 512 KB) always fits. Bodies past the budget are left out: `body`
 * empty, `bodyTruncated` true, `bodyBytes` and `bodySha256` still those of the bounded body read.
 */
export const EVENT_BODY_BUDGET = 768 * 1024;

export interface ProbeTarget {
  protocol: ProbeProtocol;
  /** Card URL (A2A) or endpoint URL (MCP). */
  url: string;
  /** Default: the dedupe key computed from the URL. */
  agentKey?: string;
  /** Default: 'adhoc'. Budgets and skipped hosts are per run. */
  runId?: string;
  requestId?: string | null;
  transport?: string | null;
  inSample?: boolean;
}

export interface ProbeEngineOptions extends AddressPolicy {
  /** Contact address for the User-Agent. */
  contact: string;
  robots?: RobotsCache;
  limiter?: Limiter;
  canary?: Canary | null;
  /** Limit on one exchange (default REQUEST_TIMEOUT_MS, 10 s). */
  timeoutMs?: number;
  maxRetries?: number;
  retryBaseDelayMs?: number;
  sleep?: (ms: number) => Promise<void>;
  /** MCP body read window (default MCP_BODY_WINDOW_MS). */
  bodyWindowMs?: number;
  hostFailureLimit?: number;
  eventBodyBudget?: number;
  now?: () => number;
  logger?: Logger;
}

/** A host-failure tracker that does not count failures while our own canary is failing. */
class RunHostTracker extends HostFailureTracker {
  constructor(
    limit: number,
    private readonly ourSideFailing: () => boolean,
  ) {
    super(limit);
  }

  override record(host: string, outcome: { status: number | null; errorClass: ErrorClass | null }): void {
    if (outcome.status === null && this.ourSideFailing()) return;
    super.record(host, outcome);
  }
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const NETWORK_FAILURES: readonly string[] = ['dns', 'refused', 'reset', 'timeout', 'tls', 'protocol', 'other'];

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
    remoteAddress: ex.remoteAddress,
    startedAt: Number.isFinite(startedAt) ? startedAt : 0,
    durationMs: Math.max(0, Math.min(Math.round(ex.durationMs), 2 ** 31 - 1)),
    errorClass: ex.errorClass,
    errorMessage: ex.errorMessage,
    retries: ex.retries,
  };
}

/** Roles of one fetch's hops: every hop but the last was a redirect. */
function hopRoles(exchanges: Exchange[], role: ExchangeRole): ProbeExchange[] {
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
    if (next && e.status !== null && REDIRECTS.has(e.status) && e.headers.location !== undefined) {
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

/**
 * Leaves bodies out past the budget, keeping `keep` (the card) first, then the others in order.
 */
export function applyBodyBudget(exchanges: ProbeExchange[], budget: number, keep: number | null = null): ProbeExchange[] {
  let left = budget;
  const order = exchanges.map((_, i) => i);
  if (keep !== null && keep >= 0 && keep < exchanges.length) {
    order.splice(keep, 1);
    order.unshift(keep);
  }
  const out = [...exchanges];
  for (const i of order) {
    const e = out[i]!;
    if (e.body.length <= left) {
      left -= e.body.length;
      continue;
    }
    out[i] = { ...e, body: Buffer.alloc(0), bodyTruncated: true };
  }
  return out;
}

/** A probe request from the probe-requests topic as a target. */
export function probeRequestTarget(req: ProbeRequestEvent): ProbeTarget {
  return {
    protocol: req.protocol,
    url: req.targetUrl,
    agentKey: req.agentKey,
    runId: req.runId,
    requestId: req.id,
    transport: req.transport,
    inSample: req.inSample,
  };
}

/**
 * Runs probes with shared politeness state: one robots.txt cache, one limiter, one canary, and a
 * host-failure tracker per run. One engine per worker process (or per CLI invocation).
 */
export class ProbeEngine {
  readonly robots: RobotsCache;
  readonly limiter: Limiter;
  readonly canary: Canary | null;
  private readonly trackers = new Map<string, HostFailureTracker>();
  private readonly runsStarted = new Map<string, Promise<void>>();
  private readonly now: () => number;
  private readonly logger: Logger;
  private readonly policy: AddressPolicy;

  constructor(private readonly opts: ProbeEngineOptions) {
    this.policy = {
      ...(opts.allowLoopback ? { allowLoopback: true } : {}),
      ...(opts.allowAddress ? { allowAddress: opts.allowAddress } : {}),
      ...(opts.lookup ? { lookup: opts.lookup } : {}),
    };
    this.robots =
      opts.robots ??
      new RobotsCache({
        fetchOptions: { contact: opts.contact, ...this.policy, ...this.fetchTuning() },
      });
    this.limiter = opts.limiter ?? new Limiter();
    this.canary = opts.canary ?? null;
    this.now = opts.now ?? Date.now;
    this.logger = (opts.logger ?? silentLogger).child({ component: 'probe' });
  }

  private fetchTuning(): { timeoutMs?: number; maxRetries?: number; retryBaseDelayMs?: number; sleep?: (ms: number) => Promise<void> } {
    const o = this.opts;
    return {
      ...(o.timeoutMs !== undefined ? { timeoutMs: o.timeoutMs } : {}),
      ...(o.maxRetries !== undefined ? { maxRetries: o.maxRetries } : {}),
      ...(o.retryBaseDelayMs !== undefined ? { retryBaseDelayMs: o.retryBaseDelayMs } : {}),
      ...(o.sleep ? { sleep: o.sleep } : {}),
    };
  }

  /** The run's host-failure tracker (hosts skipped after 3 consecutive network failures). */
  trackerFor(runId: string): HostFailureTracker {
    let t = this.trackers.get(runId);
    if (!t) {
      t = new RunHostTracker(this.opts.hostFailureLimit ?? HOST_FAILURE_LIMIT, () => this.canary?.state === 'failed');
      this.trackers.set(runId, t);
      while (this.trackers.size > POLITENESS.runsRemembered) this.trackers.delete(this.trackers.keys().next().value as string);
    }
    return t;
  }

  /** Before the first probe of a run: the canary is checked (once per run; callers share it). */
  beforeRun(runId: string): Promise<void> {
    let p = this.runsStarted.get(runId);
    if (!p) {
      p = (async () => {
        if (!this.canary) return;
        this.canary.setRunId(runId);
        await this.canary.check();
      })().catch((err: unknown) => this.logger.warn({ err, runId }, 'canary check before the run failed'));
      this.runsStarted.set(runId, p);
      while (this.runsStarted.size > POLITENESS.runsRemembered) this.runsStarted.delete(this.runsStarted.keys().next().value as string);
    }
    return p;
  }

  /** The per-hop gate: robots.txt of the hop's own origin, then a limiter slot. */
  private hopGate(tracker: HostFailureTracker): RequestGate {
    const limiterGate = this.limiter.gate();
    return async (url) => {
      const d = await this.robots.check(url, { hostTracker: tracker, gate: limiterGate });
      if (!d.permitted) {
        const why =
          d.verdict === 'unreachable'
            ? `robots.txt of ${url.origin} unreachable (${d.status ?? d.errorClass ?? 'error'}): everything disallowed`
            : `robots.txt disallows ${url.pathname} (group ${d.group ?? '*'}${d.line ? `, line ${d.line}` : ''})`;
        return { ok: false, errorClass: 'robots_disallowed', message: why };
      }
      return limiterGate(url);
    };
  }

  /** One probe. Never throws. */
  async probe(target: ProbeTarget): Promise<ProbeEvent> {
    const observedAt = this.now();
    const runId = target.runId ?? 'adhoc';
    const tracker = this.trackerFor(runId);
    const key =
      target.agentKey ??
      agentKeyOf(target.protocol, target.protocol === 'a2a' ? { cardUrl: target.url } : { endpointUrl: target.url }) ??
      target.url;
    const base = {
      id: newEventId(),
      observedAt,
      runId,
      requestId: target.requestId ?? null,
      agentKey: key,
      protocol: target.protocol,
      targetUrl: target.url,
      transport: target.transport ?? null,
      inSample: target.inSample ?? false,
    };
    try {
      const r = await this.observe(target, runId, tracker);
      const exchanges = applyBodyBudget(r.exchanges, this.opts.eventBodyBudget ?? EVENT_BODY_BUDGET, r.keep);
      const failed = exchanges.some((e) => e.status === null && e.errorClass !== null && NETWORK_FAILURES.includes(e.errorClass));
      let canary = this.canary?.state ?? 'unknown';
      if (this.canary && failed) canary = await this.canary.recheckIfStale();
      return {
        ...base,
        exchanges,
        robots: r.robots,
        canary,
        errorClass: r.errorClass,
        retries: exchanges.reduce((n, e) => n + e.retries, 0),
      };
    } catch (err) {
      this.logger.error({ err, url: target.url }, 'probe failed internally');
      return {
        ...base,
        exchanges: [],
        robots: 'not_checked',
        canary: this.canary?.state ?? 'unknown',
        errorClass: 'other',
        retries: 0,
      };
    }
  }

  private async observe(
    target: ProbeTarget,
    runId: string,
    tracker: HostFailureTracker,
  ): Promise<{ exchanges: ProbeExchange[]; robots: ProbeEvent['robots']; errorClass: ProbeErrorClass | null; keep: number | null }> {
    const parsed = parseProbeUrl(target.url);
    // Nothing is sent for an invalid URL or a skipped host: the probe functions record it.
    if (!parsed.ok || tracker.isSkipped(parsed.url.hostname)) {
      const r = await this.run(target, tracker, undefined);
      return { ...r, robots: 'not_checked' };
    }
    const { site } = limitKeys(parsed.url);
    if (!this.limiter.takeCheck(runId, site)) {
      return { exchanges: [], robots: 'not_checked', errorClass: 'budget_exhausted', keep: null };
    }
    const limiterGate = this.limiter.gate();
    const decision: RobotsDecision = await this.robots.check(parsed.url, { hostTracker: tracker, gate: limiterGate });
    if (decision.verdict === 'disallowed') {
      return { exchanges: [], robots: 'disallowed', errorClass: 'robots_disallowed', keep: null };
    }
    if (decision.verdict === 'unreachable') {
      return {
        exchanges: hopRoles(decision.evidence, 'robots'),
        robots: 'unreachable',
        errorClass: 'robots_unreachable',
        keep: null,
      };
    }
    const r = await this.run(target, tracker, this.hopGate(tracker));
    return { ...r, robots: decision.verdict === 'allowed' ? 'allowed' : 'not_checked' };
  }

  private async run(
    target: ProbeTarget,
    tracker: HostFailureTracker,
    gate: RequestGate | undefined,
  ): Promise<{ exchanges: ProbeExchange[]; errorClass: ProbeErrorClass | null; keep: number | null }> {
    const common = {
      contact: this.opts.contact,
      ...this.policy,
      ...this.fetchTuning(),
      hostTracker: tracker,
      ...(gate ? { gate } : {}),
    };
    if (target.protocol === 'mcp') {
      const res = await probeMcpEndpoint(target.url, {
        ...common,
        ...(this.opts.bodyWindowMs !== undefined ? { bodyWindowMs: this.opts.bodyWindowMs } : {}),
      });
      return { exchanges: mcpExchanges(res), errorClass: res.final.errorClass, keep: res.exchanges.length - 1 };
    }
    const chain = await fetchA2ACardChain(target.url, common);
    const exchanges = a2aExchanges(chain);
    let keep: number | null = null;
    let errorClass: ProbeErrorClass | null = null;
    if (chain.cardStep !== null) {
      const before = chain.steps.slice(0, chain.cardStep + 1).reduce((n, s) => n + s.exchanges.length, 0);
      keep = before - 1;
    } else {
      errorClass = (exchanges.find((e) => e.errorClass !== null)?.errorClass ?? null) as ProbeErrorClass | null;
    }
    return { exchanges, errorClass, keep };
  }
}
