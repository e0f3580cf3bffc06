/**
 * Kept-alive connections through the guard. A connection is an undici Client (one socket, one
 * request at a time) made with the pinned connector (pinned-agent.ts) for one key: the origin,
 * the host name, the addresses the SSRF guard checked for this hop, the address policy and the
 * client bounds. A hop takes an idle connection of its own key or makes one, so a socket is only
 * reused for a request whose host was checked, for this very hop, to the same addresses; every
 * new socket is checked again after connecting. A connection is put back only when its answer
 * was read to the end; any other ending (a cap, a read window, an error, a redirect not read)
 * closes it. Idle connections close after KEEP_ALIVE_IDLE_MS, and at most IDLE_CONNECTIONS_MAX
 * are kept, so memory does not grow with the hosts a run visits. A pool belongs to whoever made
 * it (a probe engine, a command); a request given none uses one of its own for its hops.
 */
import { Client } from 'undici';
import { IDLE_CONNECTIONS_MAX, KEEP_ALIVE_IDLE_MS } from './limits.js';
import { pinnedConnector, type ConnState } from './pinned-agent.js';
import type { AddressPolicy, LookupAddress } from './types.js';

interface Conn {
  key: string;
  client: Client;
  /** A socket is open (between the client's connect and disconnect events). */
  live: boolean;
  remoteAddress: string | null;
  /** The ConnState of the request the connection serves now. */
  state: ConnState;
  idle: boolean;
}

/** A connection lent to one hop: send on `dispatcher`, then `done` once, saying whether it may be reused. */
export interface ConnLease {
  dispatcher: Client;
  done(reusable: boolean): void;
}

export class PinnedConnections {
  /** Idle connections by key, most recently idle last. */
  private readonly idleByKey = new Map<string, Conn[]>();
  /** Every idle connection, longest idle first. */
  private readonly idleOrder = new Set<Conn>();
  /** Identities of `allowAddress` functions: a policy with another function never shares a connection. */
  private readonly policyIds = new WeakMap<object, number>();
  private nextPolicyId = 1;
  /**
   * Why a connection was closed: it served its request(s) (idle too long, over the idle bound, or
   * not reusable). One reason object for all: undici would make an error per close and the socket
   * reads its stack (costly per close).
   */
  private readonly closeReason = new Error('connection closed after use');
  /** Connections made (tests and stats). */
  made = 0;

  constructor(
    private readonly maxIdle = IDLE_CONNECTIONS_MAX,
    private readonly idleMs = KEEP_ALIVE_IDLE_MS,
  ) {}

  /** Idle connections kept now. */
  get idle(): number {
    return this.idleOrder.size;
  }

  /** A connection to `url`'s origin pinned to `addresses`; `state` records what this request's connection did. */
  lease(
    url: URL,
    addresses: LookupAddress[],
    hostname: string,
    policy: AddressPolicy,
    state: ConnState,
    timeoutMs: number,
    maxHeaderSize: number,
  ): ConnLease {
    const pinned = addresses
      .map((a) => `${a.family}/${a.address}`)
      .sort()
      .join(',');
    const key = `${url.origin}\n${hostname}\n${pinned}\n${this.policyKey(policy)}\n${timeoutMs}\n${maxHeaderSize}`;
    let conn = this.takeIdle(key);
    if (conn) {
      conn.state = state;
      // The socket was checked when it connected; if it closes before the request goes out, the
      // client connects again through the connector, which records into `state` anew.
      state.connected = true;
      state.remoteAddress = conn.remoteAddress;
    } else {
      conn = this.make(key, url, addresses, hostname, policy, state, timeoutMs, maxHeaderSize);
    }
    const c = conn;
    let returned = false;
    return {
      dispatcher: c.client,
      done: (reusable) => {
        if (returned) return;
        returned = true;
        if (reusable && c.live && !c.client.closed && !c.client.destroyed) this.putIdle(c);
        else this.close(c);
      },
    };
  }

  private policyKey(policy: AddressPolicy): string {
    let id = 0;
    if (policy.allowAddress) {
      id = this.policyIds.get(policy.allowAddress) ?? 0;
      if (id === 0) {
        id = this.nextPolicyId++;
        this.policyIds.set(policy.allowAddress, id);
      }
    }
    return `${policy.allowLoopback ? 'L' : '-'}${id}`;
  }

  /** Closes every idle connection. */
  closeIdle(): void {
    for (const c of [...this.idleOrder]) {
      this.unidle(c);
      this.close(c);
    }
  }

  private make(
    key: string,
    url: URL,
    addresses: LookupAddress[],
    hostname: string,
    policy: AddressPolicy,
    state: ConnState,
    timeoutMs: number,
    maxHeaderSize: number,
  ): Conn {
    let conn: Conn | null = null;
    const client = new Client(url.origin, {
      connect: pinnedConnector(addresses, hostname, policy, () => conn!.state, timeoutMs),
      maxHeaderSize,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      pipelining: 1,
      keepAliveTimeout: this.idleMs,
      keepAliveMaxTimeout: this.idleMs,
    });
    conn = { key, client, live: false, remoteAddress: null, state, idle: false };
    const c = conn;
    this.made++;
    client.on('connect', () => {
      c.live = true;
      c.remoteAddress = c.state.remoteAddress;
    });
    client.on('disconnect', () => {
      c.live = false;
      // An idle connection whose socket closed (the idle time, or the server) is dropped.
      if (c.idle) {
        this.unidle(c);
        this.close(c);
      }
    });
    // Errors reach the request that was sent; a connection-level one needs no listener's crash.
    client.on('connectionError', () => undefined);
    return c;
  }

  private takeIdle(key: string): Conn | null {
    const list = this.idleByKey.get(key);
    while (list && list.length > 0) {
      const c = list.pop()!;
      this.idleOrder.delete(c);
      c.idle = false;
      if (list.length === 0) this.idleByKey.delete(key);
      if (c.live && !c.client.closed && !c.client.destroyed) return c;
      this.close(c);
    }
    return null;
  }

  private putIdle(c: Conn): void {
    c.idle = true;
    let list = this.idleByKey.get(c.key);
    if (!list) {
      list = [];
      this.idleByKey.set(c.key, list);
    }
    list.push(c);
    this.idleOrder.add(c);
    while (this.idleOrder.size > this.maxIdle) {
      const oldest = this.idleOrder.values().next().value as Conn;
      this.unidle(oldest);
      this.close(oldest);
    }
  }

  private unidle(c: Conn): void {
    if (!c.idle) return;
    c.idle = false;
    this.idleOrder.delete(c);
    const list = this.idleByKey.get(c.key);
    if (!list) return;
    const i = list.indexOf(c);
    if (i >= 0) list.splice(i, 1);
    if (list.length === 0) this.idleByKey.delete(c.key);
  }

  private close(c: Conn): void {
    if (c.client.destroyed) return;
    // Nothing is in flight on a connection given back or refused reuse.
    c.client.destroy(this.closeReason).catch(() => undefined);
  }
}
