/** The broker's address: loopback only, its ports, and whether something answers on one. */
import { createServer, connect as netConnect } from 'node:net';

export const HOST = '127.0.0.1';
export const DEFAULT_BROKER_PORT = 9092;

export function canConnect(host: string, port: number, timeoutMs: number): Promise<boolean> {
  return new Promise((res) => {
    const socket = netConnect({ host, port });
    const done = (ok: boolean): void => {
      socket.destroy();
      res(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/** A TCP port that was free a moment ago on 127.0.0.1. */
export async function freePort(avoid: readonly number[] = []): Promise<number> {
  for (;;) {
    const port = await new Promise<number>((res, rej) => {
      const srv = createServer();
      srv.unref();
      srv.once('error', rej);
      srv.listen(0, HOST, () => {
        const addr = srv.address();
        const p = typeof addr === 'object' && addr ? addr.port : 0;
        srv.close(() => res(p));
      });
    });
    if (!avoid.includes(port)) return port;
  }
}
