import type { Resolution } from '../../plugin/snapshot.js';
import type { Rule } from '../../rule.js';
import { fail, unable, type PluginRun } from './run.js';
import { ap } from './spec.js';

/** PLG-002: every path the check reads resolves inside the plugin root (plugin.json, skills/, a skill, its SKILL.md, mcp.json). */

export interface ContainmentInput {
  run: PluginRun;
  /** The root-relative path. */
  file: string;
  res: Resolution | undefined;
}

export const CONTAINED: Rule<ContainmentInput, boolean> = {
  id: 'PLG-002',
  suite: 'agentPlugins',
  component: 'package',
  severity: 'fail',
  basis: 'spec',
  needs: 'document',
  prerequisites: [],
  title: 'Inspected paths stay inside the plugin root',
  description:
    'plugin.json, skills/, a skill directory, a SKILL.md or mcp.json resolves outside the filesystem-resolved plugin root, or through a broken or looping symbolic link.',
  ...ap('§4.1 General requirements', '41-general-requirements'),
  check: checkContained,
};

/** Records where a path resolved; true when inside the root (the callers block what a failure leaves unread). */
function checkContained({ run, file, res }: ContainmentInput): boolean {
  if (!res) {
    unable(run, CONTAINED, file, `${file} was not resolved`);
    return false;
  }
  switch (res.status) {
    case 'inside':
      run.rec.pass(CONTAINED);
      return true;
    case 'escape':
      fail(run, CONTAINED, file, null, `${file} resolves outside the plugin root (${res.detail}); a client must deny access to it.`);
      return false;
    case 'broken':
      fail(run, CONTAINED, file, null, `${file} leads through a broken symbolic link (${res.detail}).`);
      return false;
    case 'error':
      unable(run, CONTAINED, file, `${file} could not be inspected: ${res.detail}`);
      return false;
  }
}
