import { CURRENT_PATH, LEGACY_PATH } from '../../../inspect/a2a.js';
import type { InspectExchange } from '../../../inspect/types.js';
import { isObject, parseJson, type JsonObject } from '../../../../core/json-util.js';
import type { Rule } from '../../../rule.js';
import { card } from '../spec.js';
import type { A2AJudgeInput } from './input.js';

/** INS-A2A-001: the card is served at the current well-known path, not only at the legacy one. */

export const WELL_KNOWN_PATH: Rule<A2AJudgeInput> = {
  id: 'INS-A2A-001',
  suite: 'inspect',
  component: 'a2a',
  severity: 'warn',
  basis: 'spec',
  needs: 'live',
  prerequisites: [],
  title: 'Card at the current well-known path',
  description: 'The card is served only at the legacy /.well-known/agent.json (before 0.3.0), not at /.well-known/agent-card.json.',
  ...card('§5.3 Recommended location', '#53-recommended-location'),
  check: checkPath,
};

/** The JSON object a 200 answer holds, or null. */
export function cardDoc(ex: InspectExchange): JsonObject | null {
  if (ex.status !== 200) return null;
  const r = parseJson(ex.body);
  return r.ok && isObject(r.value) ? r.value : null;
}

function checkPath({ checks, tries, hit, summary }: A2AJudgeInput): void {
  const path = new URL(hit.url).pathname;
  const current = tries.find((e) => new URL(e.url).pathname === CURRENT_PATH);
  summary.legacyPathOnly = path === LEGACY_PATH && !(current && cardDoc(current));
  if (summary.legacyPathOnly)
    checks.flag(
      WELL_KNOWN_PATH,
      'well-known path',
      `the card is served only at ${LEGACY_PATH}; ${CURRENT_PATH} answered ${current ? (current.status ?? current.errorClass) : 'nothing'}`,
      hit.url,
      [current, hit],
    );
  else checks.pass('well-known path', WELL_KNOWN_PATH, `card at ${hit.url}`, hit.url, [hit]);
}
