import { hostKey } from '../../identity/agent-key.js';
import { fetchBounded } from '../../http/client.js';
import { isLocalNetworkAddress } from '../../http/ssrf-guard.js';
import type { LookupFn } from '../../http/types.js';
import type { PageFetcher } from './types.js';

export interface PageFetcherOptions {
  contact: string;
  /**
   * Hosts of the configured source base URLs. They were chosen by the operator, so they
   * may resolve to loopback or a private network (a registry mirror on 127.0.0.1 or
   * 10.x) — never to link-local, cloud metadata or any other non-public class. Anything a
   * redirect leads to is still checked like every other target.
   */
  trustedHosts?: Iterable<string>;
  lookup?: LookupFn;
  /** Retries of transient network errors (default: the client's). */
  maxRetries?: number;
}

/** Listing pages through the bounded GET the probes use. */
export function createPageFetcher(opts: PageFetcherOptions): PageFetcher {
  // Both sides as canonical host keys, so `[::1]`, `::1` and `Example.COM.` match what they name.
  const trusted = new Set([...(opts.trustedHosts ?? [])].map(hostKey));
  return async (url, req) => {
    const { final } = await fetchBounded(url, {
      contact: opts.contact,
      accept: req.headers?.accept ?? 'application/json',
      headers: req.headers,
      maxBytes: req.maxBytes,
      timeoutMs: req.timeoutMs,
      ...(req.truncateOverCap ? { overCap: 'truncate' as const } : {}),
      allowAddress: (address, hostname) => trusted.has(hostKey(hostname)) && isLocalNetworkAddress(address),
      ...(opts.lookup ? { lookup: opts.lookup } : {}),
      ...(opts.maxRetries === undefined ? {} : { maxRetries: opts.maxRetries }),
    });
    return {
      status: final.status,
      headers: final.headers,
      body: final.body,
      bodyTruncated: final.bodyTruncated,
      durationMs: final.durationMs,
      errorClass: final.errorClass,
      errorMessage: final.errorMessage,
    };
  };
}

/** The host names of configured base URLs, for `trustedHosts`. */
export function hostsOf(urls: Iterable<string>): string[] {
  const out: string[] = [];
  for (const u of urls) {
    try {
      out.push(new URL(u).hostname);
    } catch {
      // invalid URLs were already refused by the configuration
    }
  }
  return out;
}
