/**
 * Connecting through the guard: a connector whose every connection goes to the addresses the
 * SSRF guard checked (a pinned lookup), and whose sockets are refused when their remote address
 * is anything else, so DNS rebinding cannot move a probe. The pool (pinned-pool.ts) makes its
 * connections with it.
 */
import type { LookupOneOptions } from 'node:dns';
import type { Socket } from 'node:net';
import ipaddr from 'ipaddr.js';
import { buildConnector } from 'undici';
import { isAddressPermitted } from './ssrf-guard.js';
import type { AddressPolicy, LookupAddress } from './types.js';

/** What the connection did, read when classifying the attempt. */
export interface ConnState {
  connected: boolean;
  remoteAddress: string | null;
  /** Why the connected socket was refused, when it was. */
  blocked: string | null;
}

/** The error code of a socket refused after connecting. */
export const BLOCKED_CODE = 'ERR_VERONIKAI_BLOCKED';

function normalizeAddress(address: string): string {
  try {
    return ipaddr.process(address.replace(/^\[|\]$/g, '').replace(/%.*$/, '')).toString();
  } catch {
    return address;
  }
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A connector whose every socket goes to `addresses` (a pinned lookup) and is refused unless its
 * remote address is one of them and permitted by the policy. `state()` is the ConnState of the
 * request the socket is opened for (a pooled connection serves one request at a time).
 */
export function pinnedConnector(
  addresses: LookupAddress[],
  hostname: string,
  policy: AddressPolicy,
  state: () => ConnState,
  timeoutMs: number,
): buildConnector.connector {
  const lookup = (_host: string, options: LookupOneOptions | number | undefined, cb: LookupCallback): void => {
    const family = typeof options === 'number' ? options : options?.family;
    const all = typeof options === 'object' && options !== null && (options as { all?: boolean }).all === true;
    const list = family === 4 || family === 6 ? addresses.filter((a) => a.family === family) : addresses;
    if (list.length === 0) {
      const err: NodeJS.ErrnoException = new Error(`no checked address of family ${String(family)}`);
      err.code = 'ENOTFOUND';
      cb(err, '');
      return;
    }
    if (all)
      cb(
        null,
        list.map((a) => ({ address: a.address, family: a.family })),
      );
    else cb(null, list[0]!.address, list[0]!.family);
  };
  const base = buildConnector({
    timeout: timeoutMs,
    maxCachedSessions: 0,
    keepAlive: false,
    lookup: lookup as unknown as never,
  } as buildConnector.BuildOptions);
  return (options, callback) => {
    base(options, (err, socket) => {
      if (err || !socket) {
        callback(err ?? new Error('connect failed'), null);
        return;
      }
      const st = state();
      const remote = normalizeAddress((socket as Socket).remoteAddress ?? '');
      const permitted = isAddressPermitted(remote, hostname, policy);
      const pinned = addresses.some((a) => normalizeAddress(a.address) === remote);
      if (!permitted.ok || !pinned) {
        st.blocked = `connected address ${remote || 'unknown'} was not the checked address (${permitted.range})`;
        socket.destroy();
        const e: NodeJS.ErrnoException = new Error(st.blocked);
        e.code = BLOCKED_CODE;
        callback(e, null);
        return;
      }
      st.connected = true;
      st.remoteAddress = remote;
      callback(null, socket);
    });
  };
}
