/**
 * One inspect's bounds and record: every request goes through `send`/`stream`, which count
 * it against the request budget, cut its limit to the time left, send the owner's headers only
 * to the origin the owner named, and record it as an InspectExchange with every owner header
 * value redacted (in what we sent and in anything that came back).
 */
import type { InspectExchange, InspectStep } from '../conformance/inspect/types.js';
import { requestBounded, REDACTED } from '../http/client.js';
import { openEventStream, type EventStream } from '../http/event-stream.js';
import type { AddressPolicy, Exchange, RequestMethod } from '../http/types.js';

export interface InspectSettings extends AddressPolicy {
  userAgent: string;
  /** Headers the owner passed (--header): sent to the named origin only, never recorded. */
  ownerHeaders: Record<string, string>;
  /** Requests a whole inspect may make. */
  requestBudget: number;
  /** Time limit of a whole inspect. */
  timeLimitMs: number;
  /** Limit of one exchange (cut to the time left). */
  requestTimeoutMs: number;
}

export interface SendOptions {
  headers?: Record<string, string>;
  body?: string;
  maxBytes: number;
  follow?: boolean;
  stopWhen?: (bodySoFar: Buffer, headers: Record<string, string>) => boolean;
  form?: string;
  /** Send the owner's headers (when the URL is on the named origin). Default true. */
  credentials?: boolean;
}

export class InspectSession {
  readonly exchanges: InspectExchange[] = [];
  requests = 0;
  budgetExhausted = false;
  private readonly started = Date.now();
  private readonly deadline: number;
  readonly origin: string;
  private readonly literals: string[];

  constructor(
    readonly settings: InspectSettings,
    readonly input: string,
  ) {
    this.deadline = this.started + settings.timeLimitMs;
    let origin: string;
    try {
      origin = new URL(input).origin;
    } catch {
      origin = '';
    }
    this.origin = origin;
    this.literals = Object.values(settings.ownerHeaders).flatMap((v) => {
      const out = [v.trim()];
      const token = /^\S+\s+(\S{4,})$/.exec(v.trim());
      if (token) out.push(token[1]!);
      return out.filter((x) => x.length >= 4);
    });
  }

  get timeLeftMs(): number {
    return this.deadline - Date.now();
  }

  get timedOut(): boolean {
    return this.timeLeftMs <= 0;
  }

  get elapsedMs(): number {
    return Date.now() - this.started;
  }

  /** Whether one more request may be made; marks the budget exhausted when not. */
  canSend(): boolean {
    if (this.timedOut) return false;
    if (this.requests >= this.settings.requestBudget) {
      this.budgetExhausted = true;
      return false;
    }
    return true;
  }

  private headersFor(
    url: string,
    extra: Record<string, string> | undefined,
    credentials: boolean,
  ): { headers: Record<string, string>; secret: string[] } {
    let same: boolean;
    try {
      same = new URL(url).origin === this.origin;
    } catch {
      same = false;
    }
    const headers: Record<string, string> = { ...(extra ?? {}) };
    const secret: string[] = [];
    if (same && credentials) {
      for (const [n, v] of Object.entries(this.settings.ownerHeaders)) {
        headers[n.toLowerCase()] = v;
        secret.push(n.toLowerCase());
      }
    }
    return { headers, secret };
  }

  /** Owner header values never leave the session: scrubbed from anything recorded. */
  scrub(text: string): string {
    let out = text;
    for (const lit of this.literals) if (out.includes(lit)) out = out.split(lit).join(REDACTED);
    return out;
  }

  private record(step: InspectStep, ex: Exchange, requestBody: string | undefined, form: string | undefined): InspectExchange {
    const headers: Record<string, string> = {};
    for (const [n, v] of Object.entries(ex.headers)) headers[n] = this.scrub(v);
    const out: InspectExchange = {
      step,
      method: ex.method,
      url: ex.url,
      requestHeaders: { ...ex.requestHeaders },
      status: ex.status,
      headers,
      body: this.scrub(ex.body.toString('utf8')),
      bodyTruncated: ex.bodyTruncated,
      errorClass: ex.errorClass,
      errorMessage: ex.errorMessage === null ? null : this.scrub(ex.errorMessage),
      durationMs: ex.durationMs,
    };
    if (requestBody !== undefined) out.requestBody = requestBody;
    if (form !== undefined) out.form = form;
    this.exchanges.push(out);
    return out;
  }

  /** One request (a GET may follow redirects: every hop counts and is recorded). Null when the budget or time is spent. */
  async send(step: InspectStep, method: RequestMethod, url: string, o: SendOptions): Promise<InspectExchange | null> {
    if (!this.canSend()) return null;
    const { headers, secret } = this.headersFor(url, o.headers, o.credentials ?? true);
    const left = this.settings.requestBudget - this.requests;
    const res = await requestBounded(url, {
      ...this.policy(),
      method,
      userAgent: this.settings.userAgent,
      headers,
      secretHeaders: secret,
      ...(o.body !== undefined ? { body: o.body } : {}),
      maxBytes: o.maxBytes,
      timeoutMs: Math.max(1, Math.min(this.settings.requestTimeoutMs, this.timeLeftMs)),
      followRedirects: method === 'GET' && (o.follow ?? false),
      maxRedirects: Math.max(0, Math.min(5, left - 1)),
      // Every request counts against the budget: none is repeated behind the session's back.
      maxRetries: 0,
      ...(o.stopWhen ? { stopWhen: o.stopWhen } : {}),
    });
    let last: InspectExchange | null = null;
    for (const ex of res.exchanges) {
      if (ex.status !== null || ex.durationMs > 0 || ex.errorClass !== 'too_many_redirects') this.requests++;
      last = this.record(step, ex, o.body, o.form);
    }
    return last;
  }

  /** Opens an event stream (legacy HTTP+SSE); counts one request. Null when the budget or time is spent. */
  async stream(
    step: InspectStep,
    url: string,
    maxBytes: number,
  ): Promise<{ stream: EventStream; finish: (events: Array<{ event: string; data: string }>) => InspectExchange } | null> {
    if (!this.canSend()) return null;
    this.requests++;
    const { headers, secret } = this.headersFor(url, undefined, true);
    const stream = await openEventStream(url, {
      ...this.policy(),
      userAgent: this.settings.userAgent,
      headers,
      secretHeaders: secret,
      maxBytes,
      timeoutMs: Math.max(1, Math.min(this.settings.requestTimeoutMs, this.timeLeftMs)),
      limitMs: Math.max(1, this.timeLeftMs),
    });
    return {
      stream,
      finish: (events) => {
        stream.close();
        const rec = this.record(step, stream.exchange, undefined, undefined);
        rec.events = events.map((e) => ({ event: e.event, data: this.scrub(e.data) }));
        return rec;
      },
    };
  }

  private policy(): AddressPolicy {
    const p: AddressPolicy = {};
    if (this.settings.allowLoopback) p.allowLoopback = true;
    if (this.settings.allowAddress) p.allowAddress = this.settings.allowAddress;
    if (this.settings.lookup) p.lookup = this.settings.lookup;
    return p;
  }
}
