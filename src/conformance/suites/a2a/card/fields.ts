import { flag } from '../../../findings.js';
import { isNonEmptyString, jsonType, own, ptr, type JsonObject } from '../../../../core/json-util.js';
import type { Rule } from '../../../rule.js';
import { CARD_OBJECT } from '../spec.js';
import type { CardInput } from './input.js';

/**
 * A2A-CARD-005 to 007: non-empty name, description and version. "Non-empty" means a string with
 * non-blank text (docs/RULES.md, suite veronikai-a2a-get-card).
 */

export const NAME: Rule<CardInput> = {
  id: 'A2A-CARD-005',
  suite: 'a2aCard',
  component: 'card',
  severity: 'fail',
  basis: 'policy',
  needs: 'document',
  prerequisites: ['A2A-CARD-004'],
  title: 'Non-empty name',
  description: 'name must be a non-empty string.',
  ...CARD_OBJECT,
  check: checkFields,
};

export const DESCRIPTION: Rule<CardInput> = {
  id: 'A2A-CARD-006',
  suite: 'a2aCard',
  component: 'card',
  severity: 'fail',
  basis: 'policy',
  needs: 'document',
  prerequisites: ['A2A-CARD-004'],
  title: 'Non-empty description',
  description: 'description must be a non-empty string.',
  ...CARD_OBJECT,
  check: checkFields,
};

export const VERSION: Rule<CardInput> = {
  id: 'A2A-CARD-007',
  suite: 'a2aCard',
  component: 'card',
  severity: 'fail',
  basis: 'policy',
  needs: 'document',
  prerequisites: ['A2A-CARD-004'],
  title: 'Non-empty version',
  description: 'version must be a non-empty string.',
  ...CARD_OBJECT,
  check: checkFields,
};

function checkFields({ rec, doc }: CardInput): void {
  const card = doc as JsonObject; // A2A-CARD-004 passed
  for (const [rule, key] of [
    [NAME, 'name'],
    [DESCRIPTION, 'description'],
    [VERSION, 'version'],
  ] as const) {
    rec.pass(rule);
    const v = own(card, key);
    if (!isNonEmptyString(v)) {
      flag(
        rec,
        rule,
        'document',
        ptr(key),
        v === undefined
          ? `${key} is missing`
          : typeof v === 'string'
            ? `${key} is empty`
            : `${key} must be a non-empty string, found ${jsonType(v)}`,
      );
    }
  }
}
