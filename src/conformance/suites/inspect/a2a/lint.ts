import type { CheckList } from '../../../inspect/checks.js';
import { findSecrets } from '../../../inspect/secrets.js';
import type { InspectExchange } from '../../../inspect/types.js';
import { isNonEmptyString, isObject, own, ptr, type JsonObject } from '../../../../core/json-util.js';
import { classifyHost } from '../../../../core/private-host.js';
import type { Rule } from '../../../rule.js';
import { card } from '../spec.js';
import type { LintInput, LintResult } from './input.js';

/**
 * The document rules of the A2A lint (INS-A2A-002 to 007), judged in one pass on a card's text:
 * skills and their descriptions, default modes, declared security schemes, embedded secrets.
 * They judge the card alone, so they also run over the corpus.
 */

export const HAS_SKILLS: Rule<LintInput, LintResult> = {
  id: 'INS-A2A-002',
  suite: 'inspect',
  component: 'a2a',
  severity: 'fail',
  basis: 'spec',
  needs: 'document',
  prerequisites: [],
  title: 'At least one skill',
  description: 'The card declares no skill: routing agents select agents by their skills.',
  ...card('§5.5.4 AgentSkill object', '#554-agentskill-object'),
  check: lint,
};

export const SKILLS_DESCRIBED: Rule<LintInput, LintResult> = {
  id: 'INS-A2A-003',
  suite: 'inspect',
  component: 'a2a',
  severity: 'fail',
  basis: 'spec',
  needs: 'document',
  prerequisites: [],
  title: 'Every skill described',
  description: 'A skill has no non-blank description: it is invisible to routing by description.',
  ...card('§5.5.4 AgentSkill object', '#554-agentskill-object'),
  check: lint,
};

export const INPUT_MODES: Rule<LintInput, LintResult> = {
  id: 'INS-A2A-004',
  suite: 'inspect',
  component: 'a2a',
  severity: 'fail',
  basis: 'spec',
  needs: 'document',
  prerequisites: [],
  title: 'Default input modes declared',
  description: 'defaultInputModes is missing or empty: a client cannot tell which content types the agent accepts.',
  ...card('§5.5 AgentCard object structure', '#55-agentcard-object-structure'),
  check: lint,
};

export const OUTPUT_MODES: Rule<LintInput, LintResult> = {
  id: 'INS-A2A-005',
  suite: 'inspect',
  component: 'a2a',
  severity: 'fail',
  basis: 'spec',
  needs: 'document',
  prerequisites: [],
  title: 'Default output modes declared',
  description: 'defaultOutputModes is missing or empty: a client cannot tell which content types the agent produces.',
  ...card('§5.5 AgentCard object structure', '#55-agentcard-object-structure'),
  check: lint,
};

export const SECURITY_SCHEMES: Rule<LintInput, LintResult> = {
  id: 'INS-A2A-006',
  suite: 'inspect',
  component: 'a2a',
  severity: 'warn',
  basis: 'policy',
  needs: 'document',
  prerequisites: [],
  title: 'Security schemes declared',
  description: 'A production-shaped card (a public https endpoint) declares no securitySchemes at all.',
  ...card('§5.5 AgentCard object structure (securitySchemes)', '#55-agentcard-object-structure'),
  check: lint,
};

export const NO_SECRET: Rule<LintInput, LintResult> = {
  id: 'INS-A2A-007',
  suite: 'inspect',
  component: 'a2a',
  severity: 'fail',
  basis: 'policy',
  needs: 'document',
  prerequisites: [],
  title: 'No embedded secret',
  description:
    'The public card text contains a credential-shaped string (provider key prefix, bearer token, JWT or private key) that passed the entropy test; the match is reported redacted.',
  ...card('§4 Authentication and Authorization (credentials travel out of band)', '#4-authentication-and-authorization'),
  check: lint,
};

/**
 * Lints a card's text; `value` is the parsed card (a JSON object). `where` is the card's URL or
 * file name, for the check locations; `evidence` is the fetch the card came from (none for a file).
 */
export function lintCard(text: string, value: JsonObject, where: string, checks: CheckList, evidence: InspectExchange[] = []): LintResult {
  return lint({ text, value, where, checks, evidence });
}

function lint(input: LintInput): LintResult {
  const { text, value, where, checks, evidence } = input;
  const skillsWithoutDescription = lintSkills(input);
  for (const [rule, key] of [
    [INPUT_MODES, 'defaultInputModes'],
    [OUTPUT_MODES, 'defaultOutputModes'],
  ] as const) {
    const v = own(value, key);
    if (!Array.isArray(v) || v.length === 0)
      checks.flag(
        rule,
        key,
        v === undefined ? `${key} is missing` : Array.isArray(v) ? `${key} is empty` : `${key} is not a list`,
        `${where}#${ptr(key)}`,
        evidence,
      );
    else checks.pass(key, rule, `${key}: ${v.slice(0, 5).map(String).join(', ')}`, `${where}#${ptr(key)}`, evidence);
  }
  const schemes = own(value, 'securitySchemes');
  const securitySchemesDeclared = isObject(schemes) && Object.keys(schemes).length > 0;
  const at = `${where}#/securitySchemes`;
  if (securitySchemesDeclared)
    checks.pass('security schemes', SECURITY_SCHEMES, `securitySchemes: ${Object.keys(schemes).slice(0, 5).join(', ')}`, at, evidence);
  else if (productionShaped(value))
    checks.flag(SECURITY_SCHEMES, 'security schemes', 'a card with a public https endpoint declares no securitySchemes', at, evidence);
  else checks.info('security schemes', 'no securitySchemes (the card has no public https endpoint, so it is not flagged)', at, evidence);
  const secrets = findSecrets(text);
  if (secrets.length > 0) {
    for (const s of secrets.slice(0, 10))
      checks.flag(
        NO_SECRET,
        'embedded secret',
        `${s.kind} in the card text at character ${s.offset}: ${s.redacted} (entropy ${s.entropy} bits/char)`,
        where,
        evidence,
      );
  } else checks.pass('embedded secret', NO_SECRET, 'no credential-shaped string in the card text', where, evidence);
  return { skillsWithoutDescription, securitySchemesDeclared, secrets };
}

/** INS-A2A-002 and 003; the number of skills without a description. */
function lintSkills({ value, where, checks, evidence }: LintInput): number {
  const at = `${where}#/skills`;
  const skills = own(value, 'skills');
  if (!Array.isArray(skills) || skills.length === 0) {
    checks.flag(
      HAS_SKILLS,
      'skills',
      skills === undefined ? 'the card has no skills list' : Array.isArray(skills) ? 'the skills list is empty' : 'skills is not a list',
      at,
      evidence,
    );
    return 0;
  }
  checks.pass('skills', HAS_SKILLS, `${skills.length} skill(s)`, at, evidence);
  let count = 0;
  const undescribed: string[] = [];
  skills.forEach((s, i) => {
    if (isObject(s) && isNonEmptyString(own(s, 'description'))) return;
    count++;
    if (undescribed.length < 10) undescribed.push(isObject(s) && typeof s.id === 'string' ? `${i} (${s.id.slice(0, 60)})` : String(i));
  });
  if (count > 0)
    checks.flag(SKILLS_DESCRIBED, 'skill descriptions', `${count} skill(s) without a description: ${undescribed.join(', ')}`, at, evidence);
  else checks.pass('skill descriptions', SKILLS_DESCRIBED, 'every skill has a description', at, evidence);
  return count;
}

/** The card's endpoint URLs (0.x url, additionalInterfaces; 1.0 supportedInterfaces). */
function endpointUrls(value: JsonObject): string[] {
  const out: string[] = [];
  const url = own(value, 'url');
  if (typeof url === 'string') out.push(url);
  for (const key of ['supportedInterfaces', 'additionalInterfaces']) {
    const list = own(value, key);
    if (Array.isArray(list)) for (const i of list.slice(0, 50)) if (isObject(i) && typeof i.url === 'string') out.push(i.url);
  }
  return out;
}

/** A production-shaped card: an https endpoint on a public, non-placeholder host. */
function productionShaped(value: JsonObject): boolean {
  return endpointUrls(value).some((s) => {
    try {
      const u = new URL(s);
      return u.protocol === 'https:' && classifyHost(u.hostname) === null;
    } catch {
      return false;
    }
  });
}
