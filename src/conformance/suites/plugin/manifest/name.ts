import { own, quote } from '../../../../core/json-util.js';
import type { Rule } from '../../../rule.js';
import { fail } from '../run.js';
import { ap } from '../spec.js';
import type { ManifestInput } from './input.js';
import { usable } from './required.js';

/** PLG-006: the plugin name's constraints (§5.5). */

export const PLUGIN_NAME: Rule<ManifestInput> = {
  id: 'PLG-006',
  suite: 'agentPlugins',
  component: 'manifest',
  severity: 'fail',
  basis: 'spec',
  needs: 'document',
  prerequisites: ['PLG-004'],
  title: 'Plugin name constraints',
  description:
    'name is longer than 64 characters, has a character outside a-z 0-9 - ., does not start and end alphanumeric, or contains -- or ..; the plugin is rejected.',
  ...ap('§5.5 Plugin name constraints', '55-plugin-name-constraints'),
  check: checkName,
};

function checkName({ run, doc }: ManifestInput): void {
  const name = own(doc, 'name');
  if (!usable(name)) {
    run.rec.block(PLUGIN_NAME); // PLG-004 failed for it: nothing to read
    return;
  }
  const why = pluginNameProblem(name);
  if (why === null) run.rec.pass(PLUGIN_NAME);
  else fail(run, PLUGIN_NAME, 'plugin.json', '/name', `name ${quote(name)} ${why}.`);
}

/** Why a non-empty plugin name breaks §5.5, or null. */
export function pluginNameProblem(name: string): string | null {
  const n = [...name].length;
  if (n > 64) return `is ${n} characters long (at most 64)`;
  const bad = [...name].find((ch) => !/[a-z0-9.-]/.test(ch));
  if (bad !== undefined) return `contains ${quote(bad)}: only lowercase a-z, digits, hyphens and periods are allowed`;
  if (!/^[a-z0-9]/.test(name)) return 'must start with a lowercase letter or digit';
  if (!/[a-z0-9]$/.test(name)) return 'must end with a lowercase letter or digit';
  if (name.includes('--')) return 'contains consecutive hyphens (--)';
  if (name.includes('..')) return 'contains consecutive periods (..)';
  return null;
}
