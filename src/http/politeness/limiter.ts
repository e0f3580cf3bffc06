/**
 * Per-host and per-site concurrency, the per-site budget of a run, and adaptive pacing.
 *
 * - At most POLITENESS.perHostConcurrency requests in flight per host name, and
 *   POLITENESS.perSiteConcurrency per site (registrable domain from the public-suffix list,
 *   via identity/agent-key siteOf; the host itself for IP addresses).
 * - At most POLITENESS.perSiteRunBudget checks per site per run (`takeCheck`).
 * - After a 429 or 503 the host is paced: nothing is sent before its Retry-After (seconds or an
 *   HTTP date), and request starts are spaced by an interval that starts at
 *   pacingInitialIntervalMs, doubles with every further 429/503 up to pacingMaxIntervalMs, and
 *   halves with every other answer. A request that would wait longer than maxPacingWaitMs for
 *   the host is not sent: it is refused as `rate_limited`.
 *
 * Keying probe requests by site means one worker owns a site, so these limits need no
 * coordination between workers. Waiters are served first come, first served per host.
 *
 * Cost: every operation is O(1) in the number of waiters and hosts (amortised). Each host keeps
 * its own FIFO of waiters; a host whose head waiter is held only by its site's limit is parked in
 * that site's ready set, and a release hands the freed site slot to the first parked host; a
 * host held by its pacing has its own timer. Nothing scans all waiters, so a worker can keep
 * thousands of probes waiting (as many as its concurrency) without slowing every grant.
 *
 * Memory: a host's state is kept while it matters — requests in flight or waiting, a
 * Retry-After still ahead, or a pacing interval that could still delay the next start. Once the
 * last start is at least pacingMaxIntervalMs ago and its Retry-After has passed, nothing it holds
 * can delay a request, and the state is dropped (checked on release, and over all hosts at most
 * once per pacingMaxIntervalMs).
 */
import { hostKey, siteOf } from '../../identity/agent-key.js';
import type { GateDecision, RequestGate } from '../client.js';
import { parseRetryAfter } from '../text.js';
import { POLITENESS } from './constants.js';

export interface LimiterOptions {
  perHostConcurrency?: number;
  perSiteConcurrency?: number;
  perSiteRunBudget?: number;
  runsRemembered?: number;
  pacingInitialIntervalMs?: number;
  pacingBackoffFactor?: number;
  pacingMaxIntervalMs?: number;
  pacingRecoveryFactor?: number;
  maxPacingWaitMs?: number;
  /** Clock (epoch ms) and timers, injectable for tests. */
  now?: () => number;
  setTimer?: (fn: () => void, ms: number) => unknown;
  clearTimer?: (handle: unknown) => void;
}

/** What a finished request tells the limiter. */
export interface RequestOutcome {
  status: number | null;
  headers?: Record<string, string>;
}

export type Acquired =
  | { ok: true; host: string; site: string; waitedMs: number; release: (outcome?: RequestOutcome) => void }
  | { ok: false; errorClass: 'rate_limited'; message: string; host: string; site: string };

interface HostState {
  inflight: number;
  /** Nothing is sent before this (Retry-After). */
  notBefore: number;
  /** Minimum spacing between request starts while paced (0 = not paced). */
  intervalMs: number;
  lastStart: number;
  /** Waiters for this host, first come first served. */
  waiters: Waiter[];
  /** When the host's pacing timer fires (+Infinity: none set). */
  timerAt: number;
  timer: unknown;
}

interface SiteState {
  inflight: number;
  /** Hosts whose first waiter is held only by this site's limit, in the order they were held. */
  ready: Set<string>;
}

interface Waiter {
  host: string;
  site: string;
  enqueuedAt: number;
  resolve: (a: Acquired) => void;
}

export interface HostPacing {
  inflight: number;
  notBefore: number;
  intervalMs: number;
}

/** The host and site keys a URL is limited under. */
export function limitKeys(url: URL | string): { host: string; site: string } {
  const u = url instanceof URL ? url : new URL(url);
  const host = hostKey(u.hostname);
  const site = siteOf(u.href) || host;
  return { host, site: site.toLowerCase() };
}

export class Limiter {
  readonly perHost: number;
  readonly perSite: number;
  readonly budget: number;
  private readonly runsRemembered: number;
  private readonly initialInterval: number;
  private readonly backoff: number;
  private readonly maxInterval: number;
  private readonly recovery: number;
  private readonly maxWait: number;
  private readonly now: () => number;
  private readonly setTimer: (fn: () => void, ms: number) => unknown;
  private readonly clearTimer: (handle: unknown) => void;

  private readonly hosts = new Map<string, HostState>();
  private readonly sites = new Map<string, SiteState>();
  private readonly budgets = new Map<string, Map<string, number>>();
  private lastSweep = Number.NEGATIVE_INFINITY;

  constructor(opts: LimiterOptions = {}) {
    this.perHost = Math.max(1, opts.perHostConcurrency ?? POLITENESS.perHostConcurrency);
    this.perSite = Math.max(1, opts.perSiteConcurrency ?? POLITENESS.perSiteConcurrency);
    this.budget = Math.max(0, opts.perSiteRunBudget ?? POLITENESS.perSiteRunBudget);
    this.runsRemembered = Math.max(1, opts.runsRemembered ?? POLITENESS.runsRemembered);
    this.initialInterval = opts.pacingInitialIntervalMs ?? POLITENESS.pacingInitialIntervalMs;
    this.backoff = opts.pacingBackoffFactor ?? POLITENESS.pacingBackoffFactor;
    this.maxInterval = opts.pacingMaxIntervalMs ?? POLITENESS.pacingMaxIntervalMs;
    this.recovery = opts.pacingRecoveryFactor ?? POLITENESS.pacingRecoveryFactor;
    this.maxWait = opts.maxPacingWaitMs ?? POLITENESS.maxPacingWaitMs;
    this.now = opts.now ?? Date.now;
    this.setTimer = opts.setTimer ?? ((fn, ms) => setTimeout(fn, ms));
    this.clearTimer = opts.clearTimer ?? ((h) => clearTimeout(h as NodeJS.Timeout));
  }

  /**
   * Takes one check of `site`'s budget for `runId`. False once the budget is used up: the
   * caller records the check as not made (`budget_exhausted`).
   */
  takeCheck(runId: string, site: string): boolean {
    let run = this.budgets.get(runId);
    if (!run) {
      run = new Map();
      this.budgets.set(runId, run);
      while (this.budgets.size > this.runsRemembered) this.budgets.delete(this.budgets.keys().next().value as string);
    }
    const used = run.get(site) ?? 0;
    if (used >= this.budget) return false;
    run.set(site, used + 1);
    return true;
  }

  /** Checks of `site` taken in `runId`. */
  checksUsed(runId: string, site: string): number {
    return this.budgets.get(runId)?.get(site) ?? 0;
  }

  /** Current pacing state of a host (tests, logs). */
  pacing(host: string): HostPacing {
    const h = this.hosts.get(host);
    return { inflight: h?.inflight ?? 0, notBefore: h?.notBefore ?? 0, intervalMs: h?.intervalMs ?? 0 };
  }

  /** Requests in flight to a site. */
  siteInFlight(site: string): number {
    return this.sites.get(site)?.inflight ?? 0;
  }

  /** Waits for a slot for `url`'s host and site, or refuses when the host's pacing is too long. */
  acquire(url: URL | string): Promise<Acquired> {
    this.sweep();
    const { host, site } = limitKeys(url);
    return new Promise<Acquired>((resolve) => {
      this.hostState(host).waiters.push({ host, site, enqueuedAt: this.now(), resolve });
      this.serve(host);
    });
  }

  /** The limiter as fetchBounded's per-hop gate. */
  gate(): RequestGate {
    return async (url: URL): Promise<GateDecision> => {
      const a = await this.acquire(url);
      if (!a.ok) return { ok: false, errorClass: a.errorClass, message: a.message };
      return { ok: true, done: (ex) => a.release({ status: ex.status, headers: ex.headers }) };
    };
  }

  private hostState(host: string): HostState {
    let h = this.hosts.get(host);
    if (!h) {
      h = {
        inflight: 0,
        notBefore: 0,
        intervalMs: 0,
        lastStart: Number.NEGATIVE_INFINITY,
        waiters: [],
        timerAt: Number.POSITIVE_INFINITY,
        timer: null,
      };
      this.hosts.set(host, h);
    }
    return h;
  }

  private siteState(site: string): SiteState {
    let s = this.sites.get(site);
    if (!s) {
      s = { inflight: 0, ready: new Set() };
      this.sites.set(site, s);
    }
    return s;
  }

  /** Drops a site's state once nothing is in flight or held there. */
  private tidySite(site: string, s: SiteState): void {
    if (s.inflight <= 0 && s.ready.size === 0) this.sites.delete(site);
  }

  private readyAt(h: HostState): number {
    return Math.max(h.notBefore, h.intervalMs > 0 ? h.lastStart + h.intervalMs : 0);
  }

  /**
   * Grants slots to `host`'s waiters in order while its own limit, its site's limit and its
   * pacing allow; refuses the waiters its pacing would keep longer than maxPacingWaitMs. Where
   * the first waiter stays held, the one event that can free it is arranged: a release of the
   * host (nothing to do), a release in its site (the host is parked in the site's ready set), or
   * the pacing timer.
   */
  private serve(host: string): void {
    const h = this.hosts.get(host);
    if (!h) return;
    const now = this.now();
    while (h.waiters.length > 0) {
      const w = h.waiters[0]!;
      const readyAt = this.readyAt(h);
      // Waiters arrive in order, so those refused are the first ones.
      if (readyAt - w.enqueuedAt > this.maxWait) {
        h.waiters.shift();
        const waitS = Math.ceil((readyAt - now) / 1000);
        w.resolve({
          ok: false,
          errorClass: 'rate_limited',
          message: `host ${w.host} asked us to wait ${waitS} s (Retry-After or pacing), longer than the ${Math.round(this.maxWait / 1000)} s a probe waits; not sent`,
          host: w.host,
          site: w.site,
        });
        continue;
      }
      if (h.inflight >= this.perHost) return;
      const s = this.siteState(w.site);
      if (s.inflight >= this.perSite) {
        s.ready.add(host);
        return;
      }
      if (readyAt > now) {
        this.tidySite(w.site, s);
        this.scheduleHost(host, h, readyAt, now);
        return;
      }
      h.waiters.shift();
      h.inflight++;
      h.lastStart = now;
      s.inflight++;
      w.resolve({ ok: true, host: w.host, site: w.site, waitedMs: now - w.enqueuedAt, release: this.releaser(w.host, w.site) });
    }
    this.forget(host);
  }

  private scheduleHost(host: string, h: HostState, at: number, now: number): void {
    if (h.timerAt <= at) return;
    if (h.timerAt !== Number.POSITIVE_INFINITY) this.clearTimer(h.timer);
    h.timerAt = at;
    h.timer = this.setTimer(
      () => {
        h.timer = null;
        h.timerAt = Number.POSITIVE_INFINITY;
        this.serve(host);
      },
      Math.max(0, at - now),
    );
  }

  private releaser(host: string, site: string): (outcome?: RequestOutcome) => void {
    let released = false;
    return (outcome) => {
      if (released) return;
      released = true;
      const h = this.hostState(host);
      h.inflight = Math.max(0, h.inflight - 1);
      const s = this.siteState(site);
      s.inflight = Math.max(0, s.inflight - 1);
      if (outcome) this.feedback(h, outcome);
      // The freed site slot goes first to hosts held by the site's limit, in the order they were held.
      for (const next of s.ready) {
        if (s.inflight >= this.perSite) break;
        s.ready.delete(next);
        if (next !== host) this.serve(next);
      }
      this.serve(host);
      this.tidySite(site, s);
    };
  }

  private feedback(h: HostState, outcome: RequestOutcome): void {
    const now = this.now();
    if (outcome.status === 429 || outcome.status === 503) {
      h.intervalMs = Math.min(this.maxInterval, h.intervalMs > 0 ? h.intervalMs * this.backoff : this.initialInterval);
      const retryAfter = parseRetryAfter(outcome.headers?.['retry-after'], now);
      h.notBefore = Math.max(h.notBefore, now + (retryAfter ?? h.intervalMs));
    } else if (outcome.status !== null && h.intervalMs > 0) {
      h.intervalMs *= this.recovery;
      if (h.intervalMs < this.initialInterval) h.intervalMs = 0;
    }
  }

  /** True when a host's state can no longer delay or refuse anything. */
  private expired(h: HostState, now: number): boolean {
    if (h.inflight > 0 || h.notBefore > now) return false;
    return h.intervalMs <= 0 || now - h.lastStart >= Math.max(this.maxInterval, h.intervalMs);
  }

  /** Drops a host's state once it carries nothing worth remembering. */
  private forget(host: string): void {
    const h = this.hosts.get(host);
    if (!h || h.waiters.length > 0 || h.timerAt !== Number.POSITIVE_INFINITY || !this.expired(h, this.now())) return;
    this.hosts.delete(host);
  }

  /** Drops every expired host's state, at most once per pacingMaxIntervalMs. */
  private sweep(): void {
    const now = this.now();
    if (now - this.lastSweep < this.maxInterval) return;
    this.lastSweep = now;
    for (const [host, h] of this.hosts) {
      if (h.waiters.length === 0 && h.timerAt === Number.POSITIVE_INFINITY && this.expired(h, now)) this.hosts.delete(host);
    }
  }
}
