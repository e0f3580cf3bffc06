/**
 * `veronikai inspect`: one owner-run inspect of an MCP server or A2A agent. Composes the HTTP
 * side (src/inspect) with the judgement (src/conformance/inspect) under one time
 * limit and one request budget, with a User-Agent that names the tool and its contact.
 */
import { buildInspectReport, type InspectProtocol, type InspectReport } from '../../conformance/inspect/index.js';
import { REQUEST_TIMEOUT_MS } from '../../http/limits.js';
import { observeInspect } from '../../inspect/index.js';
import type { AddressPolicy } from '../../http/types.js';

/** Defaults of a whole inspect. */
export const INSPECT_TIME_LIMIT_MS = 60_000;
export const INSPECT_REQUEST_BUDGET = 40;

export interface InspectOptions extends AddressPolicy {
  protocol: 'auto' | InspectProtocol;
  /** Owner-passed headers (credentials for their own server): sent to the named origin only, never recorded. */
  headers?: Record<string, string>;
  timeLimitMs?: number;
  requestBudget?: number;
  requestTimeoutMs?: number;
  contact: string;
}

/** The User-Agent of an inspect: the tool, and who to contact. */
export function inspectUserAgent(contact: string): string {
  const clean = String(contact ?? '')
    .replace(/[^\x21-\x7e]/g, '')
    .replace(/[();<>,"\\]/g, '')
    .slice(0, 200);
  return `VeronikAI-inspect/0.1 (+mailto:${clean}; owner-run protocol inspect, veronikai inspect)`;
}

export async function runInspect(url: string, opts: InspectOptions): Promise<InspectReport> {
  const policy: AddressPolicy = {};
  if (opts.allowLoopback) policy.allowLoopback = true;
  if (opts.allowAddress) policy.allowAddress = opts.allowAddress;
  if (opts.lookup) policy.lookup = opts.lookup;
  const obs = await observeInspect(url, opts.protocol, {
    ...policy,
    userAgent: inspectUserAgent(opts.contact),
    ownerHeaders: opts.headers ?? {},
    requestBudget: opts.requestBudget ?? INSPECT_REQUEST_BUDGET,
    timeLimitMs: opts.timeLimitMs ?? INSPECT_TIME_LIMIT_MS,
    requestTimeoutMs: opts.requestTimeoutMs ?? REQUEST_TIMEOUT_MS,
  });
  return buildInspectReport(obs);
}
