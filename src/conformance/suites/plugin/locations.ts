import type { Rule } from '../../rule.js';
import { fail, kindWords, type PluginRun } from './run.js';
import { ap } from './spec.js';

/** PLG-010: a present skills/ is a directory and a present mcp.json a regular file (absence is fine). */

export interface LocationInput {
  run: PluginRun;
  component: 'skills' | 'mcp';
  /** What the location resolved to, inside the root. */
  kind: 'file' | 'directory' | 'other' | 'missing';
}

export const LOCATIONS: Rule<LocationInput, boolean> = {
  id: 'PLG-010',
  suite: 'agentPlugins',
  component: 'package',
  severity: 'fail',
  basis: 'spec',
  needs: 'document',
  prerequisites: ['PLG-005', 'PLG-006', 'PLG-007'],
  title: 'Component locations have their kinds',
  description:
    'skills/ is present but not a directory, or mcp.json is present but not a regular file; that component type is invalid (absence is fine).',
  ...ap('§6.1 Fixed locations, §6.2 Missing locations', '62-missing-locations'),
  check: checkLocation,
};

/** False when the location has the wrong kind: that component type is invalid, the others still load. */
function checkLocation({ run, component, kind }: LocationInput): boolean {
  const skills = component === 'skills';
  if (kind === (skills ? 'directory' : 'file')) {
    run.rec.pass(LOCATIONS);
    return true;
  }
  if (skills)
    fail(
      run,
      LOCATIONS,
      'skills',
      null,
      `skills resolves to ${kindWords(kind)}, not a directory: the skills component type is invalid (other components still load).`,
    );
  else
    fail(
      run,
      LOCATIONS,
      'mcp.json',
      null,
      `mcp.json resolves to ${kindWords(kind)}, not a regular file: MCP is invalid for the plugin (other components still load).`,
    );
  run.rec.block(...run.rec.rules.ofComponent(component));
  return false;
}
