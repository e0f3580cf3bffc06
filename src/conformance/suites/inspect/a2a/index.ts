import { attribute } from '../../../a2a-attribution.js';
import { CheckList } from '../../../inspect/checks.js';
import type { InspectExchange } from '../../../inspect/types.js';
import type { JsonObject } from '../../../../core/json-util.js';
import { checkA2ACard } from '../../../verdict.js';
import { INSPECT_SET } from '../rules.js';
import type { A2AJudgeInput, A2AJudgement } from './input.js';
import { HAS_SKILLS } from './lint.js';
import { OIDC_RESOLVES } from './oidc.js';
import { cardDoc, WELL_KNOWN_PATH } from './path.js';

/**
 * The A2A half of an inspect: find the card (the URL given when it names a .json document, then
 * /.well-known/agent-card.json, then the legacy /.well-known/agent.json), judge it with the
 * suites the index uses (veronikai-a2a-get-card and veronikai-a2a-structure with its version
 * attribution), and lint it: skills and their descriptions, default modes, declared security
 * schemes, embedded secrets, and whether every openIdConnectUrl resolves.
 */

/** A JSON object that reads as an agent card: an A2A version claim, or a name with skills or an endpoint. */
function cardLike(v: JsonObject): boolean {
  return attribute(v).route !== 'none' || (typeof v.name === 'string' && ('skills' in v || 'supportedInterfaces' in v));
}

export function judgeA2A(url: string, all: InspectExchange[], observedAt: string): A2AJudgement {
  const checks = new CheckList('a2a', INSPECT_SET);
  const summary: A2AJudgement['summary'] = {
    state: 'not_detected',
    cardUrl: null,
    legacyPathOnly: false,
    secretsFound: 0,
    oidc: 'absent',
    skillsWithoutDescription: 0,
    securitySchemesDeclared: false,
  };
  const detail: A2AJudgement['detail'] = { attribution: null, secrets: [], openIdConnectUrls: [] };
  const tries = all.filter((e) => e.step === 'a2a.card');
  const hit = tries.find((e) => {
    const d = cardDoc(e);
    return d !== null && cardLike(d);
  });
  if (!hit) {
    const closed = tries.find((e) => e.status === 401 || e.status === 403);
    if (closed) {
      summary.state = 'indicated';
      checks.info('agent card', `the card URL answered HTTP ${closed.status}: a card may be there, but it is not public`, closed.url, [
        closed,
      ]);
    } else {
      checks.info(
        'agent card',
        `no agent card: ${tries.map((e) => `${e.url} (${e.status ?? e.errorClass})`).join(', ') || 'nothing fetched'}`,
        url,
        tries,
      );
    }
    return { summary, checks: checks.list, suites: [], detail };
  }
  const input: A2AJudgeInput = { checks, all, tries, hit, card: cardDoc(hit)!, summary, detail };
  summary.cardUrl = hit.url;
  WELL_KNOWN_PATH.check(input);
  // The index's suites on the same text, with their version attribution.
  const { card, structure } = checkA2ACard({ text: hit.body }, { subject: hit.url, observedAt });
  detail.attribution = attribute(input.card);
  const lint = HAS_SKILLS.check({ text: hit.body, value: input.card, where: hit.url, checks, evidence: [hit] });
  summary.skillsWithoutDescription = lint.skillsWithoutDescription;
  summary.securitySchemesDeclared = lint.securitySchemesDeclared;
  summary.secretsFound = lint.secrets.length;
  detail.secrets = lint.secrets;
  OIDC_RESOLVES.check(input);
  summary.state = detail.attribution.route !== 'none' && structure.result === 'pass' && card.result !== 'fail' ? 'confirmed' : 'indicated';
  checks.info(
    'validation',
    `attribution: ${detail.attribution.route}${detail.attribution.family ? ` (A2A ${detail.attribution.family})` : ''}; ${card.suite.id}: ${card.result}; ${structure.suite.id}: ${structure.result}`,
    hit.url,
    [hit],
  );
  return { summary, checks: checks.list, suites: [card, structure], detail };
}

export { lintCard } from './lint.js';
export type { A2AJudgement, A2ASummary, LintResult } from './input.js';
