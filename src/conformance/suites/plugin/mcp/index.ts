import { own, ptr, type JsonObject } from '../../../../core/json-util.js';
import type { Resolution } from '../../../plugin/snapshot.js';
import type { Rule } from '../../../rule.js';
import { CONTAINED } from '../containment.js';
import { LOCATIONS } from '../locations.js';
import { blockLocation, type PluginRun } from '../run.js';
import { MCP_CLOSED } from './closed.js';
import { COMMAND } from './command.js';
import { CREDENTIALS } from './credentials.js';
import { CWD } from './cwd.js';
import { MCP_JSON } from './document.js';
import type { McpDocInput, ServerInput } from './input.js';
import { REMOTE } from './remote.js';
import { MCP_SCHEMA, MCP_VERSION } from './schema.js';
import { noVariant, SERVER_VARIANT, variantOf } from './variant.js';

/**
 * The rules after PLG-017 (their prerequisite), in the order they are judged: which entries each
 * reads, and whether its failure skips the server. PLG-021 does not: a client cannot tell a
 * secret from other text.
 */
const SERVER_RULES: ReadonlyArray<{ rule: Rule<ServerInput, boolean>; reads: (s: ServerInput) => boolean; skips: boolean }> = [
  { rule: CREDENTIALS, reads: (s) => own(s.entry, s.stdio ? 'env' : 'headers') !== undefined, skips: false },
  { rule: COMMAND, reads: (s) => s.stdio, skips: true },
  { rule: CWD, reads: (s) => s.stdio && typeof own(s.entry, 'cwd') === 'string', skips: true },
  { rule: REMOTE, reads: (s) => !s.stdio, skips: true },
];

/**
 * Judges mcp.json: an invalid document disables MCP (§7.2.2 (2)); an invalid server skips only
 * that server (§7.2.2 (3)).
 */
export function evaluateMcp(run: PluginRun, manifestVersion: string | null): void {
  const e = run.snap.mcp;
  const state = run.components.mcp;
  if (!e) return; // not read by this check
  if (!e.present) {
    run.rec.pass(LOCATIONS);
    state.state = 'absent';
    return;
  }
  if (!CONTAINED.check({ run, file: 'mcp.json', res: e.resolution })) {
    blockLocation(run, LOCATIONS, 'mcp');
    state.state = e.resolution?.status === 'error' ? 'incomplete' : 'invalid';
    return;
  }
  state.state = 'invalid';
  if (!LOCATIONS.check({ run, component: 'mcp', kind: (e.resolution as Extract<Resolution, { status: 'inside' }>).kind })) return;
  const doc = MCP_JSON.check(run);
  if (doc === null) return;
  const input: McpDocInput = { run, doc, manifestVersion };
  if (!MCP_CLOSED.check(input) || !MCP_SCHEMA.check(input) || !MCP_VERSION.check(input)) return;
  state.state = 'valid';
  const servers = own(doc, 'mcpServers') as JsonObject;
  for (const name of Object.keys(servers)) {
    state.servers++;
    if (evaluateServer(run, name, own(servers, name))) state.valid++;
  }
  if (state.valid < state.servers) state.state = 'invalid';
}

/** True when a client loads the server. */
function evaluateServer(run: PluginRun, name: string, v: unknown): boolean {
  const base = ptr('mcpServers', name);
  const variant = variantOf(v);
  if (variant === null) {
    noVariant(run, name, base, v);
    return false;
  }
  const input: ServerInput = { run, name, base, entry: v as JsonObject, stdio: variant === 'stdio' };
  const rules = SERVER_RULES.filter((r) => r.reads(input));
  if (!SERVER_VARIANT.check(input)) {
    run.rec.block(...rules.map((r) => r.rule));
    return false;
  }
  let loads = true;
  for (const { rule, skips } of rules) if (!rule.check(input) && skips) loads = false;
  return loads;
}
