import { isObject, jsonType, own, ptr, quote } from '../../../../core/json-util.js';
import type { Rule } from '../../../rule.js';
import { fail } from '../run.js';
import { ap } from '../spec.js';
import type { McpDocInput } from './input.js';

/** PLG-014: mcp.json holds $schema and an mcpServers object, and nothing else. */

export const MCP_CLOSED: Rule<McpDocInput, boolean> = {
  id: 'PLG-014',
  suite: 'agentPlugins',
  component: 'mcp',
  severity: 'fail',
  basis: 'spec',
  needs: 'document',
  prerequisites: ['PLG-013'],
  title: 'Closed mcp.json document',
  description:
    'mcp.json lacks $schema or mcpServers, mcpServers is not an object, or it has another top-level field; MCP is disabled for the plugin.',
  ...ap('§7.2.1 Discovery and configuration', '721-discovery-and-configuration'),
  check: checkClosed,
};

function checkClosed({ run, doc }: McpDocInput): boolean {
  let closed = true;
  const bad = (pointer: string, message: string): void => {
    fail(run, MCP_CLOSED, 'mcp.json', pointer, `${message}; MCP is disabled for the plugin.`);
    closed = false;
  };
  for (const f of ['$schema', 'mcpServers']) if (own(doc, f) === undefined) bad(ptr(f), `The required field ${f} is missing`);
  const servers = own(doc, 'mcpServers');
  if (servers !== undefined && !isObject(servers))
    bad('/mcpServers', `mcpServers must be an object of server configurations, not ${jsonType(servers)}`);
  for (const k of Object.keys(doc)) {
    if (k !== '$schema' && k !== 'mcpServers')
      bad(ptr(k), `Unknown top-level field ${quote(k)}: mcp.json allows only $schema and mcpServers`);
  }
  if (closed) run.rec.pass(MCP_CLOSED);
  else run.rec.blockDependents(MCP_CLOSED);
  return closed;
}
