/**
 * Where the A2A half of an inspect looks (used by the producer and the judge,
 * suites/inspect/a2a/): the card URLs, in order, and the openIdConnectUrls a card declares.
 */
import { isObject, own } from '../../core/json-util.js';

export const CURRENT_PATH = '/.well-known/agent-card.json';
export const LEGACY_PATH = '/.well-known/agent.json';

/** Where the card is looked for, in order. */
export function cardCandidates(input: string): string[] {
  let u: URL;
  try {
    u = new URL(input);
  } catch {
    return [];
  }
  const out: string[] = [];
  if (/\.json$/i.test(u.pathname) && u.pathname !== CURRENT_PATH && u.pathname !== LEGACY_PATH) out.push(u.href);
  out.push(`${u.origin}${CURRENT_PATH}`, `${u.origin}${LEGACY_PATH}`);
  return out;
}

/** Every `openIdConnectUrl` string under securitySchemes (0.x flat objects and 1.0's oneof wrappers), at most 8. */
export function openIdConnectUrls(card: unknown): string[] {
  if (!isObject(card)) return [];
  const out: string[] = [];
  const visit = (v: unknown, depth: number): void => {
    if (depth > 4 || out.length >= 8) return;
    if (Array.isArray(v)) for (const x of v.slice(0, 50)) visit(x, depth + 1);
    else if (isObject(v)) {
      for (const [k, x] of Object.entries(v).slice(0, 50)) {
        if ((k === 'openIdConnectUrl' || k === 'open_id_connect_url') && typeof x === 'string' && x !== '') {
          if (!out.includes(x)) out.push(x);
        } else visit(x, depth + 1);
      }
    }
  };
  visit(own(card, 'securitySchemes'), 0);
  return out;
}
