/**
 * The A2A card chain: GET the card URL from the listing, then /.well-known/agent-card.json,
 * then the legacy /.well-known/agent.json on the same origin, stopping at the first 200 whose
 * body parses as a JSON object. Every exchange is returned in order.
 *
 * Observations only: whether the agent is up, or its card conformant, is decided by processors.
 */
import { fetchBounded, type FetchOptions } from '../../http/client.js';
import { CARD_MAX_BYTES } from '../../http/limits.js';
import { parseProbeUrl } from '../../http/ssrf-guard.js';
import { jsonObjectOrNull } from '../../util/text.js';
import { ORIGIN_UNREACHABLE_ERROR_CLASSES, type Exchange } from '../../http/types.js';

export const AGENT_CARD_PATH = '/.well-known/agent-card.json';
export const LEGACY_AGENT_CARD_PATH = '/.well-known/agent.json';

export type A2AChainStepKind = 'listing' | 'agent-card' | 'legacy-agent-card';

/**
 * What happened to one candidate URL:
 * - fetched: requested (see exchanges);
 * - not_needed: an earlier step already returned a JSON object;
 * - duplicate: same URL as an earlier step (the listing URL was a well-known URL);
 * - origin_unreachable: an earlier step on this origin failed at the network level;
 * - invalid_url: no origin could be derived from the listing URL.
 */
export type A2AChainStepOutcome = 'fetched' | 'not_needed' | 'duplicate' | 'origin_unreachable' | 'invalid_url';

export interface A2AChainStep {
  kind: A2AChainStepKind;
  url: string;
  outcome: A2AChainStepOutcome;
  /** This step's exchanges (redirect hops included); empty unless fetched. */
  exchanges: Exchange[];
  /** True when the final exchange was a 200 whose body parsed as a JSON object (the stop rule). */
  jsonObject: boolean;
}

export interface A2ACardChainResult {
  /** Every exchange of the chain, in order. */
  exchanges: Exchange[];
  /** The three candidates, always in the order listing, agent-card, legacy-agent-card. */
  steps: A2AChainStep[];
  /** Index in `steps` of the step that returned a JSON object, or null. */
  cardStep: number | null;
}

export type A2AChainOptions = Omit<FetchOptions, 'accept' | 'maxBytes' | 'overCap' | 'stopWhen' | 'bodyWindowMs'> & {
  /** Per-read cap; default CARD_MAX_BYTES (512 KB). */
  maxBytes?: number;
};

function originOf(url: string): string | null {
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
}

export async function fetchA2ACardChain(cardUrl: string, opts: A2AChainOptions): Promise<A2ACardChainResult> {
  const parsed = parseProbeUrl(cardUrl);
  const origin = parsed.ok ? parsed.url.origin : null;
  const candidates: Array<{ kind: A2AChainStepKind; url: string }> = [
    { kind: 'listing', url: parsed.ok ? parsed.url.href : cardUrl },
    { kind: 'agent-card', url: origin ? new URL(AGENT_CARD_PATH, origin).href : '' },
    { kind: 'legacy-agent-card', url: origin ? new URL(LEGACY_AGENT_CARD_PATH, origin).href : '' },
  ];

  const fetchOpts: FetchOptions = {
    ...opts,
    accept: 'application/json',
    maxBytes: opts.maxBytes ?? CARD_MAX_BYTES,
    overCap: 'error',
  };

  const exchanges: Exchange[] = [];
  const steps: A2AChainStep[] = [];
  const tried = new Set<string>();
  const deadOrigins = new Set<string>();
  let cardStep: number | null = null;

  for (const c of candidates) {
    const step: A2AChainStep = { kind: c.kind, url: c.url, outcome: 'fetched', exchanges: [], jsonObject: false };
    steps.push(step);
    if (cardStep !== null) {
      step.outcome = 'not_needed';
      continue;
    }
    if (c.kind !== 'listing' && origin === null) {
      step.outcome = 'invalid_url';
      continue;
    }
    if (tried.has(c.url)) {
      step.outcome = 'duplicate';
      continue;
    }
    const o = originOf(c.url);
    if (o !== null && deadOrigins.has(o)) {
      step.outcome = 'origin_unreachable';
      continue;
    }
    tried.add(c.url);
    const res = await fetchBounded(c.url, fetchOpts);
    step.exchanges = res.exchanges;
    exchanges.push(...res.exchanges);
    const final = res.final;
    if (final.status === 200 && final.errorClass === null && jsonObjectOrNull(final) !== null) {
      step.jsonObject = true;
      cardStep = steps.length - 1;
      continue;
    }
    if (final.status === null && final.errorClass !== null && ORIGIN_UNREACHABLE_ERROR_CLASSES.includes(final.errorClass)) {
      const failedOrigin = originOf(final.url);
      if (failedOrigin !== null) deadOrigins.add(failedOrigin);
    }
  }
  return { exchanges, steps, cardStep };
}
