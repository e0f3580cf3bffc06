import type { ReadOnlyWarehouse } from '../warehouse/warehouse.js';

/**
 * What the webhook deliverer must know before it sends one change: the subscriptions that already
 * have a final outcome for it (`webhook_deliveries`, by its sort key), and whether the agent's
 * owner asked to be hidden (then nothing is sent).
 */
export async function webhookDeliveryContext(
  wh: ReadOnlyWarehouse,
  q: { changeId: string; subscriptionIds: readonly string[]; agentKey: string },
): Promise<{ settled: Set<string>; hidden: boolean }> {
  const rows = await wh.query<{ settled: string[]; hidden: number | string }>(
    `SELECT
       (SELECT groupUniqArray(subscription_id) FROM webhook_deliveries FINAL
         WHERE subscription_id IN {subs:Array(String)} AND change_id = {change:String}) AS settled,
       (SELECT toUInt8(count() > 0) FROM agents FINAL WHERE agent_key = {key:String} AND opt_out = 'hidden') AS hidden`,
    { subs: [...q.subscriptionIds], change: q.changeId, key: q.agentKey },
  );
  const r = rows[0];
  return { settled: new Set(r?.settled ?? []), hidden: Number(r?.hidden ?? 0) === 1 };
}
