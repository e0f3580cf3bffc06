/**
 * The deliverer as a role of the platform: started by `run`'s composition when the subscriptions
 * file is set (targets under the probes' address policy), stopped in its shutdown; a bad file
 * stops the start before anything is opened.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, UsageError } from '../../src/config.js';
import { eventCodec } from '../../src/events/codec.js';
import type { AgentChangeEvent } from '../../src/events/types.js';
import { agentId } from '../../src/identity/agent-key.js';
import { startPlatform, type Platform } from '../../src/runtime/platform.js';
import { deliveryId, verifySignature } from '../../src/webhooks/signature.js';
import { startRecordingReceiver, type ReceivedRequest, type TestServer } from '../helpers/hostile-servers.js';
import { kafkaBrokers, testLogger, uniqueTopicPrefix, waitFor } from '../helpers/kafka.js';
import { TEST_SIGNING_KEY } from '../helpers/signing.js';

const SECRET = 'platform-secret-0123456789';

describe('webhooks in the platform', () => {
  const dir = mkdtempSync(join(tmpdir(), 'veronikai-webhooks-platform-'));
  let receiver: TestServer;
  let platform: Platform | undefined;
  const received: ReceivedRequest[] = [];
  const file = join(dir, 'webhooks.json');

  beforeAll(async () => {
    receiver = await startRecordingReceiver(received);
    writeFileSync(
      file,
      JSON.stringify({ subscriptions: [{ id: 'ops', url: `${receiver.url}/hook`, secret: SECRET, kinds: ['down', 'up'] }] }),
    );
  });

  afterAll(async () => {
    await platform?.close();
    await receiver?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('refuses a bad subscriptions file at start, naming the setting and the problem', async () => {
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ subscriptions: [{ id: 'ops', url: 'https://hooks.example.com/', secret: 'short' }] }));
    // No broker listens on port 1: the error must come before Kafka (or the warehouse) is opened.
    const config = loadConfig({ dataDir: join(dir, 'bad-data'), brokers: '127.0.0.1:1' }, { VERONIKAI_WEBHOOKS_FILE: bad });
    const started = startPlatform(config, { log: testLogger('platform'), api: false, probes: false });
    await expect(started).rejects.toThrow(UsageError);
    await expect(started).rejects.toThrow(
      /^VERONIKAI_WEBHOOKS_FILE \/ --webhooks-file: webhooks file \S+bad\.json: subscriptions\[0\]\.secret \(subscription "ops"\) must be at least 16 characters long$/,
    );
  });

  it('`run` delivers changes when the file is set, and records them', async () => {
    const brokers = await kafkaBrokers();
    const config = loadConfig({ dataDir: join(dir, 'data'), brokers, port: 0 }, { VERONIKAI_WEBHOOKS_FILE: file });
    platform = await startPlatform(config, {
      log: testLogger('platform'),
      api: false,
      probes: false,
      topicPrefix: uniqueTopicPrefix(import.meta.url),
      sign: TEST_SIGNING_KEY,
      probePolicy: { allowLoopback: true },
    });
    expect(platform.webhooks?.subscriptionCount).toBe(1);
    const key = 'https://platform.webhooks.test/mcp';
    const change: AgentChangeEvent = {
      id: 'f'.repeat(32),
      observedAt: Date.now() - 1000,
      kind: 'down',
      agentKey: key,
      agentId: agentId(key),
      protocol: 'mcp',
      name: 'Platform',
      checkerVersion: '',
      causeEventId: 'probe-1',
      fromState: 'up',
      toState: 'down',
      summary: 'went down',
      reasons: ['timeout'],
    };
    await platform.producer.send(platform.kafka.topics.agentChanges, [{ key, value: eventCodec().encode('AgentChange', change) }]);
    const wh = platform.warehouse;
    await waitFor(
      async () => (await wh.query('SELECT 1 FROM webhook_deliveries FINAL WHERE change_id = {c:String}', { c: change.id })).length > 0,
      60_000,
      'the delivery row',
    );
    expect(received).toHaveLength(1);
    const r = received[0]!;
    expect(r.headers['x-veronikai-delivery']).toBe(deliveryId('ops', change.id));
    expect(
      verifySignature(
        SECRET,
        { timestamp: r.headers['x-veronikai-timestamp'] as string, signature: r.headers['x-veronikai-signature'] as string },
        r.body,
      ),
    ).toBe(true);
    const [row] = await wh.query<{ status: string; attempts: number }>(
      'SELECT status, attempts FROM webhook_deliveries FINAL WHERE change_id = {c:String}',
      { c: change.id },
    );
    expect(row).toEqual({ status: 'delivered', attempts: 1 });
    await platform.close();
    platform = undefined;
  }, 120_000);
});
