import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { SETTINGS } from '../config.js';

/**
 * Who may use the ClickHouse HTTP interface, decided before a request reaches the engine or its
 * body is read.
 *
 * - Credentials as a ClickHouse server takes them: HTTP Basic auth, the `X-ClickHouse-User` /
 *   `X-ClickHouse-Key` headers, or the `user` / `password` URL parameters, one way per request
 *   (a server refuses a mix too); no user means `default`. A wrong user or password is code 516,
 *   compared in constant time.
 * - A browser on the operator's machine can be made to send requests here by any page it opens
 *   (and a name that resolves to loopback makes them same-origin: DNS rebinding). So a Host that
 *   is not one of the interface's names is refused, and so is a request the browser marks as
 *   coming from another site (`Sec-Fetch-Site`) or another origin (`Origin`). Command-line
 *   clients, Grafana's backend and DBeaver send neither header, so a plain GET with credentials
 *   in the URL still works for them.
 * - The private endpoint (`challenge`) answers `GET /veronikai/challenge?nonce=…` with
 *   HMAC-SHA256(password, nonce:pid): it proves to `sql` that it is the process the instance
 *   file names before `sql` sends the password or a query (see runtime/instance.ts).
 */

export interface AdmissionOptions {
  /** The user and password every request but `/ping` must carry; null asks for none (tests of the query path only). */
  credentials: { user: string; password: string } | null;
  /** Names the Host header may carry besides the listen address and the loopback names. */
  allowedHosts?: readonly string[];
  /** Answer the challenge route (the private endpoint, whose password is the instance file's token). */
  challenge?: boolean;
}

/** A refusal, in the terms of a ClickHouse exception. */
export interface Refusal {
  code: number;
  type: string;
  message: string;
}

export type Admitted =
  /** Go on to the query. */
  | { kind: 'query' }
  /** The challenge's answer, to send as it is. */
  | { kind: 'challenge'; body: string }
  | { kind: 'refused'; refusal: Refusal };

export const CHALLENGE_PATH = '/veronikai/challenge';

/** A nonce the challenge takes: hex, long enough that an answer is never reused. */
const NONCE_RE = /^[0-9a-f]{32,128}$/;

/** The challenge's answer: the holder of `secret`, running as `pid`, saw `nonce`. */
export function challengeProof(secret: string, nonce: string, pid: number): string {
  return createHmac('sha256', secret).update(`${nonce}:${pid}`).digest('hex');
}

/** Equal strings, in time that does not depend on where they differ or on their lengths. */
export function sameSecret(a: string, b: string): boolean {
  const x = createHash('sha256').update(a).digest();
  const y = createHash('sha256').update(b).digest();
  return timingSafeEqual(x, y);
}

/** A host name as compared here: lower case, no trailing dot, an IPv6 address in brackets. */
export function normalHost(name: string): string {
  const host = name.trim().toLowerCase().replace(/\.$/, '');
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

const WILDCARDS = new Set(['', '0.0.0.0', '[::]']);
const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];

/** The name of a Host header (`name`, `name:port`, `[v6]:port`), or null when it is not one. */
function hostOfHeader(value: string): string | null {
  const m = /^(\[[0-9a-f:.]+\]|[a-z0-9._-]+)(?::\d{1,5})?$/i.exec(value.trim());
  return m ? normalHost(m[1]!) : null;
}

/** A header's text for a message: printable ASCII, bounded (it comes from the client). */
function shown(text: string): string {
  const clean = text.replace(/[^\x20-\x7e]/g, '?');
  return clean.length > 100 ? `${clean.slice(0, 100)}…` : clean;
}

const header = (req: IncomingMessage, name: string): string | undefined => {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
};

const authFailed = (user: string): Refusal => ({
  code: 516,
  type: 'AUTHENTICATION_FAILED',
  message: `${shown(user)}: Authentication failed: password is incorrect, or there is no user with such name`,
});

const mixed = (what: string): Refusal => ({
  code: 516,
  type: 'AUTHENTICATION_FAILED',
  message: `Invalid authentication: it is not allowed to use ${what} simultaneously`,
});

const denied = (message: string): Refusal => ({ code: 497, type: 'ACCESS_DENIED', message });

/** The user and password a request carries, the way a server reads them, or why they cannot be read. */
function presented(req: IncomingMessage, url: URL): { user: string; password: string } | Refusal {
  const headerUser = header(req, 'x-clickhouse-user') ?? '';
  const headerKey = header(req, 'x-clickhouse-key') ?? '';
  const authorization = header(req, 'authorization');
  const inParams = url.searchParams.has('user') || url.searchParams.has('password');
  if (headerUser !== '' || headerKey !== '') {
    if (authorization !== undefined) return mixed('X-ClickHouse HTTP headers and Authorization HTTP header');
    if (inParams) return mixed('X-ClickHouse HTTP headers and authentication via parameters');
    return { user: headerUser || 'default', password: headerKey };
  }
  if (authorization !== undefined) {
    if (inParams) return mixed('Authorization HTTP header and authentication via parameters');
    const m = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(authorization);
    if (!m)
      return {
        code: 516,
        type: 'AUTHENTICATION_FAILED',
        message: 'Invalid authentication: only the Basic HTTP Authorization scheme is supported',
      };
    const text = Buffer.from(m[1]!, 'base64').toString('utf8');
    const colon = text.indexOf(':');
    return colon < 0
      ? { user: text || 'default', password: '' }
      : { user: text.slice(0, colon) || 'default', password: text.slice(colon + 1) };
  }
  return { user: url.searchParams.get('user') || 'default', password: url.searchParams.get('password') ?? '' };
}

export interface Admission {
  /** Adds the address the server listens on to the names it answers to. */
  listeningOn(host: string): void;
  /** Decides a request that is not `/ping`. */
  admit(req: IncomingMessage, url: URL): Admitted;
}

export function createAdmission(opts: AdmissionOptions): Admission {
  const hosts = new Set([...LOOPBACK_NAMES, ...(opts.allowedHosts ?? []).map(normalHost)]);
  const hostsSetting = SETTINGS.clickhouseHttpHosts.env;

  /** Host, Sec-Fetch-Site and Origin: is this a request from a browser page that must not reach us? */
  function origin(req: IncomingMessage): Refusal | null {
    const hostHeader = header(req, 'host');
    const host = hostHeader === undefined ? null : hostOfHeader(hostHeader);
    if (host === null || !hosts.has(host)) {
      return denied(
        `Host '${shown(hostHeader ?? '')}' is not a name of this interface (its listen address, localhost or a name in ${hostsSetting})`,
      );
    }
    const site = (header(req, 'sec-fetch-site') ?? '').toLowerCase();
    if (site === 'cross-site' || site === 'same-site')
      return denied(`A request from a page of another site (Sec-Fetch-Site: ${site}) is refused`);
    const from = header(req, 'origin');
    if (from !== undefined) {
      let name: string | null = null;
      try {
        const u = new URL(from);
        if (u.protocol === 'http:' || u.protocol === 'https:') name = normalHost(u.hostname);
      } catch {
        name = null;
      }
      if (name === null || !hosts.has(name))
        return denied(`A request from origin '${shown(from)}' is refused: it is not one of this interface's hosts`);
    }
    return null;
  }

  function challenge(url: URL, password: string): Admitted {
    const nonce = url.searchParams.get('nonce') ?? '';
    if (!NONCE_RE.test(nonce))
      return {
        kind: 'refused',
        refusal: { code: 457, type: 'BAD_QUERY_PARAMETER', message: 'The challenge takes a nonce of 32 to 128 lower-case hex digits' },
      };
    return { kind: 'challenge', body: `${challengeProof(password, nonce, process.pid)}\n` };
  }

  return {
    listeningOn(host) {
      const name = normalHost(host);
      if (!WILDCARDS.has(name)) hosts.add(name);
    },
    admit(req, url) {
      const refused = origin(req);
      if (refused) return { kind: 'refused', refusal: refused };
      const { credentials } = opts;
      // Before any credential is asked for: the client proves nothing to us, we prove ourselves to it.
      if (opts.challenge && credentials && url.pathname === CHALLENGE_PATH && req.method === 'GET')
        return challenge(url, credentials.password);
      if (!credentials) return { kind: 'query' };
      const given = presented(req, url);
      if ('code' in given) return { kind: 'refused', refusal: given };
      // Both compared, whatever the first says: the time does not tell which one was wrong.
      const userOk = sameSecret(given.user, credentials.user);
      const passwordOk = sameSecret(given.password, credentials.password);
      return userOk && passwordOk ? { kind: 'query' } : { kind: 'refused', refusal: authFailed(given.user) };
    },
  };
}
