import { hostKey } from '../identity/agent-key.js';
import { HOST_FAILURE_LIMIT } from './limits.js';
import { NETWORK_ERROR_CLASSES, type ErrorClass } from './types.js';

/**
 * Counts consecutive network failures per host name for one run. After `limit` consecutive
 * failed exchanges (dns, refused, reset, timeout — each counted once, after its retries) the host
 * is skipped for the rest of the run: the client records a synthetic exchange with errorClass
 * 'host_skipped' instead of contacting it. Any answer from the host (any HTTP status) resets the
 * count. One tracker per run; not shared across processes.
 */
export class HostFailureTracker {
  private readonly failures = new Map<string, number>();

  constructor(readonly limit: number = HOST_FAILURE_LIMIT) {}

  private key(host: string): string {
    return hostKey(host);
  }

  isSkipped(host: string): boolean {
    return (this.failures.get(this.key(host)) ?? 0) >= this.limit;
  }

  consecutiveFailures(host: string): number {
    return this.failures.get(this.key(host)) ?? 0;
  }

  recordFailure(host: string): void {
    const k = this.key(host);
    this.failures.set(k, (this.failures.get(k) ?? 0) + 1);
  }

  recordSuccess(host: string): void {
    this.failures.delete(this.key(host));
  }

  /**
   * Records the outcome of one finished exchange: network failures count, an HTTP answer
   * resets; other outcomes (blocked address, invalid URL, TLS, …) leave the count alone.
   */
  record(host: string, outcome: { status: number | null; errorClass: ErrorClass | null }): void {
    if (outcome.errorClass !== null && NETWORK_ERROR_CLASSES.includes(outcome.errorClass) && outcome.status === null) {
      this.recordFailure(host);
    } else if (outcome.status !== null) {
      this.recordSuccess(host);
    }
  }

  /** Hosts currently skipped. */
  skippedHosts(): string[] {
    return [...this.failures].filter(([, n]) => n >= this.limit).map(([h]) => h);
  }
}
