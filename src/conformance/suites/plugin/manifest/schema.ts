import { own, quote } from '../../../../core/json-util.js';
import type { Rule } from '../../../rule.js';
import { fail } from '../run.js';
import { AGENT_PLUGINS_VERSION, MANIFEST_SCHEMA_ID, ap } from '../spec.js';
import type { ManifestInput } from './input.js';
import { usable } from './required.js';

/** PLG-005: $schema is the canonical identifier of the one Agent Plugins version this checker supports. */

const MANIFEST_SCHEMA_FORM = /^https:\/\/agent-plugins\.org\/schemas\/([^/]+)\/plugin\.schema\.json$/;

export const MANIFEST_SCHEMA: Rule<ManifestInput> = {
  id: 'PLG-005',
  suite: 'agentPlugins',
  component: 'manifest',
  severity: 'fail',
  basis: 'spec',
  needs: 'document',
  prerequisites: ['PLG-004'],
  title: 'Canonical manifest schema identifier',
  description: `$schema is not the canonical identifier ${MANIFEST_SCHEMA_ID} (the only Agent Plugins version this checker supports); the plugin is rejected.`,
  ...ap('§5.2 Manifest object', '52-manifest-object'),
  check: checkSchema,
};

function checkSchema(input: ManifestInput): void {
  const { run, doc } = input;
  const schema = own(doc, '$schema');
  if (!usable(schema)) {
    run.rec.block(MANIFEST_SCHEMA); // PLG-004 failed for it: nothing to read
    return;
  }
  if (schema === MANIFEST_SCHEMA_ID) {
    run.rec.pass(MANIFEST_SCHEMA);
    input.version = AGENT_PLUGINS_VERSION;
    return;
  }
  const other = MANIFEST_SCHEMA_FORM.exec(schema);
  fail(
    run,
    MANIFEST_SCHEMA,
    'plugin.json',
    '/$schema',
    other
      ? `$schema declares Agent Plugins ${quote(other[1]!)}, which this checker does not support (only ${AGENT_PLUGINS_VERSION}: ${MANIFEST_SCHEMA_ID}); a client that does not support the version rejects the plugin.`
      : `$schema is ${quote(schema, 120)}, not the canonical identifier ${MANIFEST_SCHEMA_ID}.`,
  );
}
