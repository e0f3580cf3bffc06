import { isObject, jsonType, own, ptr, quote } from '../../../../core/json-util.js';
import type { Rule } from '../../../rule.js';
import { fail } from '../run.js';
import { ap } from '../spec.js';
import type { ManifestInput } from './input.js';

/** PLG-009: extensions is an object of objects; the members' contents are opaque (non-fatal). */

export const EXTENSIONS: Rule<ManifestInput> = {
  id: 'PLG-009',
  suite: 'agentPlugins',
  component: 'manifest',
  severity: 'fail',
  basis: 'spec',
  needs: 'document',
  prerequisites: ['PLG-003'],
  title: 'extensions is an object of objects',
  description:
    "extensions is not an object, or one of its members is not an object (the members' contents are opaque and not judged); a client reports and ignores it, components still load.",
  ...ap('§8.1 Manifest extension data', '81-manifest-extension-data'),
  check: checkExtensions,
};

function checkExtensions({ run, doc }: ManifestInput): void {
  const ext = own(doc, 'extensions');
  if (ext === undefined) return run.rec.pass(EXTENSIONS);
  if (!isObject(ext)) {
    fail(
      run,
      EXTENSIONS,
      'plugin.json',
      '/extensions',
      `extensions must be an object keyed by extension namespace, not ${jsonType(ext)}; a client reports and ignores it and goes on loading components.`,
    );
    return;
  }
  let ok = true;
  for (const k of Object.keys(ext)) {
    const v = own(ext, k);
    if (isObject(v)) continue;
    fail(
      run,
      EXTENSIONS,
      'plugin.json',
      ptr('extensions', k),
      `extensions member ${quote(k)} must be an object, not ${jsonType(v)} (its contents are not judged).`,
    );
    ok = false;
  }
  if (ok) run.rec.pass(EXTENSIONS);
}
