import type { Rule } from '../rule.js';
import { PLUGIN_RULES, PLUGIN_SET } from '../suites/plugin/index.js';

/**
 * The Agent Plugins rules as the plugin check's callers see them: the records of
 * suites/plugin/, their prerequisites, and the components each reads. Every map here is read
 * from the records.
 */

export {
  AGENT_PLUGINS_SPEC_URL,
  AGENT_PLUGINS_VERSION,
  AGENT_SKILLS_SPEC_URL,
  MANIFEST_SCHEMA_ID,
  MCP_SCHEMA_ID,
  PLUGIN_RULES,
  PLUGIN_SUITE,
  PLUGIN_SUITE_KEY,
} from '../suites/plugin/index.js';

/** A plugin rule: a catalogue rule of the `agentPlugins` suite (judged from files only). */
export type PluginRule = Rule;

/** Rules whose failure leaves the rule without its input (direct prerequisites). */
export const PLUGIN_PREREQUISITES: Readonly<Record<string, readonly string[]>> = Object.fromEntries(
  PLUGIN_RULES.map((r) => [r.id, r.prerequisites]),
);

/** Which component a rule reads: a `--rule` run reads only the manifest and that component. */
export type PluginComponent = 'manifest' | 'skills' | 'mcp';
export const PLUGIN_RULE_COMPONENTS: Readonly<Record<string, readonly PluginComponent[]>> = Object.fromEntries(
  PLUGIN_RULES.map((r) => [
    r.id,
    r.component === 'package'
      ? ['manifest', 'skills', 'mcp']
      : r.component === 'manifest'
        ? ['manifest']
        : ['manifest', r.component as PluginComponent],
  ]),
);

export function getPluginRule(id: string): PluginRule | undefined {
  return PLUGIN_SET.get(id);
}

/** The rule and every rule it needs, transitively. */
export function prerequisiteClosure(id: string): Set<string> {
  return new Set(PLUGIN_SET.closure(id));
}

/** Every rule that (transitively) needs `id`, without `id` itself. */
export function dependentsOf(id: string): Set<string> {
  return new Set(PLUGIN_SET.dependents(id).map((r) => r.id));
}
