import type { JsonObject } from '../../../../core/json-util.js';
import type { PluginRun } from '../run.js';

/** What the rules on mcp.json's document read: the parsed mcp.json (an object). */
export interface McpDocInput {
  run: PluginRun;
  doc: JsonObject;
  /** The Agent Plugins version plugin.json declares. */
  manifestVersion: string | null;
  /** The Agent Plugins version mcp.json's $schema names, set by PLG-015. */
  version?: string;
}

/** What the rules on one server entry read. */
export interface ServerInput {
  run: PluginRun;
  /** The server's name: its key in mcpServers. */
  name: string;
  /** JSON pointer of the entry (`/mcpServers/<name>`). */
  base: string;
  entry: JsonObject;
  /** The entry's variant, once PLG-017 found it closed and well typed. */
  stdio: boolean;
}
