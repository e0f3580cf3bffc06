import type { Rule } from '../../../rule.js';
import { LOCATIONS } from '../locations.js';
import type { PluginRun } from '../run.js';
import { EXTENSIONS } from './extensions.js';
import type { ManifestInput } from './input.js';
import { MANIFEST_JSON } from './json.js';
import { KNOWN_FIELDS } from './known-fields.js';
import { MANIFEST_PRESENT } from './location.js';
import { METADATA } from './metadata.js';
import { PLUGIN_NAME } from './name.js';
import { MANIFEST_SCHEMA } from './schema.js';
import { REQUIRED_FIELDS } from './required.js';

/** The rules on the manifest's fields, in the order they are judged. */
const FIELD_RULES: ReadonlyArray<Rule<ManifestInput, void>> = [
  REQUIRED_FIELDS,
  MANIFEST_SCHEMA,
  PLUGIN_NAME,
  METADATA,
  KNOWN_FIELDS,
  EXTENSIONS,
];

export interface ManifestOutcome {
  /** The manifest allows component discovery. */
  ok: boolean;
  /** The Agent Plugins version plugin.json declares (when ok). */
  version: string | null;
}

/**
 * Judges plugin.json. Component discovery (PLG-010 and what needs it) runs only when none of
 * PLG-010's prerequisites failed or was blocked: a client rejects such a plugin (§5.2, §5.3).
 * Unknown fields and a non-object `extensions` fail the package but stop nothing (§5.2, §8.1).
 */
export function evaluateManifest(run: PluginRun): ManifestOutcome {
  const notOk = { ok: false, version: null };
  if (!MANIFEST_PRESENT.check(run)) return notOk;
  const doc = MANIFEST_JSON.check(run);
  if (doc === null) return notOk;
  const input: ManifestInput = { run, doc, version: null };
  for (const rule of FIELD_RULES) rule.check(input);
  if (LOCATIONS.prerequisites.some((id) => run.rec.stopped(id))) {
    run.rec.block(LOCATIONS, ...run.rec.rules.dependents(LOCATIONS.id));
    return notOk;
  }
  return { ok: true, version: input.version };
}

export { pluginNameProblem } from './name.js';
