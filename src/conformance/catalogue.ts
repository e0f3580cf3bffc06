import { RuleSet, type Rule } from './rule.js';
import { A2A_CARD_RULES } from './suites/a2a/card/index.js';
import { A2A_STRUCTURE_RULES } from './suites/a2a/structure.js';
import { INSPECT_RULES } from './suites/inspect/index.js';
import { MCP_RULES } from './suites/mcp/index.js';
import { PLUGIN_RULES } from './suites/plugin/index.js';
import { CHECKER_VERSION, SUITES, type SuiteKey } from './version.js';

/**
 * The one rule catalogue: the list of every suite's rule records (suites/; docs/RULES.md). Every
 * finding names a rule from here; IDs are stable and never reused.
 */

export type { Component, Rule } from './rule.js';

export const RULES: readonly Rule[] = [
  // suite veronikai-a2a-get-card: the A2A agent card GET
  ...A2A_CARD_RULES,
  // suite veronikai-a2a-structure: required fields against the attributed A2A version
  ...A2A_STRUCTURE_RULES,
  // suite veronikai-mcp-conformance: quality on server.json, transport on the one GET
  ...MCP_RULES,
  // suite veronikai-agent-plugins: Agent Plugins 1.0.0 packages
  ...PLUGIN_RULES,
  // suite veronikai-inspect: the owner-run inspect
  ...INSPECT_RULES,
];

/** The catalogue with its lookups and prerequisite graph. */
export const CATALOGUE = new RuleSet(RULES);

export function getRule(id: string): Rule | undefined {
  return CATALOGUE.get(id);
}

export function rulesOfSuite(suite: SuiteKey): Rule[] {
  return RULES.filter((r) => r.suite === suite);
}

/** A rule as plain JSON: the record without its check; its section and link under `spec`, as findings carry them. */
export type RuleJson = Omit<Rule, 'check' | 'section' | 'link'> & {
  spec: { section: string; url: string };
  suiteId: string;
  suiteVersion: number;
};

/** The catalogue as plain JSON (for `--list-rules --format json`). */
export function catalogueJson(): { checker: string; rules: RuleJson[] } {
  return {
    checker: CHECKER_VERSION,
    rules: RULES.map((r) => ({
      id: r.id,
      suite: r.suite,
      component: r.component,
      severity: r.severity,
      title: r.title,
      description: r.description,
      basis: r.basis,
      needs: r.needs,
      prerequisites: r.prerequisites,
      spec: { section: r.section, url: r.link },
      suiteId: SUITES[r.suite].id,
      suiteVersion: SUITES[r.suite].version,
    })),
  };
}
