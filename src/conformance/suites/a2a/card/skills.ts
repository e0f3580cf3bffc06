import { flag } from '../../../findings.js';
import { isObject, jsonType, own, ptr, type JsonObject } from '../../../../core/json-util.js';
import type { Rule } from '../../../rule.js';
import { SKILL } from '../spec.js';
import type { CardInput } from './input.js';

/**
 * A2A-CARD-012 to 014: at least one skill, every skill with id, name, description and a tags
 * list. The suite asks for non-empty text only at the top level of the card; of a skill it asks
 * only that it has them, so id, name and description are checked for presence and string type
 * (an empty string passes), and tags for being a list (docs/RULES.md).
 */

export const SKILLS: Rule<CardInput> = {
  id: 'A2A-CARD-012',
  suite: 'a2aCard',
  component: 'card',
  severity: 'fail',
  basis: 'policy',
  needs: 'document',
  prerequisites: ['A2A-CARD-004'],
  title: 'At least one skill',
  description: 'skills must be a list with at least one skill.',
  ...SKILL,
  check: checkSkills,
};

export const SKILL_FIELDS: Rule<CardInput> = {
  id: 'A2A-CARD-013',
  suite: 'a2aCard',
  component: 'card',
  severity: 'fail',
  basis: 'spec',
  needs: 'document',
  prerequisites: ['A2A-CARD-004'],
  title: 'Skill id, name and description',
  description:
    'Every skill must be an object with id, name and description present as strings (the suite asks for non-empty text only at the top level of the card).',
  ...SKILL,
  check: checkSkills,
};

export const SKILL_TAGS: Rule<CardInput> = {
  id: 'A2A-CARD-014',
  suite: 'a2aCard',
  component: 'card',
  severity: 'fail',
  basis: 'spec',
  needs: 'document',
  prerequisites: ['A2A-CARD-004'],
  title: 'Skill tags list',
  description: 'Every skill must have a tags list.',
  ...SKILL,
  check: checkSkills,
};

/** The three in one pass, skill by skill, so each skill's findings stay together. */
function checkSkills({ rec, doc }: CardInput): void {
  rec.pass(SKILLS, SKILL_FIELDS, SKILL_TAGS);
  const skills = own(doc as JsonObject, 'skills');
  if (!Array.isArray(skills) || skills.length === 0) {
    flag(
      rec,
      SKILLS,
      'document',
      '/skills',
      skills === undefined
        ? 'skills is missing'
        : Array.isArray(skills)
          ? 'skills is empty: at least one skill is needed'
          : `skills must be a list, found ${jsonType(skills)}`,
    );
    return;
  }
  for (let i = 0; i < skills.length; i++) {
    const skill = skills[i];
    if (!isObject(skill)) {
      flag(rec, SKILL_FIELDS, 'document', ptr('skills', i), `skill ${i} must be an object, found ${jsonType(skill)}`);
      continue;
    }
    for (const key of ['id', 'name', 'description'] as const) {
      const v = own(skill, key);
      if (typeof v !== 'string') {
        flag(
          rec,
          SKILL_FIELDS,
          'document',
          ptr('skills', i, key),
          v === undefined ? `skill ${i} has no ${key}` : `skill ${i} ${key} must be a string, found ${jsonType(v)}`,
        );
      }
    }
    const tags = own(skill, 'tags');
    if (!Array.isArray(tags)) {
      flag(
        rec,
        SKILL_TAGS,
        'document',
        ptr('skills', i, 'tags'),
        tags === undefined ? `skill ${i} has no tags list` : `skill ${i} tags must be a list, found ${jsonType(tags)}`,
      );
    }
  }
}
