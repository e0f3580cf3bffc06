import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WebhookDeliveryEvent } from '../../src/events/types.js';
import { webhookDeliveryRow } from '../../src/processors/webhook-deliveries.js';
import type { WebhookDeliveryRow } from '../../src/warehouse/rows.js';
import { withWarehouse, type TestWarehouse } from '../helpers/warehouse.js';

const T = Date.UTC(2026, 10, 29, 10);
const event = (extra: Partial<WebhookDeliveryEvent> = {}): WebhookDeliveryEvent => ({
  id: 'd'.repeat(32),
  subscriptionId: 'ops',
  changeId: 'c'.repeat(32),
  kind: 'down',
  agentId: 'a'.repeat(16),
  agentKey: 'https://x.test/mcp',
  changeObservedAt: T,
  status: 'dead',
  attempts: 5,
  lastStatus: 500,
  errorClass: 'http_status',
  error: 'the receiver answered 500',
  durationMs: 1234,
  recordedAt: T + 60_000,
  ...extra,
});

describe('webhook_deliveries', () => {
  let t: TestWarehouse;
  beforeAll(async () => {
    t = await withWarehouse('webhook-deliveries');
  });
  afterAll(async () => {
    await t?.close();
  });

  it('keeps one row per (subscription, change): the newest outcome recorded', async () => {
    const first = event();
    // The same pair recorded again (a deliverer restarted before its commit), and another subscription.
    const again = event({ status: 'delivered', attempts: 1, lastStatus: 200, errorClass: '', error: '', recordedAt: T + 120_000 });
    const other = event({ subscriptionId: 'audit', id: 'e'.repeat(32), status: 'stale', attempts: 0, lastStatus: null });
    await t.wh.insert('webhook_deliveries', [first, other].map(webhookDeliveryRow));
    await t.wh.insert('webhook_deliveries', [again].map(webhookDeliveryRow));
    const rows = await t.wh.query<WebhookDeliveryRow>('SELECT * FROM webhook_deliveries FINAL ORDER BY subscription_id');
    expect(rows.map((r) => [r.subscription_id, r.status, r.attempts, r.last_status])).toEqual([
      ['audit', 'stale', 0, null],
      ['ops', 'delivered', 1, 200],
    ]);
    expect(rows[1]).toMatchObject({
      delivery_id: 'd'.repeat(32),
      change_observed_at: '2026-11-29 10:00:00.000',
      recorded_at: '2026-11-29 10:02:00.000',
      kind: 'down',
    });
  });

  it('clamps numbers a corrupt event could carry instead of failing the insert', () => {
    expect(webhookDeliveryRow(event({ attempts: 70_000, lastStatus: -1, durationMs: 1e12 }))).toMatchObject({
      attempts: 65_535,
      last_status: 0,
      duration_ms: 4_294_967_295,
    });
  });
});
