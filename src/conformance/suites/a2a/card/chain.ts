import { flag } from '../../../findings.js';
import { isObject, parseJson, sanitize, show } from '../../../../core/json-util.js';
import type { Rule } from '../../../rule.js';
import { errorWords, type A2AObservation } from '../../../types.js';
import { LOCATION } from '../spec.js';
import type { CardInput, ChainOutcome } from './input.js';

/** A2A-CARD-001 and 002: the card chain of an observation answered with a public card. */

export const CARD_PUBLIC: Rule<CardInput> = {
  id: 'A2A-CARD-001',
  suite: 'a2aCard',
  component: 'card-chain',
  severity: 'fail',
  basis: 'policy',
  needs: 'live',
  prerequisites: [],
  title: 'Agent card is public',
  description: 'The card URL answered HTTP 401 or 403: the agent card is not public.',
  ...LOCATION,
  check: checkPublic,
};

export const CARD_SERVED: Rule<CardInput> = {
  id: 'A2A-CARD-002',
  suite: 'a2aCard',
  component: 'card-chain',
  severity: 'fail',
  basis: 'spec',
  needs: 'live',
  prerequisites: ['A2A-CARD-001'],
  title: 'Agent card is served',
  description: 'No URL of the card chain (listing URL, /.well-known/agent-card.json, /.well-known/agent.json) returned HTTP 200.',
  ...LOCATION,
  check: checkServed,
};

/** An exchange's URL as a finding location; an ill-typed one (never from our producer) is ''. String() could throw on it. */
function urlText(url: unknown): string {
  return typeof url === 'string' ? url : '';
}

function checkPublic({ rec, chain }: CardInput): void {
  if (chain === null) return; // a document: no chain to judge
  rec.pass(CARD_PUBLIC);
  if (chain.kind === 'not-public')
    flag(rec, CARD_PUBLIC, 'card-chain', urlText(chain.exchange.url), `agent card not public (HTTP ${chain.exchange.status})`);
}

function checkServed({ rec, chain, exchanges }: CardInput): void {
  if (chain === null) return;
  rec.pass(CARD_SERVED);
  if (chain.kind !== 'no-card') return;
  const last = exchanges[exchanges.length - 1];
  flag(rec, CARD_SERVED, 'card-chain', last ? urlText(last.url) : '', chain.reason);
}

function startsLikeJsonObject(body: string | undefined): boolean {
  if (body === undefined) return false;
  const r = parseJson(body);
  return r.ok && isObject(r.value);
}

/**
 * Picks what to judge from the card chain. Order: the first 200 whose body parses as a JSON
 * object; else the first 200; else a 401/403 (not public: fails); else a 402 (not judged);
 * else a 429 or an exchange without an answer (unknown: we could not finish fairly); else no
 * card (every URL answered, none with 200: fails). robots disallow and a failed canary make an
 * inconclusive chain unknown, never a failure.
 */
export function readChain(obs: A2AObservation): ChainOutcome {
  if (obs.robots === 'disallowed') return { kind: 'unknown', reason: 'skipped (robots): robots.txt disallows the card URL' };
  const ex = Array.isArray(obs.exchanges) ? obs.exchanges : [];
  let first200 = -1;
  for (let i = 0; i < ex.length; i++) {
    const e = ex[i]!;
    if (e.status !== 200) continue;
    if (first200 < 0) first200 = i;
    if (!e.bodyTruncated && startsLikeJsonObject(e.body)) return { kind: 'card', exchange: e, index: i };
  }
  if (first200 >= 0) {
    const e = ex[first200]!;
    return e.bodyTruncated ? { kind: 'truncated', exchange: e, index: first200 } : { kind: 'card', exchange: e, index: first200 };
  }
  for (let i = 0; i < ex.length; i++) {
    const e = ex[i]!;
    if (e.status === 401 || e.status === 403) return { kind: 'not-public', exchange: e, index: i };
  }
  if (ex.some((e) => e.status === 402)) return { kind: 'unknown', reason: 'not judged: HTTP 402 Payment Required (we do not pay)' };
  return (
    unanswered(obs, ex) ?? {
      kind: 'no-card',
      // show: a status of the wrong type (an ill-typed observation) is named by its type, never converted.
      reason: `no URL of the card chain returned an agent card (HTTP ${ex.map((e) => show(e.status)).join(', ')})`,
    }
  );
}

/** A chain that ended without an answer (nothing asked, no answer, or rate limited): unknown; null when every URL answered. */
function unanswered(obs: A2AObservation, ex: A2AObservation['exchanges']): ChainOutcome | null {
  const none = ex.find((e) => e.status === null);
  if (ex.length > 0 && !none && !ex.some((e) => e.status === 429)) return null;
  if (obs.canary === 'failed')
    return { kind: 'unknown', reason: 'our side: the canary failed, so a missing answer is not held against the agent' };
  if (ex.length === 0) return { kind: 'unknown', reason: 'no request was made' };
  if (none)
    return {
      kind: 'unknown',
      reason: `no answer from ${typeof none.url === 'string' ? sanitize(none.url, 120) : 'the card URL'} (${errorWords(none.errorClass)})`,
    };
  return { kind: 'unknown', reason: 'rate limited (HTTP 429)' };
}
