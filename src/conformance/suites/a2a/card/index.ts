import type { Rule } from '../../../rule.js';
import { CAPABILITIES } from './capabilities.js';
import { CARD_PUBLIC, CARD_SERVED } from './chain.js';
import { CARD_IS_OBJECT, CARD_JSON } from './document.js';
import { ENDPOINT } from './endpoint.js';
import { DESCRIPTION, NAME, VERSION } from './fields.js';
import type { CardInput } from './input.js';
import { INPUT_MODES, OUTPUT_MODES } from './modes.js';
import { SKILL_FIELDS, SKILL_TAGS, SKILLS } from './skills.js';

/**
 * Suite veronikai-a2a-get-card v1: the agent card GET (docs/RULES.md). The rules run in this
 * order. A2A-CARD-001 and 002 judge an observation's card chain only, and 003 a card given as
 * text only: for a document they record nothing.
 */
export const A2A_CARD_RULES: ReadonlyArray<Rule<CardInput>> = [
  CARD_PUBLIC,
  CARD_SERVED,
  CARD_JSON,
  CARD_IS_OBJECT,
  NAME,
  DESCRIPTION,
  VERSION,
  ENDPOINT,
  CAPABILITIES,
  INPUT_MODES,
  OUTPUT_MODES,
  SKILLS,
  SKILL_FIELDS,
  SKILL_TAGS,
];

export { readChain } from './chain.js';
export type { CardInput, ChainOutcome } from './input.js';
