/**
 * A check: one thing the inspect looked at, its outcome, the rule it belongs to (when it can
 * fail) and the evidence it rests on: the request made, the status, the relevant headers and a
 * bounded excerpt of the body, every credential-shaped string redacted.
 */
import { Recorder } from '../recorder.js';
import type { Rule, RuleSet } from '../rule.js';
import { redactText } from './secrets.js';
import type { InspectExchange, InspectProtocol } from './types.js';

export type CheckOutcome = 'pass' | 'fail' | 'warn' | 'info';

export interface Evidence {
  request: { method: string; url: string; headers: Record<string, string>; body?: string };
  status: number | null;
  /** Only the headers that bear on the protocol (content type, challenges, session, version). */
  headers: Record<string, string>;
  /** At most EXCERPT_CHARS characters of the body, credentials redacted. */
  excerpt: string;
  bodyTruncated: boolean;
  errorClass: string | null;
  errorMessage: string | null;
}

export interface InspectCheck {
  id: string;
  protocol: InspectProtocol;
  /** What was checked, in a few words. */
  name: string;
  outcome: CheckOutcome;
  /** The rule a fail/warn outcome reports (null for informational checks). */
  ruleId: string | null;
  message: string;
  /** Where: a URL, or a JSON pointer into the agent card. */
  location: string;
  evidence: Evidence[];
}

export const EXCERPT_CHARS = 600;

/** Response headers worth showing as evidence. */
const RELEVANT = [
  'content-type',
  'www-authenticate',
  'mcp-session-id',
  'mcp-protocol-version',
  'location',
  'allow',
  'content-length',
  'cache-control',
];
/** Request headers worth showing (the owner's credentials already read `[redacted]`). */
const SENT = ['accept', 'content-type', 'mcp-protocol-version', 'mcp-method', 'mcp-session-id', 'user-agent', 'authorization'];

export function excerpt(text: string, max = EXCERPT_CHARS): string {
  const clean = redactText(text);
  return clean.length > max ? `${clean.slice(0, max)}…` : clean;
}

export function evidenceOf(ex: InspectExchange): Evidence {
  const headers: Record<string, string> = {};
  for (const h of RELEVANT) if (ex.headers[h] !== undefined) headers[h] = redactText(ex.headers[h]!);
  const sent: Record<string, string> = {};
  for (const [n, v] of Object.entries(ex.requestHeaders))
    if (SENT.includes(n) || v === '[redacted]') sent[n] = v === '[redacted]' ? v : redactText(v);
  let body =
    ex.streamReply !== undefined ? `${ex.body}${ex.streamReply ? `\n[reply on the event stream] ${ex.streamReply}` : ''}` : ex.body;
  if (ex.events && ex.events.length > 0) body = ex.events.map((e) => `event: ${e.event}\ndata: ${e.data}`).join('\n\n');
  const request: Evidence['request'] = { method: ex.method, url: ex.url, headers: sent };
  if (ex.requestBody !== undefined) request.body = excerpt(ex.requestBody, 300);
  return {
    request,
    status: ex.status,
    headers,
    excerpt: excerpt(body),
    bodyTruncated: ex.bodyTruncated,
    errorClass: ex.errorClass,
    errorMessage: ex.errorMessage,
  };
}

/**
 * Collects the checks of one protocol, in order. A check on a rule records the rule's outcome in
 * the one recorder: a failing check is the rule's finding, and takes the rule's severity.
 */
export class CheckList {
  readonly list: InspectCheck[] = [];
  readonly rec: Recorder<InspectCheck>;
  private n = 0;

  constructor(
    private readonly protocol: InspectProtocol,
    rules: RuleSet,
  ) {
    this.rec = new Recorder<InspectCheck>(rules, Infinity);
  }

  add(
    name: string,
    outcome: CheckOutcome,
    rule: Rule | null,
    message: string,
    location: string,
    exchanges: Array<InspectExchange | null | undefined> = [],
  ): InspectCheck {
    const failing = outcome === 'fail' || outcome === 'warn';
    // A failing check takes its rule's severity; the catalogue decides fail or warn.
    if (rule !== null && failing) outcome = rule.severity;
    const check: InspectCheck = {
      id: `${this.protocol}-${String(++this.n).padStart(2, '0')}`,
      protocol: this.protocol,
      name,
      outcome,
      ruleId: rule?.id ?? null,
      message,
      location,
      evidence: exchanges.filter((e): e is InspectExchange => !!e).map(evidenceOf),
    };
    this.list.push(check);
    if (rule !== null && failing) this.rec.fail(rule, check);
    else if (rule !== null && outcome === 'pass') this.rec.pass(rule);
    return check;
  }

  pass(
    name: string,
    rule: Rule | null,
    message: string,
    location: string,
    exchanges: Array<InspectExchange | null | undefined> = [],
  ): void {
    this.add(name, 'pass', rule, message, location, exchanges);
  }

  flag(rule: Rule, name: string, message: string, location: string, exchanges: Array<InspectExchange | null | undefined> = []): void {
    this.add(name, 'fail', rule, message, location, exchanges);
  }

  info(name: string, message: string, location: string, exchanges: Array<InspectExchange | null | undefined> = []): void {
    this.add(name, 'info', null, message, location, exchanges);
  }
}
