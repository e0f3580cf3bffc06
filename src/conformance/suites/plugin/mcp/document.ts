import { isObject, jsonType, parseJson, type JsonObject } from '../../../../core/json-util.js';
import type { Rule } from '../../../rule.js';
import { fail, parseErrorAt, parseMessage, unable, type PluginRun } from '../run.js';
import { ap } from '../spec.js';

/** PLG-013: mcp.json is UTF-8 JSON text holding an object. */

export const MCP_JSON: Rule<PluginRun, JsonObject | null> = {
  id: 'PLG-013',
  suite: 'agentPlugins',
  component: 'mcp',
  severity: 'fail',
  basis: 'spec',
  needs: 'document',
  prerequisites: ['PLG-010'],
  title: 'mcp.json is a JSON object',
  description: 'mcp.json is not UTF-8 JSON text with a top-level object; MCP is disabled for the plugin.',
  ...ap('§7.2.1 Discovery and configuration', '721-discovery-and-configuration'),
  check: checkMcpJson,
};

/** The mcp.json object, or null: MCP is then disabled for the plugin and what needs it is blocked. */
function checkMcpJson(run: PluginRun): JsonObject | null {
  const content = run.snap.mcp?.content;
  if (!content || 'error' in content) {
    unable(run, MCP_JSON, 'mcp.json', content ? content.error : 'mcp.json was not read');
    run.rec.blockDependents(MCP_JSON);
    run.components.mcp.state = 'incomplete';
    return null;
  }
  run.texts.set('mcp.json', content.text);
  const parsed = content.validUtf8 ? parseJson(content.text) : null;
  if (parsed !== null && parsed.ok && isObject(parsed.value)) {
    run.rec.pass(MCP_JSON);
    return parsed.value;
  }
  const why =
    parsed === null
      ? 'is not valid UTF-8, so it is not JSON text'
      : !parsed.ok
        ? `is not JSON: ${parseMessage(parsed.error)}`
        : `holds ${jsonType(parsed.value)}, not a JSON object`;
  fail(
    run,
    MCP_JSON,
    'mcp.json',
    '',
    `mcp.json ${why}; MCP is disabled for the plugin.`,
    parsed !== null && !parsed.ok ? parseErrorAt(content.text) : undefined,
  );
  run.rec.blockDependents(MCP_JSON);
  return null;
}
