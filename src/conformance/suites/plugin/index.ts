import { RuleSet, type Rule } from '../../rule.js';
import { CONTAINED } from './containment.js';
import { LOCATIONS } from './locations.js';
import { EXTENSIONS } from './manifest/extensions.js';
import { MANIFEST_JSON } from './manifest/json.js';
import { KNOWN_FIELDS } from './manifest/known-fields.js';
import { MANIFEST_PRESENT } from './manifest/location.js';
import { METADATA } from './manifest/metadata.js';
import { PLUGIN_NAME } from './manifest/name.js';
import { REQUIRED_FIELDS } from './manifest/required.js';
import { MANIFEST_SCHEMA } from './manifest/schema.js';
import { MCP_CLOSED } from './mcp/closed.js';
import { COMMAND } from './mcp/command.js';
import { CREDENTIALS } from './mcp/credentials.js';
import { CWD } from './mcp/cwd.js';
import { MCP_JSON } from './mcp/document.js';
import { REMOTE } from './mcp/remote.js';
import { MCP_SCHEMA, MCP_VERSION } from './mcp/schema.js';
import { SERVER_VARIANT } from './mcp/variant.js';
import { SKILL_FIELDS } from './skills/fields.js';
import { FRONTMATTER } from './skills/frontmatter.js';

/**
 * Suite veronikai-agent-plugins v1: Agent Plugins 1.0.0 packages, judged from a snapshot of
 * their files (docs/RULES.md). Each rule's prerequisites are the rules whose failure leaves it
 * without its input: a fatal manifest stops component discovery (§5.2, §5.3), an invalid
 * component location or document stops that component (§6.2, §7.2.2), an invalid skill or server
 * stops that entry's later rules (§7.1, §7.2.2).
 */
export const PLUGIN_RULES: readonly Rule[] = [
  MANIFEST_PRESENT,
  CONTAINED,
  MANIFEST_JSON,
  REQUIRED_FIELDS,
  MANIFEST_SCHEMA,
  PLUGIN_NAME,
  METADATA,
  KNOWN_FIELDS,
  EXTENSIONS,
  LOCATIONS,
  FRONTMATTER,
  SKILL_FIELDS,
  MCP_JSON,
  MCP_CLOSED,
  MCP_SCHEMA,
  MCP_VERSION,
  SERVER_VARIANT,
  COMMAND,
  CWD,
  REMOTE,
  CREDENTIALS,
];

export const PLUGIN_SET = new RuleSet(PLUGIN_RULES);

export { evaluateManifest, pluginNameProblem } from './manifest/index.js';
export { evaluateMcp } from './mcp/index.js';
export { isLoopbackHost, remoteUrlProblem } from './mcp/remote.js';
export { evaluateSkills } from './skills/index.js';
export { skillNameProblem } from './skills/fields.js';
export type { ComponentState, PluginComponents, PluginFinding, PluginIncomplete, PluginRun } from './run.js';
export {
  AGENT_PLUGINS_SPEC_URL,
  AGENT_PLUGINS_VERSION,
  AGENT_SKILLS_SPEC_URL,
  MANIFEST_SCHEMA_ID,
  MCP_SCHEMA_ID,
  PLUGIN_SUITE,
  PLUGIN_SUITE_KEY,
} from './spec.js';
