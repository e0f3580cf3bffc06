import type { WebhookDeliveryEvent } from '../events/types.js';
import type { InsertRow } from '../warehouse/tables.js';
import type { Warehouse } from '../warehouse/warehouse.js';
import { createEventProcessor, type EventProcessorDeps } from './event-processor.js';

export const WEBHOOK_DELIVERIES_GROUP = 'veronikai.webhook-deliveries.v1';

/** One `webhook_deliveries` row (clickhouse/0028) for one recorded outcome. */
export function webhookDeliveryRow(ev: WebhookDeliveryEvent): InsertRow<'webhook_deliveries'> {
  return {
    subscription_id: ev.subscriptionId,
    change_id: ev.changeId,
    delivery_id: ev.id,
    kind: ev.kind,
    agent_id: ev.agentId,
    agent_key: ev.agentKey,
    change_observed_at: new Date(ev.changeObservedAt),
    status: ev.status,
    // The columns are UInt16/UInt32: a hostile or corrupt event must not fail the insert.
    attempts: Math.min(Math.max(0, Math.trunc(ev.attempts)), 65_535),
    last_status: ev.lastStatus === null ? null : Math.min(Math.max(0, Math.trunc(ev.lastStatus)), 65_535),
    error_class: ev.errorClass,
    error: ev.error,
    duration_ms: Math.min(Math.max(0, Math.trunc(ev.durationMs)), 4_294_967_295),
    recorded_at: new Date(ev.recordedAt),
  };
}

/**
 * webhook-deliveries topic → `webhook_deliveries` table. Keyed by (subscription, change), so an
 * outcome recorded twice collapses; the webhook deliverer reads the table to skip what it already
 * settled.
 */
export function createWebhookDeliveriesProcessor(opts: EventProcessorDeps & { warehouse: Warehouse }) {
  return createEventProcessor(opts, {
    groupId: WEBHOOK_DELIVERIES_GROUP,
    topic: 'webhookDeliveries',
    event: 'WebhookDelivery',
    write: (events) => opts.warehouse.insert('webhook_deliveries', events.map(webhookDeliveryRow)),
  });
}
