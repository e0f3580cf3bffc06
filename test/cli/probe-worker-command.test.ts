/**
 * `probe-worker --allow-loopback`: the real command, on a data directory of its own and with no
 * --brokers, so it starts the local broker there as a deployment without Kafka would. Fed one
 * ProbeRequest for a real MCP peer (the official SDK's Streamable HTTP server) on loopback, it
 * probes the peer and puts the Probe event on the probes topic; it says at start that the flag
 * is for testing only; on SIGINT it stops, and its broker with it. Without the flag the address
 * guard refuses the peer (the `run` command's test shows that side, test/cli/allow-loopback.test.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { eventCodec } from '../../src/events/codec.js';
import { createKafka } from '../../src/kafka/client.js';
import { EventProducer } from '../../src/kafka/producer.js';
import { topicNames } from '../../src/topics.js';
import { runCli, spawnCli, type SpawnedCli } from '../helpers/cli.js';
import { readTopicUntil, testLogger } from '../helpers/kafka.js';
import { startMcpStreamableStateless, type Peer } from '../helpers/peers.js';
import { probeRequest } from '../helpers/probe-requests.js';

const codec = eventCodec();
const topics = topicNames('');

describe('the probe-worker command with --allow-loopback', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'veronikai-probe-worker-cmd-'));
  let peer: Peer | undefined;
  let worker: SpawnedCli | undefined;

  afterAll(async () => {
    if (worker && worker.child.exitCode === null) {
      worker.child.kill('SIGINT');
      await worker.exited;
    }
    // Whatever happened above, no broker outlives the test.
    await runCli(['stack', 'down', '--data-dir', dataDir, '--timeout', '10s'], {}, 30_000);
    await peer?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('probes an MCP peer on loopback, warns that the flag is for testing, and stops with its broker on SIGINT', async () => {
    peer = await startMcpStreamableStateless();
    worker = spawnCli(['probe-worker', '--allow-loopback', '--data-dir', dataDir]);
    await worker.waitForStdout(/probe worker running/, 120_000);
    expect(worker.stderr).toMatch(/^veronikai: warning: --allow-loopback is for testing only/m);

    const status = await runCli(['stack', 'status', '--data-dir', dataDir, '--json']);
    expect(status.code, status.stderr).toBe(0);
    const { brokers } = JSON.parse(status.stdout) as { brokers: string };
    const kafka = createKafka({ brokers, clientId: 'probe-worker-command-test', logger: testLogger('probe-worker-cmd') });
    const producer = new EventProducer(kafka, { logger: testLogger('probe-worker-cmd') });
    const request = probeRequest('mcp', peer.url, 'run-command');
    try {
      await producer.connect();
      await producer.send(topics.probeRequests, [{ key: request.site, value: codec.encode('ProbeRequest', request) }]);
    } finally {
      await producer.close();
    }

    const probes = await readTopicUntil(kafka, topics.probes, (v) => codec.decodeAs('Probe', v), 1, 60_000);
    expect(probes).toHaveLength(1);
    expect(probes[0]).toMatchObject({
      requestId: request.id,
      agentKey: request.agentKey,
      targetUrl: peer.url,
      robots: 'allowed',
      errorClass: null,
    });
    expect(probes[0]!.exchanges.map((e) => [e.role, e.status])).toEqual([['mcp-get', 200]]);
    expect(peer.paths).toContain(new URL(peer.url).pathname);

    worker.child.kill('SIGINT');
    const exit = await worker.exited;
    expect(exit.code, exit.stderr).toBe(0);
    const after = await runCli(['stack', 'status', '--data-dir', dataDir]);
    expect(after.code, after.stdout).toBe(3);
  }, 180_000);
});
