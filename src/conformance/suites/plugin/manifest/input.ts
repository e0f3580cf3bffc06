import type { JsonObject } from '../../../../core/json-util.js';
import type { PluginRun } from '../run.js';

/** What the rules on the manifest's fields read: the parsed plugin.json (an object). */
export interface ManifestInput {
  run: PluginRun;
  doc: JsonObject;
  /** The Agent Plugins version plugin.json declares, set by PLG-005 when it is supported. */
  version: string | null;
}
