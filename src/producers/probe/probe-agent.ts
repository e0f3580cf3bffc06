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
 * - `hop_refused`: the target's robots.txt allowed it, but a later hop (a redirect target on
 *   another origin, or another URL of the card chain) was refused by that hop's own robots.txt
 *   (disallowed or unreachable); the refused hop is a synthetic exchange whose error class says
 *   why (`robots_disallowed`, `robots_unreachable`), and the event's `robots` stays the
 *   target's ('allowed');
 * - otherwise the error class of the probe when it got no usable answer: for A2A the first
 *   failed exchange of a chain that found no card; for MCP the GET's own error class (a hop the
 *   pacing refused is `rate_limited`); null when the target answered (whatever the status).
 *
 * What is kept: the event keeps statuses, the headers the judgement reads, the MCP answer's
 * classification excerpt and, for a judged document (a card, RFC 9728 metadata), only its hash;
 * the document itself goes to the documents topic (kept-bodies.ts). No other body is kept.
 *
 * Size: an event stays within EVENT_MAX_BYTES encoded (Kafka refuses a batch over 1 MB); see
 * event-fit.ts. Exchange roles: exchange-roles.ts.
 */
import { agentKey as agentKeyOf } from '../../identity/agent-key.js';
import { eventCodec } from '../../events/codec.js';
import { newEventId } from '../../events/ids.js';
import type { ProbeEvent, ProbeExchange, ProbeRequestEvent } from '../../events/types.js';
import { silentLogger, type Logger } from '../../log.js';
import type { Canary } from '../canary.js';
import type { RequestGate } from '../../http/client.js';
import { HostFailureTracker } from '../../http/host-tracker.js';
import { PinnedConnections } from '../../http/pinned-pool.js';
import { EVENT_MAX_BYTES } from '../../events/limits.js';
import { HOST_FAILURE_LIMIT } from '../../http/limits.js';
import { parseProbeUrl } from '../../http/ssrf-guard.js';
import { CONNECTIVITY_ERROR_CLASSES, type AddressPolicy, type ErrorClass } from '../../http/types.js';
import { POLITENESS } from '../../http/politeness/constants.js';
import { Limiter, limitKeys } from '../../http/politeness/limiter.js';
import { RobotsCache, type RobotsCheck } from '../../http/politeness/robots.js';
import { fetchA2ACardChain } from './a2a-chain.js';
import { fitProbeEvent } from './event-fit.js';
import { a2aExchanges, hopRoles, mcpExchanges } from './exchange-roles.js';
import { keepProbe, type KeptProbe } from './kept-bodies.js';
import { probeMcpEndpoint } from './mcp-get.js';

export type ProbeProtocol = 'a2a' | 'mcp';

/** Event-level error classes added by the engine to the client's ErrorClass. */
export type ProbeErrorClass = ErrorClass | 'budget_exhausted' | 'hop_refused';

/** Hop-level refusals by a later hop's own robots.txt: the event says `hop_refused`. */
const HOP_ROBOTS_CLASSES: readonly string[] = ['robots_disallowed', 'robots_unreachable'];

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
  /** Kept-alive connections (default: the engine's own). */
  connections?: PinnedConnections;
  canary?: Canary | null;
  /** Limit on one exchange (default REQUEST_TIMEOUT_MS, 10 s). */
  timeoutMs?: number;
  maxRetries?: number;
  retryBaseDelayMs?: number;
  sleep?: (ms: number) => Promise<void>;
  /** MCP body read window (default MCP_BODY_WINDOW_MS). */
  bodyWindowMs?: number;
  hostFailureLimit?: number;
  /** Largest encoded Probe event (default EVENT_MAX_BYTES). */
  eventMaxBytes?: number;
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

/** The event-level error class for the first failed exchange of a probe (see the header comment). */
function eventErrorClass(exchangeClass: ErrorClass | null): ProbeErrorClass | null {
  if (exchangeClass !== null && HOP_ROBOTS_CLASSES.includes(exchangeClass)) return 'hop_refused';
  return exchangeClass;
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
 * host-failure tracker per run; and one set of kept-alive connections, so a host's robots.txt,
 * endpoints and metadata share a connect. One engine per worker process (or per CLI invocation).
 */
export class ProbeEngine {
  readonly robots: RobotsCache;
  readonly limiter: Limiter;
  readonly canary: Canary | null;
  readonly connections: PinnedConnections;
  private readonly trackers = new Map<string, HostFailureTracker>();
  private readonly runsStarted = new Map<string, Promise<void>>();
  private readonly now: () => number;
  private readonly logger: Logger;
  private readonly policy: AddressPolicy;
  private readonly eventSize = (ev: ProbeEvent): number => eventCodec().encode('Probe', ev).length;

  constructor(private readonly opts: ProbeEngineOptions) {
    this.policy = {
      ...(opts.allowLoopback ? { allowLoopback: true } : {}),
      ...(opts.allowAddress ? { allowAddress: opts.allowAddress } : {}),
      ...(opts.lookup ? { lookup: opts.lookup } : {}),
    };
    this.connections = opts.connections ?? new PinnedConnections();
    this.robots =
      opts.robots ??
      new RobotsCache({
        fetchOptions: { contact: opts.contact, ...this.policy, ...this.fetchTuning(), connections: this.connections },
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

  /**
   * The per-hop gate: robots.txt of the hop's own origin, then a limiter slot. A refused hop is
   * recorded as `robots_disallowed`, `robots_unreachable`, or `rate_limited` (its robots.txt
   * could not be read because its host asked us to wait longer than we do).
   */
  private hopGate(tracker: HostFailureTracker): RequestGate {
    const limiterGate = this.limiter.gate();
    return async (url) => {
      const d = await this.robots.check(url, { hostTracker: tracker, gate: limiterGate });
      if (!d.permitted) {
        if (d.verdict === 'disallowed') {
          const why = `robots.txt disallows ${url.pathname} (group ${d.group ?? '*'}${d.line ? `, line ${d.line}` : ''})`;
          return { ok: false, errorClass: 'robots_disallowed', message: why };
        }
        const why = `robots.txt of ${url.origin} unreachable (${d.status ?? d.errorClass ?? 'error'}): everything disallowed`;
        return { ok: false, errorClass: d.errorClass === 'rate_limited' ? 'rate_limited' : 'robots_unreachable', message: why };
      }
      return limiterGate(url);
    };
  }

  /** One probe, as its event keeps it (see kept-bodies.ts). Never throws. */
  async probe(target: ProbeTarget): Promise<ProbeEvent> {
    return (await this.probeWithDocuments(target)).probe;
  }

  /** One probe as kept, with the documents its event names by hash (produce them first). Never throws. */
  async probeWithDocuments(target: ProbeTarget): Promise<KeptProbe> {
    const kept = keepProbe(await this.observeWhole(target));
    const maxBytes = this.opts.eventMaxBytes ?? EVENT_MAX_BYTES;
    // The MCP excerpt is the last body the fitting would leave out.
    const excerpt = kept.probe.exchanges.map((e) => e.role).lastIndexOf('mcp-get');
    const fitted = fitProbeEvent(kept.probe, maxBytes, excerpt >= 0 ? excerpt : null, this.eventSize);
    if (fitted !== kept.probe) this.logger.info({ url: target.url, maxBytes }, 'probe event shortened to fit the event size limit');
    return { probe: fitted, documents: kept.documents };
  }

  /**
   * One probe with every body as read (`bodyKept: whole`), before anything is left out: what
   * probe events carried before documents were kept apart. Never throws.
   */
  async observeWhole(target: ProbeTarget): Promise<ProbeEvent> {
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
      const exchanges = r.exchanges;
      const failed = exchanges.some(
        (e) => e.status === null && e.errorClass !== null && CONNECTIVITY_ERROR_CLASSES.includes(e.errorClass as ErrorClass),
      );
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
  ): Promise<{ exchanges: ProbeExchange[]; robots: ProbeEvent['robots']; errorClass: ProbeErrorClass | null }> {
    const parsed = parseProbeUrl(target.url);
    // Nothing is sent for an invalid URL or a skipped host: the probe functions record it.
    if (!parsed.ok || tracker.isSkipped(parsed.url.hostname)) {
      const r = await this.run(target, tracker, undefined);
      return { ...r, robots: 'not_checked' };
    }
    const { site } = limitKeys(parsed.url);
    if (!this.limiter.takeCheck(runId, site)) {
      return { exchanges: [], robots: 'not_checked', errorClass: 'budget_exhausted' };
    }
    const limiterGate = this.limiter.gate();
    const decision: RobotsCheck = await this.robots.check(parsed.url, { hostTracker: tracker, gate: limiterGate });
    if (decision.verdict === 'disallowed') {
      return { exchanges: [], robots: 'disallowed', errorClass: 'robots_disallowed' };
    }
    if (decision.verdict === 'unreachable') {
      return {
        exchanges: hopRoles(decision.evidence, 'robots'),
        robots: 'unreachable',
        errorClass: 'robots_unreachable',
      };
    }
    const r = await this.run(target, tracker, this.hopGate(tracker));
    return { ...r, robots: decision.verdict === 'allowed' ? 'allowed' : 'not_checked' };
  }

  private async run(
    target: ProbeTarget,
    tracker: HostFailureTracker,
    gate: RequestGate | undefined,
  ): Promise<{ exchanges: ProbeExchange[]; errorClass: ProbeErrorClass | null }> {
    const common = {
      contact: this.opts.contact,
      ...this.policy,
      ...this.fetchTuning(),
      connections: this.connections,
      hostTracker: tracker,
      ...(gate ? { gate } : {}),
    };
    if (target.protocol === 'mcp') {
      const res = await probeMcpEndpoint(target.url, {
        ...common,
        ...(this.opts.bodyWindowMs !== undefined ? { bodyWindowMs: this.opts.bodyWindowMs } : {}),
      });
      return { exchanges: mcpExchanges(res), errorClass: eventErrorClass(res.final.errorClass) };
    }
    const chain = await fetchA2ACardChain(target.url, common);
    const exchanges = a2aExchanges(chain);
    const errorClass =
      chain.cardStep !== null
        ? null
        : eventErrorClass((exchanges.find((e) => e.errorClass !== null)?.errorClass ?? null) as ErrorClass | null);
    return { exchanges, errorClass };
  }
}
