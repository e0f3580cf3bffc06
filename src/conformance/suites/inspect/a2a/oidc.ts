import { openIdConnectUrls } from '../../../inspect/a2a.js';
import type { InspectExchange } from '../../../inspect/types.js';
import { isObject, parseJson } from '../../../../core/json-util.js';
import type { Rule } from '../../../rule.js';
import { card } from '../spec.js';
import type { A2AJudgeInput } from './input.js';

/** INS-A2A-008: every declared openIdConnectUrl answers with a JSON OpenID configuration. */

export const OIDC_RESOLVES: Rule<A2AJudgeInput> = {
  id: 'INS-A2A-008',
  suite: 'inspect',
  component: 'a2a',
  severity: 'fail',
  basis: 'spec',
  needs: 'live',
  prerequisites: [],
  title: 'openIdConnectUrl resolves',
  description: 'A declared openIdConnectUrl must answer with a JSON OpenID configuration carrying issuer or authorization_endpoint.',
  ...card('§5.5 AgentCard securitySchemes (OpenIdConnectSecurityScheme)', '#55-agentcard-object-structure'),
  check: checkOidc,
};

function oidcResolves(ex: InspectExchange | undefined): { ok: boolean; why: string } {
  if (!ex) return { ok: false, why: 'not fetched (the budget or time ran out)' };
  if (ex.status !== 200) return { ok: false, why: ex.status === null ? `no answer (${ex.errorClass ?? 'error'})` : `HTTP ${ex.status}` };
  const r = parseJson(ex.body);
  if (!r.ok || !isObject(r.value)) return { ok: false, why: 'the answer is not a JSON object' };
  if (typeof r.value.issuer === 'string' || typeof r.value.authorization_endpoint === 'string')
    return { ok: true, why: `issuer ${String(r.value.issuer ?? '')}`.trim() };
  return { ok: false, why: 'the JSON has neither issuer nor authorization_endpoint' };
}

/** Each declared URL, as fetched (the producer tagged each fetch with the declared URL in `form`). */
function checkOidc({ checks, all, card: value, summary, detail }: A2AJudgeInput): void {
  const urls = openIdConnectUrls(value);
  detail.openIdConnectUrls = urls;
  if (urls.length === 0) return;
  let dead = false;
  for (const u of urls) {
    const fetched = all.filter((e) => e.step === 'a2a.oidc' && e.form === u);
    const r = oidcResolves(fetched[fetched.length - 1]);
    if (r.ok) checks.pass('openIdConnectUrl', OIDC_RESOLVES, `${u} resolves (${r.why})`, u, fetched);
    else {
      dead = true;
      checks.flag(OIDC_RESOLVES, 'openIdConnectUrl', `${u} does not resolve to an OpenID configuration: ${r.why}`, u, fetched);
    }
  }
  summary.oidc = dead ? 'dead' : 'resolves';
}
