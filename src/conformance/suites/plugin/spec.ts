import { SUITES } from '../../version.js';

/**
 * The Agent Plugins 1.0.0 specification the plugin suite restates (docs/RULES.md): one rule per
 * group of MUSTs a plugin package can break. PLG-021 (no credentials in headers or env, §7.2.1,
 * §9.2) restates a MUST whose test is heuristic: a string is a secret by its shape or by where it
 * is set (plugin/credentials.ts). Two MUSTs stay unchecked: the reverse-domain grammar of
 * `extensions` keys (§8; their contents are opaque here) and "a plugin that bundles an executable
 * MUST use a plugin-relative command" (§7.2.1), which a static check cannot decide for a bare name.
 */

export const PLUGIN_SUITE = SUITES.agentPlugins;
export const PLUGIN_SUITE_KEY = 'agentPlugins' as const;
export const AGENT_PLUGINS_VERSION = '1.0.0';
export const MANIFEST_SCHEMA_ID = 'https://agent-plugins.org/schemas/1.0.0/plugin.schema.json';
export const MCP_SCHEMA_ID = 'https://agent-plugins.org/schemas/1.0.0/mcp.schema.json';

/** The specification text, pinned at the commit this checker was written against. */
export const AGENT_PLUGINS_SPEC_URL =
  'https://github.com/agentplugins/agent-plugins-spec/blob/bd383552095128f6effe895b9257cfd580a6d179/spec/1.0.0.md';
export const AGENT_SKILLS_SPEC_URL = 'https://agentskills.io/specification';

/** A section of Agent Plugins 1.0.0. */
export const ap = (section: string, anchor: string): { section: string; link: string } => ({
  section: `Agent Plugins 1.0.0 ${section}`,
  link: `${AGENT_PLUGINS_SPEC_URL}#${anchor}`,
});
