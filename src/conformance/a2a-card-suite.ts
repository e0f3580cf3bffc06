import { FindingSink, ruleMask } from './findings.js';
import { isNonEmptyString, isObject, jsonType, own, parseJson, ptr, sanitize } from './json-util.js';
import { errorWords, type A2AObservation, type HttpExchange } from './types.js';

/** Every rule after A2A-CARD-004: all are evaluated once the card is an object. */
const OBJECT_RULES = ruleMask(
  'A2A-CARD-005', 'A2A-CARD-006', 'A2A-CARD-007', 'A2A-CARD-008', 'A2A-CARD-009',
  'A2A-CARD-010', 'A2A-CARD-011', 'A2A-CARD-012', 'A2A-CARD-013', 'A2A-CARD-014',
);

/**
 * Suite veronikai-a2a-get-card v1 (seed 000), on a document already fetched:
 * non-empty name, description and version; an https:// url, or a supportedInterfaces /
 * additionalInterfaces list whose items have URLs; a capabilities object; non-empty
 * defaultInputModes and defaultOutputModes; at least one skill, every skill with id, name,
 * description and a tags list. "Non-empty" means a string with non-blank text, or a list with
 * at least one item; an item URL is a string that parses as an absolute URL.
 *
 * The seed asks for non-empty text only at the top level; of a skill it asks only that it
 * "must have id, name, description, and a tags list". So a skill's id, name and description are
 * checked for presence and string type (an empty string passes), and tags for being a list.
 */
export function checkCardValue(doc: unknown, sink: FindingSink): void {
  sink.evaluate('A2A-CARD-004');
  if (!isObject(doc)) {
    sink.add('A2A-CARD-004', 'document', '', `the card is ${jsonType(doc)}, not a JSON object`);
    return;
  }
  sink.evaluateMask(OBJECT_RULES);
  for (const [id, key] of [
    ['A2A-CARD-005', 'name'],
    ['A2A-CARD-006', 'description'],
    ['A2A-CARD-007', 'version'],
  ] as const) {
    const v = own(doc, key);
    if (!isNonEmptyString(v)) {
      sink.add(id, 'document', ptr(key), v === undefined ? `${key} is missing` : typeof v === 'string' ? `${key} is empty` : `${key} must be a non-empty string, found ${jsonType(v)}`);
    }
  }

  checkEndpoint(doc, sink);

  const caps = own(doc, 'capabilities');
  if (!isObject(caps)) {
    sink.add('A2A-CARD-009', 'document', '/capabilities', caps === undefined ? 'capabilities is missing' : `capabilities must be an object, found ${jsonType(caps)}`);
  }

  for (const [id, key] of [
    ['A2A-CARD-010', 'defaultInputModes'],
    ['A2A-CARD-011', 'defaultOutputModes'],
  ] as const) {
    const v = own(doc, key);
    if (!Array.isArray(v) || v.length === 0) {
      sink.add(id, 'document', ptr(key), v === undefined ? `${key} is missing` : Array.isArray(v) ? `${key} is empty` : `${key} must be a non-empty list, found ${jsonType(v)}`);
    }
  }

  const skills = own(doc, 'skills');
  if (!Array.isArray(skills) || skills.length === 0) {
    sink.add('A2A-CARD-012', 'document', '/skills', skills === undefined ? 'skills is missing' : Array.isArray(skills) ? 'skills is empty: at least one skill is needed' : `skills must be a list, found ${jsonType(skills)}`);
    return;
  }
  for (let i = 0; i < skills.length; i++) {
    const skill = skills[i];
    if (!isObject(skill)) {
      sink.add('A2A-CARD-013', 'document', ptr('skills', i), `skill ${i} must be an object, found ${jsonType(skill)}`);
      continue;
    }
    for (const key of ['id', 'name', 'description'] as const) {
      const v = own(skill, key);
      if (typeof v !== 'string') {
        sink.add('A2A-CARD-013', 'document', ptr('skills', i, key), v === undefined ? `skill ${i} has no ${key}` : `skill ${i} ${key} must be a string, found ${jsonType(v)}`);
      }
    }
    const tags = own(skill, 'tags');
    if (!Array.isArray(tags)) {
      sink.add('A2A-CARD-014', 'document', ptr('skills', i, 'tags'), tags === undefined ? `skill ${i} has no tags list` : `skill ${i} tags must be a list, found ${jsonType(tags)}`);
    }
  }
}

function isAbsoluteUrl(v: unknown): boolean {
  if (typeof v !== 'string' || v.trim() === '' || v.length > 8192) return false;
  return URL.canParse(v);
}

function checkEndpoint(doc: Record<string, unknown>, sink: FindingSink): void {
  const url = own(doc, 'url');
  if (typeof url === 'string' && /^https:\/\/[^/?#\s]/i.test(url) && isAbsoluteUrl(url)) return;
  for (const key of ['supportedInterfaces', 'additionalInterfaces']) {
    const list = own(doc, key);
    if (Array.isArray(list) && list.length > 0 && list.every((it) => isObject(it) && isAbsoluteUrl(own(it, 'url')))) return;
  }
  let why: string;
  if (url === undefined) why = 'url is missing';
  else if (typeof url !== 'string') why = `url must be a string, found ${jsonType(url)}`;
  else why = `url ${JSON.stringify(sanitize(url, 80))} is not an https:// URL`;
  let lists = 'there is no supportedInterfaces or additionalInterfaces list';
  for (const key of ['supportedInterfaces', 'additionalInterfaces']) {
    const list = own(doc, key);
    if (list === undefined) continue;
    if (!Array.isArray(list)) lists = `${key} is ${jsonType(list)}, not a list`;
    else if (list.length === 0) lists = `${key} is empty`;
    else {
      const bad = list.findIndex((it) => !(isObject(it) && isAbsoluteUrl(own(it, 'url'))));
      lists = `${key}[${bad}] has no absolute url`;
    }
    break;
  }
  sink.add('A2A-CARD-008', 'document', '/url', `${why}, and ${lists}`);
}

/** Why a document that was not valid UTF-8 is not JSON text, in the words of the crawler's `invalid_utf8`. */
export const NOT_UTF8 = 'not valid UTF-8 (invalid_utf8: invalid sequences read as U+FFFD); JSON text must be UTF-8, RFC 8259 §8.1';

/**
 * Parses and checks card text. Returns the parsed value, or undefined when the text is not JSON
 * text: it does not parse, or its bytes were not valid UTF-8 (`validUtf8` false).
 */
export function checkCardText(text: string, sink: FindingSink, validUtf8 = true): { parsed: boolean; value: unknown; why?: string } {
  sink.evaluate('A2A-CARD-003');
  // Parse first: a body that is no JSON at all fails for that, whatever its bytes, so a probe
  // event that kept no body (it was no document) judges as the whole body did.
  const r = parseJson(text);
  if (!r.ok) {
    sink.add('A2A-CARD-003', 'document', '', 'the card does not parse as JSON');
    return { parsed: false, value: undefined, why: 'the card does not parse as JSON' };
  }
  if (!validUtf8) {
    sink.add('A2A-CARD-003', 'document', '', `the card is ${NOT_UTF8}`);
    return { parsed: false, value: undefined, why: `the card is ${NOT_UTF8}` };
  }
  checkCardValue(r.value, sink);
  return { parsed: true, value: r.value };
}

/** How the card chain ended, before any document is judged. */
export type ChainOutcome =
  | { kind: 'card'; exchange: HttpExchange; index: number }
  | { kind: 'truncated'; exchange: HttpExchange; index: number }
  | { kind: 'not-public'; exchange: HttpExchange; index: number }
  | { kind: 'unknown'; reason: string }
  | { kind: 'no-card'; reason: string };

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
  const unanswered = ex.find((e) => e.status === null);
  if (ex.length === 0 || unanswered || ex.some((e) => e.status === 429)) {
    if (obs.canary === 'failed') return { kind: 'unknown', reason: 'our side: the canary failed, so a missing answer is not held against the agent' };
    if (ex.length === 0) return { kind: 'unknown', reason: 'no request was made' };
    if (unanswered) {
      return { kind: 'unknown', reason: `no answer from ${typeof unanswered.url === 'string' ? sanitize(unanswered.url, 120) : 'the card URL'} (${errorWords(unanswered.errorClass)})` };
    }
    return { kind: 'unknown', reason: 'rate limited (HTTP 429)' };
  }
  const statuses = ex.map((e) => e.status).join(', ');
  return { kind: 'no-card', reason: `no URL of the card chain returned an agent card (HTTP ${statuses})` };
}
