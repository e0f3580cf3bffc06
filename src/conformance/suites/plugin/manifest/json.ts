import { isObject, jsonType, parseJson, type JsonObject } from '../../../../core/json-util.js';
import type { Rule } from '../../../rule.js';
import { fail, parseErrorAt, parseMessage, unable, type PluginRun } from '../run.js';
import { ap } from '../spec.js';

/** PLG-003: plugin.json is UTF-8 JSON text holding an object. */

export const MANIFEST_JSON: Rule<PluginRun, JsonObject | null> = {
  id: 'PLG-003',
  suite: 'agentPlugins',
  component: 'manifest',
  severity: 'fail',
  basis: 'spec',
  needs: 'document',
  prerequisites: ['PLG-001'],
  title: 'Manifest is a JSON object',
  description: 'plugin.json is not UTF-8 JSON text with a top-level object; the plugin is rejected.',
  ...ap('§5.2 Manifest object', '52-manifest-object'),
  check: checkManifestJson,
};

/** The manifest object, or null (what needs it is then blocked). */
function checkManifestJson(run: PluginRun): JsonObject | null {
  const content = run.snap.manifest.content;
  if (!content || 'error' in content) {
    unable(run, MANIFEST_JSON, 'plugin.json', content ? content.error : 'plugin.json was not read');
    run.rec.blockDependents(MANIFEST_JSON);
    return null;
  }
  run.texts.set('plugin.json', content.text);
  const parsed = content.validUtf8 ? parseJson(content.text) : null;
  if (parsed !== null && parsed.ok && isObject(parsed.value)) {
    run.rec.pass(MANIFEST_JSON);
    return parsed.value;
  }
  if (parsed === null)
    fail(run, MANIFEST_JSON, 'plugin.json', '', 'plugin.json is not valid UTF-8, so it is not JSON text (RFC 8259 §8.1).');
  else if (!parsed.ok)
    fail(run, MANIFEST_JSON, 'plugin.json', '', `plugin.json is not JSON: ${parseMessage(parsed.error)}.`, parseErrorAt(content.text));
  else
    fail(
      run,
      MANIFEST_JSON,
      'plugin.json',
      '',
      `plugin.json holds ${jsonType(parsed.value) === 'array' ? 'an array' : `a ${jsonType(parsed.value)}`}, not a JSON object.`,
    );
  run.rec.blockDependents(MANIFEST_JSON);
  return null;
}
