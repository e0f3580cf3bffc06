import { flag } from '../../../findings.js';
import { isObject, jsonType, own, sanitize, type JsonObject } from '../../../../core/json-util.js';
import type { Rule } from '../../../rule.js';
import { A2A_PROTO_101 } from '../spec.js';
import type { CardInput } from './input.js';

/**
 * A2A-CARD-008: an https:// url, or a supportedInterfaces / additionalInterfaces list whose items
 * all have URLs; an item URL is a string that parses as an absolute URL.
 */

export const ENDPOINT: Rule<CardInput> = {
  id: 'A2A-CARD-008',
  suite: 'a2aCard',
  component: 'card',
  severity: 'fail',
  basis: 'policy',
  needs: 'document',
  prerequisites: ['A2A-CARD-004'],
  title: 'Reachable endpoint declared',
  description: 'The card needs an https:// url, or a supportedInterfaces / additionalInterfaces list whose items all have URLs.',
  section: 'A2A 1.0.1 AgentCard.supported_interfaces; 0.3.0 §5.5',
  link: A2A_PROTO_101,
  check: checkEndpoint,
};

const LISTS = ['supportedInterfaces', 'additionalInterfaces'];

function isAbsoluteUrl(v: unknown): boolean {
  if (typeof v !== 'string' || v.trim() === '' || v.length > 8192) return false;
  return URL.canParse(v);
}

function checkEndpoint({ rec, doc }: CardInput): void {
  const card = doc as JsonObject; // A2A-CARD-004 passed
  rec.pass(ENDPOINT);
  const url = own(card, 'url');
  if (typeof url === 'string' && /^https:\/\/[^/?#\s]/i.test(url) && isAbsoluteUrl(url)) return;
  for (const key of LISTS) {
    const list = own(card, key);
    if (Array.isArray(list) && list.length > 0 && list.every((it) => isObject(it) && isAbsoluteUrl(own(it, 'url')))) return;
  }
  let why: string;
  if (url === undefined) why = 'url is missing';
  else if (typeof url !== 'string') why = `url must be a string, found ${jsonType(url)}`;
  else why = `url ${JSON.stringify(sanitize(url, 80))} is not an https:// URL`;
  flag(rec, ENDPOINT, 'document', '/url', `${why}, and ${listProblem(card)}`);
}

/** What is wrong with the first interface list the card has. */
function listProblem(card: JsonObject): string {
  for (const key of LISTS) {
    const list = own(card, key);
    if (list === undefined) continue;
    if (!Array.isArray(list)) return `${key} is ${jsonType(list)}, not a list`;
    if (list.length === 0) return `${key} is empty`;
    return `${key}[${list.findIndex((it) => !(isObject(it) && isAbsoluteUrl(own(it, 'url'))))}] has no absolute url`;
  }
  return 'there is no supportedInterfaces or additionalInterfaces list';
}
