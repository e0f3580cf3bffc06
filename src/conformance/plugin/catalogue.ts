import type { Rule, RuleSpec } from '../catalogue.js';
import { SUITES } from '../version.js';

/**
 * The Agent Plugins 1.0.0 rule catalogue (issue 12, seed 004): one rule per group of MUSTs a
 * plugin package can break, each with a stable ID, its severity and the section it restates.
 * The entries have the shape of src/conformance/catalogue.ts's `Rule`, with the suite key
 * `agentPlugins`; merging them into the one catalogue takes that suite in `SUITES`
 * (src/conformance/version.ts) and `...PLUGIN_RULES` in `RULES`. IDs are never reused.
 *
 * `prerequisites` (kept beside the rows, not in them, so the rows stay `Rule`s) are the rules
 * whose failure leaves a rule without its input: a fatal manifest stops component discovery
 * (§5.2, §5.3), an invalid component location or document stops that component (§6.2,
 * §7.2.2), an invalid skill or server stops that entry's later rules (§7.1, §7.2.2).
 *
 * PLG-021 (no credentials in headers or env, §7.2.1, §9.2) restates a MUST whose test is
 * heuristic: a string is a secret by its shape or by where it is set (plugin/credentials.ts).
 * Two MUSTs stay unchecked: the reverse-domain grammar of `extensions` keys (§8; their contents
 * are opaque here) and "a plugin that bundles an executable MUST use a plugin-relative
 * command" (§7.2.1), which a static check cannot decide for a bare name.
 */

export const PLUGIN_SUITE = SUITES.agentPlugins;
export const PLUGIN_SUITE_KEY = 'agentPlugins' as const;
export const AGENT_PLUGINS_VERSION = '1.0.0';
export const MANIFEST_SCHEMA_ID = 'https://agent-plugins.org/schemas/1.0.0/plugin.schema.json';
export const MCP_SCHEMA_ID = 'https://agent-plugins.org/schemas/1.0.0/mcp.schema.json';

/** A plugin rule: a catalogue `Rule` of the `agentPlugins` suite (judged from files only). */
export type PluginRule = Omit<Rule, 'suite' | 'needs'> & { suite: typeof PLUGIN_SUITE_KEY; needs: 'document' };

/** The specification text, pinned at the commit the shared specs were copied from (../shared/specs/SOURCES.md). */
export const AGENT_PLUGINS_SPEC_URL = 'https://github.com/agentplugins/agent-plugins-spec/blob/bd383552095128f6effe895b9257cfd580a6d179/spec/1.0.0.md';
export const AGENT_SKILLS_SPEC_URL = 'https://agentskills.io/specification';

const ap = (section: string, anchor: string): RuleSpec => ({ section: `Agent Plugins 1.0.0 ${section}`, url: `${AGENT_PLUGINS_SPEC_URL}#${anchor}` });

const S41 = ap('§4.1 General requirements', '41-general-requirements');
const S51 = ap('§4.1, §5.1 Location and loading', '51-location-and-loading');
const S52 = ap('§5.2 Manifest object', '52-manifest-object');
const S53 = ap('§5.3 Required fields', '53-required-fields');
const S54 = ap('§5.4 Metadata fields', '54-metadata-fields');
const S55 = ap('§5.5 Plugin name constraints', '55-plugin-name-constraints');
const S6 = ap('§6.1 Fixed locations, §6.2 Missing locations', '62-missing-locations');
const S71 = ap('§7.1 Skills', '71-skills');
const S721 = ap('§7.2.1 Discovery and configuration', '721-discovery-and-configuration');
const S101 = ap('§10.1 Specification and schema versions; §7.2.2 Loading rules', '101-specification-and-schema-versions');
const S81 = ap('§8.1 Manifest extension data', '81-manifest-extension-data');
const STDIO = ap('§7.2.1 stdio (command); §4.1', 'stdio');
const CWD = ap('§7.2.1 stdio (cwd); §4.1; §9.2 Placeholder expansion', 'stdio');
const REMOTE = ap('§7.2.1 Streamable HTTP and legacy HTTP+SSE', 'streamable-http-and-legacy-httpsse');
const SECRETS = ap('§7.2.1 Streamable HTTP and legacy HTTP+SSE (headers); §9.2 Placeholder expansion (env)', 'streamable-http-and-legacy-httpsse');
const VARIANTS = ap('§7.2.1 server variants; §9.2 reserved environment names', '721-discovery-and-configuration');
const SKILL_FIELDS: RuleSpec = { section: 'Agent Plugins 1.0.0 §7.1; Agent Skills specification, Frontmatter', url: `${AGENT_SKILLS_SPEC_URL}#frontmatter` };

const row = (r: Omit<PluginRule, 'suite' | 'needs' | 'severity' | 'basis'>): PluginRule => ({
  id: r.id,
  suite: PLUGIN_SUITE_KEY,
  severity: 'fail',
  title: r.title,
  description: r.description,
  basis: 'spec',
  spec: r.spec,
  needs: 'document',
  ...(r.prerequisite ? { prerequisite: true } : {}),
});

export const PLUGIN_RULES: readonly PluginRule[] = [
  row({ id: 'PLG-001', prerequisite: true, title: 'Root manifest present', description: 'plugin.json (exact name) is missing at the plugin root or does not resolve to a regular file; the plugin is rejected.', spec: S51 }),
  row({ id: 'PLG-002', prerequisite: true, title: 'Inspected paths stay inside the plugin root', description: 'plugin.json, skills/, a skill directory, a SKILL.md or mcp.json resolves outside the filesystem-resolved plugin root, or through a broken or looping symbolic link.', spec: S41 }),
  row({ id: 'PLG-003', prerequisite: true, title: 'Manifest is a JSON object', description: 'plugin.json is not UTF-8 JSON text with a top-level object; the plugin is rejected.', spec: S52 }),
  row({ id: 'PLG-004', prerequisite: true, title: 'Required $schema and name', description: '$schema or name is missing, not a string, or empty; the plugin is rejected.', spec: S53 }),
  row({ id: 'PLG-005', prerequisite: true, title: 'Canonical manifest schema identifier', description: `$schema is not the canonical identifier ${MANIFEST_SCHEMA_ID} (the only Agent Plugins version this checker supports); the plugin is rejected.`, spec: S52 }),
  row({ id: 'PLG-006', prerequisite: true, title: 'Plugin name constraints', description: 'name is longer than 64 characters, has a character outside a-z 0-9 - ., does not start and end alphanumeric, or contains -- or ..; the plugin is rejected.', spec: S55 }),
  row({ id: 'PLG-007', prerequisite: true, title: 'Metadata types and closed author object', description: 'version, description, homepage, repository or license is not a string, keywords is not an array of strings, or author is not an object of only name, email and url strings; the plugin is rejected. Formats (SemVer, URL, email, SPDX) are never judged.', spec: S54 }),
  row({ id: 'PLG-008', title: 'No unknown top-level manifest fields', description: 'plugin.json has a top-level field outside the closed schema; a client reports and ignores it and loads the plugin, but the package does not conform.', spec: S52 }),
  row({ id: 'PLG-009', title: 'extensions is an object of objects', description: 'extensions is not an object, or one of its members is not an object (the members\' contents are opaque and not judged); a client reports and ignores it, components still load.', spec: S81 }),
  row({ id: 'PLG-010', title: 'Component locations have their kinds', description: 'skills/ is present but not a directory, or mcp.json is present but not a regular file; that component type is invalid (absence is fine).', spec: S6 }),
  row({ id: 'PLG-011', title: 'Skill SKILL.md has strict YAML frontmatter', description: 'A discovered skill\'s SKILL.md (an immediate child of skills/, no recursion) is not UTF-8, has no --- delimited frontmatter, or its frontmatter is not one valid YAML mapping (duplicate keys are errors); the skill is skipped.', spec: { section: 'Agent Plugins 1.0.0 §7.1 Skills; Agent Skills specification, SKILL.md format', url: `${AGENT_PLUGINS_SPEC_URL}#71-skills` } }),
  row({ id: 'PLG-012', title: 'Skill frontmatter fields', description: 'A skill\'s name (1-64 lowercase letters or digits with single inner hyphens, equal to its directory), description (1-1024 characters), compatibility (1-500), license and allowed-tools (strings) or metadata (string keys to string values) breaks the Agent Skills constraints; the skill is skipped.', spec: SKILL_FIELDS }),
  row({ id: 'PLG-013', title: 'mcp.json is a JSON object', description: 'mcp.json is not UTF-8 JSON text with a top-level object; MCP is disabled for the plugin.', spec: S721 }),
  row({ id: 'PLG-014', title: 'Closed mcp.json document', description: 'mcp.json lacks $schema or mcpServers, mcpServers is not an object, or it has another top-level field; MCP is disabled for the plugin.', spec: S721 }),
  row({ id: 'PLG-015', title: 'Canonical MCP schema identifier', description: 'mcp.json $schema is not a canonical Agent Plugins MCP schema identifier (https://agent-plugins.org/schemas/<version>/mcp.schema.json); MCP is disabled for the plugin.', spec: S721 }),
  row({ id: 'PLG-016', title: 'MCP configuration targets the manifest\'s version', description: 'mcp.json $schema names another Agent Plugins version than plugin.json; MCP is disabled for the plugin.', spec: S101 }),
  row({ id: 'PLG-017', title: 'Closed server variants and reserved environment names', description: 'A server entry is not an object, has no or an unknown type, lacks a required field, has a field of another variant or an unknown one, has a field of the wrong type, or names PLUGIN_ROOT or PLUGIN_DATA in env; that server is skipped.', spec: VARIANTS }),
  row({ id: 'PLG-018', title: 'stdio command is one executable token inside the package', description: 'A stdio command is not a bare executable name or a ./ plugin-relative path (a shell string, an absolute or ../ path, a placeholder), or its ./ path resolves outside the plugin root or through a broken link; that server is skipped.', spec: STDIO }),
  row({ id: 'PLG-019', title: 'cwd form and containment', description: 'A stdio cwd is not ./…, ${PLUGIN_ROOT}[/…] or ${PLUGIN_DATA}[/…], or after expansion resolves outside the plugin root (or the data directory) or through a broken link; that server is skipped. A ${PLUGIN_DATA} cwd needs the client\'s data directory and is unable to complete.', spec: CWD }),
  row({ id: 'PLG-020', title: 'Remote URL and literal headers', description: 'A remote url is not an absolute http(s) URL, has user information or a fragment, or uses http for a host other than localhost or a loopback IP literal; or a header name or value is not a valid HTTP field, two names are equal ignoring case, or url or headers rely on placeholder expansion; that server is skipped.', spec: REMOTE }),
  row({ id: 'PLG-021', title: 'No credentials in headers or env', description: 'A header or env value embeds a credential: a credential-shaped string (provider key prefix, bearer token, JWT, private key; entropy-tested), any literal value of a credential-bearing header (Authorization, Cookie, X-API-Key, …; headers are never expanded), or a literal value of an env variable named like a credential (…TOKEN, …SECRET, …PASSWORD, …API_KEY) that uses neither ${PLUGIN_ROOT} nor ${PLUGIN_DATA}. Heuristic: the value is reported redacted; the package does not conform, and which servers a client loads is not judged by this rule.', spec: SECRETS }),
];

/** Rules whose failure leaves the rule without its input (direct prerequisites; see the module comment). */
export const PLUGIN_PREREQUISITES: Readonly<Record<string, readonly string[]>> = {
  'PLG-001': ['PLG-002'],
  'PLG-002': [],
  'PLG-003': ['PLG-001'],
  'PLG-004': ['PLG-003'],
  'PLG-005': ['PLG-004'],
  'PLG-006': ['PLG-004'],
  'PLG-007': ['PLG-003'],
  'PLG-008': ['PLG-003'],
  'PLG-009': ['PLG-003'],
  // A fatal manifest (any of PLG-001..007) stops component discovery (§5.2, §11.3).
  'PLG-010': ['PLG-005', 'PLG-006', 'PLG-007'],
  'PLG-011': ['PLG-010'],
  'PLG-012': ['PLG-011'],
  'PLG-013': ['PLG-010'],
  'PLG-014': ['PLG-013'],
  'PLG-015': ['PLG-014'],
  'PLG-016': ['PLG-015'],
  'PLG-017': ['PLG-016'],
  'PLG-018': ['PLG-017'],
  'PLG-019': ['PLG-017'],
  'PLG-020': ['PLG-017'],
  'PLG-021': ['PLG-017'],
};

/** Which component a rule reads: a `--rule` run reads only the manifest and that component. */
export type PluginComponent = 'manifest' | 'skills' | 'mcp';
export const PLUGIN_RULE_COMPONENTS: Readonly<Record<string, readonly PluginComponent[]>> = Object.fromEntries(
  PLUGIN_RULES.map((r) => {
    const n = Number(r.id.slice(4));
    const c: PluginComponent[] = r.id === 'PLG-002' || r.id === 'PLG-010' ? ['manifest', 'skills', 'mcp'] : n <= 9 ? ['manifest'] : n <= 12 ? ['manifest', 'skills'] : ['manifest', 'mcp'];
    return [r.id, c];
  }),
);

const BY_ID = new Map(PLUGIN_RULES.map((r) => [r.id, r]));

export function getPluginRule(id: string): PluginRule | undefined {
  return BY_ID.get(id);
}

/** The rule and every rule it needs, transitively. */
export function prerequisiteClosure(id: string): Set<string> {
  const out = new Set<string>();
  const todo = [id];
  while (todo.length > 0) {
    const r = todo.pop()!;
    if (out.has(r)) continue;
    out.add(r);
    todo.push(...(PLUGIN_PREREQUISITES[r] ?? []));
  }
  return out;
}

/** Every rule that (transitively) needs `id`, without `id` itself. */
export function dependentsOf(id: string): Set<string> {
  const out = new Set<string>();
  for (const r of PLUGIN_RULES) if (r.id !== id && prerequisiteClosure(r.id).has(id)) out.add(r.id);
  return out;
}
