import { afterAll, beforeAll } from 'vitest';
import { startHostileServer, type TestServer } from './hostile-servers.js';
import type { Peer } from './peers.js';

/**
 * Peers started by a test file are closed after it, with the file's hostile server.
 * Call at the top level of a test file.
 */
export function usePeers(): { track: (p: Promise<Peer>) => Promise<Peer>; hostile: () => TestServer } {
  const peers: Peer[] = [];
  let hostile: TestServer | undefined;
  beforeAll(async () => {
    hostile = await startHostileServer();
  });
  afterAll(async () => {
    await Promise.all(peers.map((p) => p.close()));
    await hostile?.close();
  });
  return {
    track: async (p) => {
      const x = await p;
      peers.push(x);
      return x;
    },
    hostile: () => hostile!,
  };
}
