/**
 * The canary: our own connectivity, checked against configured known-good targets before a run
 * and periodically during it. Each check of each target is a CanaryEvent.
 *
 * State: `unknown` until the first check (and always when no target is configured); `ok` when
 * at least one target answered 2xx or 3xx (one failing target may be that target's outage);
 * `failed` when none did. Probe events carry the state; while it is `failed`, every probe
 * failure is ours ("our side"), so processors judge it unknown and never down. A probe that
 * fails asks for a fresh check when the last one is older than CANARY.failureRecheckMs, so the
 * state on its event reflects the moment of the failure.
 *
 * Targets come from configuration (SETTINGS.canaryUrl in config.ts; runtime/canary-targets.ts fills in the default).
 */
import { newEventId } from '../events/ids.js';
import type { CanaryEvent } from '../events/types.js';
import { silentLogger, type Logger } from '../log.js';
import { fetchBounded } from '../http/client.js';
import type { AddressPolicy, FetchResult } from '../http/types.js';
import { CANARY } from '../http/politeness/constants.js';

export type CanaryState = 'ok' | 'failed' | 'unknown';

export interface CanaryTimers {
  now: () => number;
  setTimeout: (fn: () => void, ms: number) => unknown;
  clearTimeout: (handle: unknown) => void;
}

export interface CanaryOptions extends AddressPolicy {
  /** Known-good targets (http(s) URLs). None: the state stays `unknown`. */
  targets: readonly string[];
  /** Contact address for the User-Agent. */
  contact: string;
  runId?: string | null;
  intervalMs?: number;
  failureRecheckMs?: number;
  timeoutMs?: number;
  maxBytes?: number;
  /** Transient-error retries per target check (default CANARY.maxRetries: a canary must answer quickly). */
  maxRetries?: number;
  /** Clock and timers, injectable for tests. */
  timers?: Partial<CanaryTimers>;
  /** Replaces the bounded GET (tests). */
  fetch?: (url: string) => Promise<FetchResult>;
  /** Where each CanaryEvent goes (e.g. the canary topic). Failures are logged, never thrown. */
  onEvent?: (event: CanaryEvent) => void | Promise<void>;
  logger?: Logger;
}

export class Canary {
  private _state: CanaryState = 'unknown';
  private _lastCheckedAt: number | null = null;
  private running: Promise<CanaryEvent[]> | null = null;
  private timer: unknown = null;
  private started = false;
  private runId: string | null;
  private readonly timers: CanaryTimers;
  private readonly logger: Logger;
  readonly targets: readonly string[];
  readonly intervalMs: number;
  readonly failureRecheckMs: number;
  /** Checks completed (tests, stats). */
  checks = 0;

  constructor(private readonly opts: CanaryOptions) {
    this.targets = [...opts.targets];
    this.runId = opts.runId ?? null;
    this.intervalMs = opts.intervalMs ?? CANARY.intervalMs;
    this.failureRecheckMs = opts.failureRecheckMs ?? CANARY.failureRecheckMs;
    this.logger = (opts.logger ?? silentLogger).child({ component: 'canary' });
    this.timers = {
      now: opts.timers?.now ?? Date.now,
      setTimeout:
        opts.timers?.setTimeout ??
        ((fn, ms) => {
          const t = setTimeout(fn, ms);
          t.unref();
          return t;
        }),
      clearTimeout: opts.timers?.clearTimeout ?? ((h) => clearTimeout(h as NodeJS.Timeout)),
    };
  }

  get state(): CanaryState {
    return this._state;
  }

  /** When the last check finished (epoch ms), or null. */
  get lastCheckedAt(): number | null {
    return this._lastCheckedAt;
  }

  /** The run the next events belong to. */
  setRunId(runId: string | null): void {
    this.runId = runId;
  }

  /** Checks every target (one check at a time: concurrent callers share it) and updates the state. */
  check(): Promise<CanaryEvent[]> {
    this.running ??= this.runCheck().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  /** Checks again when the last check is older than `maxAgeMs` (or there was none); returns the state. */
  async recheckIfStale(maxAgeMs: number = this.failureRecheckMs): Promise<CanaryState> {
    if (this.targets.length === 0) return this._state;
    const last = this._lastCheckedAt;
    if (this.running || last === null || this.timers.now() - last >= maxAgeMs) await this.check();
    return this._state;
  }

  /** Starts the periodic re-check (the first one after intervalMs; call check() before a run). */
  start(): void {
    if (this.started || this.targets.length === 0) return;
    this.started = true;
    this.schedule();
  }

  stop(): void {
    this.started = false;
    if (this.timer !== null) this.timers.clearTimeout(this.timer);
    this.timer = null;
  }

  private schedule(): void {
    if (!this.started) return;
    this.timer = this.timers.setTimeout(() => {
      this.timer = null;
      void this.check()
        .catch((err: unknown) => this.logger.warn({ err }, 'canary check failed'))
        .finally(() => this.schedule());
    }, this.intervalMs);
  }

  private async runCheck(): Promise<CanaryEvent[]> {
    if (this.targets.length === 0) return [];
    const events = await Promise.all(this.targets.map((t) => this.checkOne(t)));
    this.checks++;
    this._lastCheckedAt = this.timers.now();
    const previous = this._state;
    this._state = events.some((e) => e.ok) ? 'ok' : 'failed';
    if (previous !== this._state) {
      const log = this._state === 'failed' ? this.logger.warn.bind(this.logger) : this.logger.info.bind(this.logger);
      log({ previous, state: this._state }, 'canary state changed');
    }
    for (const e of events) {
      try {
        await this.opts.onEvent?.(e);
      } catch (err) {
        this.logger.warn({ err, target: e.target }, 'could not record a canary event');
      }
    }
    return events;
  }

  private async checkOne(target: string): Promise<CanaryEvent> {
    const observedAt = this.timers.now();
    let res: FetchResult;
    try {
      res = this.opts.fetch
        ? await this.opts.fetch(target)
        : await fetchBounded(target, {
            contact: this.opts.contact,
            ...(this.opts.allowLoopback ? { allowLoopback: true } : {}),
            ...(this.opts.allowAddress ? { allowAddress: this.opts.allowAddress } : {}),
            ...(this.opts.lookup ? { lookup: this.opts.lookup } : {}),
            maxBytes: this.opts.maxBytes ?? CANARY.maxBytes,
            overCap: 'truncate',
            timeoutMs: this.opts.timeoutMs ?? CANARY.timeoutMs,
            maxRetries: this.opts.maxRetries ?? CANARY.maxRetries,
            retryBaseDelayMs: CANARY.retryBaseDelayMs,
          });
    } catch (err) {
      return { id: newEventId(), observedAt, runId: this.runId, target, ok: false, status: null, durationMs: 0, errorClass: 'other' };
    }
    const final = res.final;
    const ok = final.status !== null && final.status >= 200 && final.status < 400;
    const durationMs = res.exchanges.reduce((n, e) => n + e.durationMs, 0);
    return {
      id: newEventId(),
      observedAt,
      runId: this.runId,
      target,
      ok,
      status: final.status,
      durationMs: Math.min(durationMs, 2 ** 31 - 1),
      errorClass: final.errorClass,
    };
  }
}
