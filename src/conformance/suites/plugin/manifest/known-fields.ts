import { ptr, quote } from '../../../../core/json-util.js';
import type { Rule } from '../../../rule.js';
import { fail } from '../run.js';
import { ap } from '../spec.js';
import type { ManifestInput } from './input.js';

/** PLG-008: no top-level field outside the closed manifest schema; a client reports and ignores one (non-fatal). */

const MANIFEST_FIELDS = [
  '$schema',
  'name',
  'version',
  'description',
  'author',
  'homepage',
  'repository',
  'license',
  'keywords',
  'extensions',
];

export const KNOWN_FIELDS: Rule<ManifestInput> = {
  id: 'PLG-008',
  suite: 'agentPlugins',
  component: 'manifest',
  severity: 'fail',
  basis: 'spec',
  needs: 'document',
  prerequisites: ['PLG-003'],
  title: 'No unknown top-level manifest fields',
  description:
    'plugin.json has a top-level field outside the closed schema; a client reports and ignores it and loads the plugin, but the package does not conform.',
  ...ap('§5.2 Manifest object', '52-manifest-object'),
  check: checkKnownFields,
};

function checkKnownFields({ run, doc }: ManifestInput): void {
  const unknown = Object.keys(doc).filter((k) => !MANIFEST_FIELDS.includes(k));
  for (const k of unknown) {
    const hint =
      k === 'mcpServers' || k === 'skills'
        ? ' (components are discovered only from their fixed locations, never declared in plugin.json)'
        : '';
    fail(
      run,
      KNOWN_FIELDS,
      'plugin.json',
      ptr(k),
      `Unknown top-level field ${quote(k)}${hint}: the manifest schema is closed; client-specific data belongs under extensions. A client reports and ignores it.`,
    );
  }
  if (unknown.length === 0) run.rec.pass(KNOWN_FIELDS);
}
