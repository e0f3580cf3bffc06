import { own, show } from '../../../../core/json-util.js';
import type { Rule } from '../../../rule.js';
import { fail } from '../run.js';
import { AGENT_PLUGINS_VERSION, ap } from '../spec.js';
import type { McpDocInput } from './input.js';

/** PLG-015 and 016: mcp.json's $schema is a canonical MCP schema identifier, of the manifest's Agent Plugins version. */

const MCP_SCHEMA_FORM = /^https:\/\/agent-plugins\.org\/schemas\/(\d+\.\d+\.\d+)\/mcp\.schema\.json$/;

export const MCP_SCHEMA: Rule<McpDocInput, boolean> = {
  id: 'PLG-015',
  suite: 'agentPlugins',
  component: 'mcp',
  severity: 'fail',
  basis: 'spec',
  needs: 'document',
  prerequisites: ['PLG-014'],
  title: 'Canonical MCP schema identifier',
  description:
    'mcp.json $schema is not a canonical Agent Plugins MCP schema identifier (https://agent-plugins.org/schemas/<version>/mcp.schema.json); MCP is disabled for the plugin.',
  ...ap('§7.2.1 Discovery and configuration', '721-discovery-and-configuration'),
  check: checkMcpSchema,
};

export const MCP_VERSION: Rule<McpDocInput, boolean> = {
  id: 'PLG-016',
  suite: 'agentPlugins',
  component: 'mcp',
  severity: 'fail',
  basis: 'spec',
  needs: 'document',
  prerequisites: ['PLG-015'],
  title: "MCP configuration targets the manifest's version",
  description: 'mcp.json $schema names another Agent Plugins version than plugin.json; MCP is disabled for the plugin.',
  ...ap('§10.1 Specification and schema versions; §7.2.2 Loading rules', '101-specification-and-schema-versions'),
  check: checkMcpVersion,
};

function checkMcpSchema(input: McpDocInput): boolean {
  const { run, doc } = input;
  const schema = own(doc, '$schema');
  const form = typeof schema === 'string' ? MCP_SCHEMA_FORM.exec(schema) : null;
  if (!form) {
    fail(
      run,
      MCP_SCHEMA,
      'mcp.json',
      '/$schema',
      `$schema is ${show(schema, 120)}, not a canonical Agent Plugins MCP schema identifier (for ${AGENT_PLUGINS_VERSION}: https://agent-plugins.org/schemas/${AGENT_PLUGINS_VERSION}/mcp.schema.json); MCP is disabled for the plugin.`,
    );
    run.rec.blockDependents(MCP_SCHEMA);
    return false;
  }
  run.rec.pass(MCP_SCHEMA);
  input.version = form[1]!;
  return true;
}

function checkMcpVersion({ run, version, manifestVersion }: McpDocInput): boolean {
  if (version === manifestVersion) {
    run.rec.pass(MCP_VERSION);
    return true;
  }
  fail(
    run,
    MCP_VERSION,
    'mcp.json',
    '/$schema',
    `mcp.json targets Agent Plugins ${version} but plugin.json targets ${manifestVersion ?? 'another version'}; MCP is disabled for the plugin (other components still load).`,
  );
  run.rec.blockDependents(MCP_VERSION);
  return false;
}
