import { jsonType, own, ptr } from '../../../../core/json-util.js';
import type { Rule } from '../../../rule.js';
import { fail } from '../run.js';
import { ap } from '../spec.js';
import type { ManifestInput } from './input.js';

/** PLG-004: $schema and name are non-empty strings. */

export const REQUIRED_FIELDS: Rule<ManifestInput> = {
  id: 'PLG-004',
  suite: 'agentPlugins',
  component: 'manifest',
  severity: 'fail',
  basis: 'spec',
  needs: 'document',
  prerequisites: ['PLG-003'],
  title: 'Required $schema and name',
  description: '$schema or name is missing, not a string, or empty; the plugin is rejected.',
  ...ap('§5.3 Required fields', '53-required-fields'),
  check: checkRequired,
};

function checkRequired({ run, doc }: ManifestInput): void {
  let ok = true;
  for (const field of ['$schema', 'name']) {
    const v = own(doc, field);
    let why: string | null = null;
    if (v === undefined) why = `The required field ${field} is missing.`;
    else if (typeof v !== 'string') why = `${field} must be a string, not ${jsonType(v)}.`;
    else if (v === '') why = `${field} must not be empty.`;
    if (why === null) continue;
    fail(run, REQUIRED_FIELDS, 'plugin.json', ptr(field), why);
    ok = false;
  }
  if (ok) run.rec.pass(REQUIRED_FIELDS);
}

/** A required field PLG-004 found usable: a non-empty string. */
export function usable(v: unknown): v is string {
  return typeof v === 'string' && v !== '';
}
