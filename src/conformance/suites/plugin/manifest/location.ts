import type { Resolution } from '../../../plugin/snapshot.js';
import type { Rule } from '../../../rule.js';
import { CONTAINED } from '../containment.js';
import { fail, kindWords, unable, type PluginRun } from '../run.js';
import { ap } from '../spec.js';

/** PLG-001: plugin.json (exact name) is at the plugin root and resolves to a regular file. */

export const MANIFEST_PRESENT: Rule<PluginRun, boolean> = {
  id: 'PLG-001',
  suite: 'agentPlugins',
  component: 'manifest',
  severity: 'fail',
  basis: 'spec',
  needs: 'document',
  prerequisites: ['PLG-002'],
  title: 'Root manifest present',
  description: 'plugin.json (exact name) is missing at the plugin root or does not resolve to a regular file; the plugin is rejected.',
  ...ap('§4.1, §5.1 Location and loading', '51-location-and-loading'),
  check: checkManifestPresent,
};

/** True when plugin.json is a regular file inside the root; otherwise what needs it is blocked. */
function checkManifestPresent(run: PluginRun): boolean {
  const { rootError, manifest } = run.snap;
  if (rootError !== undefined) {
    unable(run, MANIFEST_PRESENT, '.', `the plugin root could not be listed: ${rootError}`);
  } else if (!manifest.present) {
    fail(
      run,
      MANIFEST_PRESENT,
      'plugin.json',
      null,
      'No plugin.json (exact name) at the plugin root: a plugin must include its manifest there, and a client rejects the plugin.',
    );
  } else if (!CONTAINED.check({ run, file: 'plugin.json', res: manifest.resolution })) {
    run.rec.blockDependents(CONTAINED);
    return false;
  } else {
    const kind = (manifest.resolution as Extract<Resolution, { status: 'inside' }>).kind;
    if (kind === 'file') {
      run.rec.pass(MANIFEST_PRESENT);
      return true;
    }
    fail(run, MANIFEST_PRESENT, 'plugin.json', null, `plugin.json resolves to ${kindWords(kind)}, not a regular file.`);
  }
  run.rec.blockDependents(MANIFEST_PRESENT);
  return false;
}
