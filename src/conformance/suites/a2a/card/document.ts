import { flag, NOT_UTF8 } from '../../../findings.js';
import { isObject, jsonType, parseJson } from '../../../../core/json-util.js';
import type { Rule } from '../../../rule.js';
import { CARD_OBJECT } from '../spec.js';
import type { CardInput } from './input.js';

/** A2A-CARD-003 and 004: the card is JSON text holding an object. */

export const CARD_JSON: Rule<CardInput> = {
  id: 'A2A-CARD-003',
  suite: 'a2aCard',
  component: 'card',
  severity: 'fail',
  basis: 'spec',
  needs: 'document',
  prerequisites: ['A2A-CARD-002'],
  title: 'Agent card is valid JSON',
  description: 'The card body does not parse as JSON, or is not valid UTF-8 (RFC 8259 §8.1).',
  ...CARD_OBJECT,
  check: checkJson,
};

export const CARD_IS_OBJECT: Rule<CardInput> = {
  id: 'A2A-CARD-004',
  suite: 'a2aCard',
  component: 'card',
  severity: 'fail',
  basis: 'spec',
  needs: 'document',
  prerequisites: ['A2A-CARD-003'],
  title: 'Agent card is a JSON object',
  description: 'The card parses but is not a JSON object.',
  ...CARD_OBJECT,
  check: checkObject,
};

/** Parses the card text and leaves the card for the rules after it. */
function checkJson(input: CardInput): void {
  if (input.text === null) return; // given as a value: nothing to parse
  input.rec.pass(CARD_JSON);
  // Parse first: a body that is no JSON at all fails for that, whatever its bytes, so a probe
  // event that kept no body (it was no document) judges as the whole body did.
  const r = parseJson(input.text);
  if (!r.ok) input.why = 'the card does not parse as JSON';
  else if (!input.validUtf8) input.why = `the card is ${NOT_UTF8}`;
  else {
    input.doc = r.value;
    input.parsed = true;
    return;
  }
  input.parsed = false;
  flag(input.rec, CARD_JSON, 'document', '', input.why);
}

function checkObject({ rec, doc }: CardInput): void {
  rec.pass(CARD_IS_OBJECT);
  if (!isObject(doc)) flag(rec, CARD_IS_OBJECT, 'document', '', `the card is ${jsonType(doc)}, not a JSON object`);
}
