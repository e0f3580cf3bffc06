import type { ProbeEvent } from '../../events/types.js';

/** Exchange roles whose document is an A2A card (src/producers/probe/exchange-roles.ts). */
const CARD_ROLES: ReadonlySet<string> = new Set(['card', 'well-known', 'legacy']);

/**
 * The card each A2A agent of a batch served (agent key → document SHA-256), the newest probe's
 * last card document per agent: what the search index reads of its skills, tags and provider.
 */
export function cardsSeen(events: readonly ProbeEvent[]): Map<string, string> {
  const newest = new Map<string, { at: number; sha: string }>();
  for (const ev of events) {
    if (ev.protocol !== 'a2a') continue;
    const doc = ev.exchanges.filter((x) => CARD_ROLES.has(x.role) && x.bodyKept === 'document' && x.bodySha256).pop();
    if (!doc) continue;
    const cur = newest.get(ev.agentKey);
    if (!cur || ev.observedAt >= cur.at) newest.set(ev.agentKey, { at: ev.observedAt, sha: doc.bodySha256 });
  }
  return new Map([...newest].map(([k, v]) => [k, v.sha]));
}
