import { flag } from '../../../findings.js';
import { jsonType, own, ptr, type JsonObject } from '../../../../core/json-util.js';
import type { Rule } from '../../../rule.js';
import { CARD_OBJECT } from '../spec.js';
import type { CardInput } from './input.js';

/** A2A-CARD-010 and 011: non-empty defaultInputModes and defaultOutputModes (a list with at least one item). */

export const INPUT_MODES: Rule<CardInput> = {
  id: 'A2A-CARD-010',
  suite: 'a2aCard',
  component: 'card',
  severity: 'fail',
  basis: 'policy',
  needs: 'document',
  prerequisites: ['A2A-CARD-004'],
  title: 'Non-empty defaultInputModes',
  description: 'defaultInputModes must be a non-empty list.',
  ...CARD_OBJECT,
  check: checkModes,
};

export const OUTPUT_MODES: Rule<CardInput> = {
  id: 'A2A-CARD-011',
  suite: 'a2aCard',
  component: 'card',
  severity: 'fail',
  basis: 'policy',
  needs: 'document',
  prerequisites: ['A2A-CARD-004'],
  title: 'Non-empty defaultOutputModes',
  description: 'defaultOutputModes must be a non-empty list.',
  ...CARD_OBJECT,
  check: checkModes,
};

function checkModes({ rec, doc }: CardInput): void {
  for (const [rule, key] of [
    [INPUT_MODES, 'defaultInputModes'],
    [OUTPUT_MODES, 'defaultOutputModes'],
  ] as const) {
    rec.pass(rule);
    const v = own(doc as JsonObject, key);
    if (!Array.isArray(v) || v.length === 0) {
      flag(
        rec,
        rule,
        'document',
        ptr(key),
        v === undefined
          ? `${key} is missing`
          : Array.isArray(v)
            ? `${key} is empty`
            : `${key} must be a non-empty list, found ${jsonType(v)}`,
      );
    }
  }
}
