import type { Warehouse } from '../../src/warehouse/warehouse.js';
import { agentRow, checkRow, verdictRow } from '../helpers/warehouse-rows.js';

/**
 * A warehouse built to give known census rates (one UTC day, checker 1.0.0):
 *
 * - declared (0.3.0): 20 sampled cards, 5 invalid (share invalid 25%); 10 more outside the
 *   sample, all invalid, which the estimate must ignore (counts: 30 cards, 15 invalid);
 *   2 sampled invalid cards with a wrongly typed protocolVersion, 1 with a non-string tag;
 * - inferred (0.3.0, alternative 1.0.1 invalid): 10 sampled, 8 invalid (80%), every one missing
 *   protocolVersion, 4 of them valid when tolerant;
 * - conflict (1.0.1, alternative 0.3.0): 10 sampled, 4 invalid (40%); 3 valid cards are invalid
 *   under the alternative and 2 invalid cards valid under it;
 * - 5 documents with no recognised A2A claim.
 * So 7 of the 20 graded cards change verdict under the alternative (the 2 valid inferred ones too).
 *
 * Sources (active agents): 3 listed by a only, 2 by a and b, 1 by b only, 1 by c. The day's
 * checks: sampled a-only up, up, down; a+b up, down; b up; c down outside the sample; every
 * sampled up agent passes, every down one fails.
 */
export const CENSUS_DAY = new Date().toISOString().slice(0, 10);
const at = (i: number) => new Date(Date.parse(`${CENSUS_DAY}T00:00:00Z`) + 1_000 * (i + 1));

interface Card {
  route: string;
  version: string;
  valid: boolean;
  inSample: boolean;
  tolerant?: boolean;
  alt?: [string, boolean];
  reasons?: string[];
}

export function censusCards(): Card[] {
  const cards: Card[] = [];
  const pvType = 'A2A-STRUCT-002 #/protocolVersion: protocolVersion must be a string, found number (AgentCard, A2A 0.3.0)';
  const tag = 'A2A-STRUCT-003 #/skills/0/tags/1: tags[1] must be a string, found number (AgentSkill, A2A 0.3.0)';
  const missingPv = 'A2A-STRUCT-001 #/protocolVersion: required field protocolVersion is missing (AgentCard, A2A 0.3.0)';
  for (let i = 0; i < 20; i++) {
    cards.push({ route: 'declared', version: '0.3.0', valid: i >= 5, inSample: true, reasons: i < 2 ? [pvType] : i === 2 ? [tag] : [] });
  }
  for (let i = 0; i < 10; i++) cards.push({ route: 'declared', version: '0.3.0', valid: false, inSample: false });
  for (let i = 0; i < 10; i++) {
    const valid = i >= 8;
    cards.push({
      route: 'inferred',
      version: '0.3.0',
      valid,
      inSample: true,
      tolerant: valid || i < 4,
      alt: ['1.0.1', false],
      reasons: valid ? [] : [missingPv],
    });
  }
  for (let i = 0; i < 10; i++) {
    const valid = i >= 4;
    // valid: 3 of them invalid under 0.3.0; invalid: 2 of them valid under 0.3.0.
    cards.push({ route: 'conflict', version: '1.0.1', valid, inSample: true, alt: ['0.3.0', valid ? i >= 7 : i < 2] });
  }
  for (let i = 0; i < 5; i++) cards.push({ route: 'none', version: '', valid: false, inSample: true });
  return cards;
}

export async function fillCensus(wh: Warehouse, checker = '1.0.0'): Promise<void> {
  const rows = censusCards().map((c, i) =>
    verdictRow(
      {
        checker,
        id: `card-${i}`,
        agent: `https://card-${i}.example`,
        at: at(i),
        protocol: 'a2a',
        inSample: c.inSample,
        result: c.route === 'none' ? 'n/a' : c.valid ? 'pass' : 'fail',
      },
      {
        suite_id: 'veronikai-a2a-get-card',
        a2a_route: c.route,
        a2a_version: c.version,
        structure_result: c.route === 'none' ? 'n/a' : c.valid ? 'pass' : 'fail',
        structure_reasons: c.reasons ?? [],
        tolerant_valid: c.route === 'none' ? null : (c.tolerant ?? c.valid) ? 1 : 0,
        alt_version: c.alt?.[0] ?? '',
        alt_valid: c.alt ? (c.alt[1] ? 1 : 0) : null,
      },
    ),
  );
  // An older verdict of the first card, outside the day: never counted.
  rows.push({ ...rows[0]!, event_id: 'card-0-old', observed_at: new Date(at(0).getTime() - 2 * 86_400_000), structure_result: 'fail' });
  await wh.insert('verdicts', rows);

  const agents: Array<{ key: string; sources: string[]; uptime: 'up' | 'down'; inSample: boolean }> = [
    { key: 'https://s1.example', sources: ['a'], uptime: 'up', inSample: true },
    { key: 'https://s2.example', sources: ['a'], uptime: 'up', inSample: true },
    { key: 'https://s3.example', sources: ['a'], uptime: 'down', inSample: true },
    { key: 'https://s4.example', sources: ['a', 'b'], uptime: 'up', inSample: true },
    { key: 'https://s5.example', sources: ['b', 'a'], uptime: 'down', inSample: true },
    { key: 'https://s6.example', sources: ['b'], uptime: 'up', inSample: true },
    { key: 'https://s7.example', sources: ['c'], uptime: 'down', inSample: false },
  ];
  const now = new Date();
  await wh.insert(
    'agents',
    agents.map((a) => agentRow({ agent_id: a.key.slice(8, 10), agent_key: a.key, sources: a.sources, first_seen: now })),
  );
  await wh.insert(
    'checks',
    agents.map((a, i) => checkRow({ checker, id: `chk-${i}`, agent: a.key, at: at(100 + i), uptime: a.uptime, inSample: a.inSample })),
  );
  await wh.insert(
    'verdicts',
    agents.map((a, i) =>
      verdictRow({
        checker,
        id: `chk-${i}`,
        agent: a.key,
        at: at(100 + i),
        inSample: a.inSample,
        result: a.uptime === 'up' ? 'pass' : 'fail',
      }),
    ),
  );
}
