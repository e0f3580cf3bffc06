import type { CorrectionRow } from '../rows.js';
import type { ReadOnlyWarehouse } from '../warehouse.js';
import { HIDDEN_AGENT_KEYS } from './hidden.js';

/** The corrections log of disputed results (corrections, clickhouse/0029), as the public may read it. */

/**
 * One agent's corrections log (by key, or by short id), newest dispute first, at most `limit` rows;
 * nothing for a hidden agent.
 */
export async function correctionsOfAgent(
  wh: ReadOnlyWarehouse,
  agent: { agentKey: string } | { agentId: string },
  limit: number,
): Promise<CorrectionRow[]> {
  const byKey = 'agentKey' in agent;
  return wh.query<CorrectionRow>(
    `SELECT * FROM corrections FINAL
     WHERE ${byKey ? 'agent_key = {agent:String}' : 'agent_id = {agent:String}'} AND agent_key NOT IN ${HIDDEN_AGENT_KEYS}
     ORDER BY requested_at DESC, dispute_id DESC LIMIT {limit:UInt32}`,
    { agent: byKey ? agent.agentKey : agent.agentId, limit },
  );
}
