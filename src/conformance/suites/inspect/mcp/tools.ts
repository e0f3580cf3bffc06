import { canonicalJson, sha256Hex } from '../../../../core/canonical-json.js';
import { MODERN_VERSION, replyOf } from '../../../inspect/mcp-messages.js';
import type { InspectExchange } from '../../../inspect/types.js';
import { isObject, type JsonObject } from '../../../../core/json-util.js';
import type { Rule } from '../../../rule.js';
import { CACHE, TOOLS } from '../spec.js';
import type { McpJudgeInput, ToolHash } from './input.js';

/**
 * INS-MCP-006 to 008: tools/list, called twice once MCP is confirmed: it answers (when the tools
 * capability is declared), returns the same tools in the same order (a hash of each definition),
 * and, on a 2026-07-28 server, carries cache metadata.
 */

export const TOOLS_LIST: Rule<McpJudgeInput> = {
  id: 'INS-MCP-006',
  suite: 'inspect',
  component: 'mcp',
  severity: 'fail',
  basis: 'spec',
  needs: 'live',
  prerequisites: [],
  title: 'tools/list answers',
  description:
    'A server that declares the tools capability must answer tools/list with a tools list whose items have a name and an inputSchema of type object.',
  ...TOOLS,
  check: checkTools,
};

export const TOOLS_STABLE: Rule<McpJudgeInput> = {
  id: 'INS-MCP-007',
  suite: 'inspect',
  component: 'mcp',
  severity: 'warn',
  basis: 'policy',
  needs: 'live',
  prerequisites: [],
  title: 'Tool list is stable',
  description:
    'Two identical tools/list calls returned the tools in a different order or with different definitions (clients that index tools by position break).',
  ...TOOLS,
  check: checkTools,
};

export const TOOLS_CACHE: Rule<McpJudgeInput> = {
  id: 'INS-MCP-008',
  suite: 'inspect',
  component: 'mcp',
  severity: 'fail',
  basis: 'spec',
  needs: 'live',
  prerequisites: [],
  title: 'Tool list carries cache metadata',
  description: 'On the 2026-07-28 revision a ListToolsResult must carry ttlMs and cacheScope ("public" or "private").',
  ...CACHE,
  check: checkTools,
};

type Listed = { e: InspectExchange; r: { kind: 'result'; id: unknown; result: JsonObject } };

function toolProblems(result: JsonObject): string[] {
  if (!Array.isArray(result.tools)) return ['tools is not a list'];
  const p: string[] = [];
  result.tools.forEach((t, i) => {
    if (!isObject(t)) p.push(`tools[${i}] is not an object`);
    else {
      if (typeof t.name !== 'string' || t.name === '') p.push(`tools[${i}] has no name`);
      if (!isObject(t.inputSchema) || t.inputSchema.type !== 'object') p.push(`tools[${i}] inputSchema is not a schema of type object`);
    }
  });
  return p.slice(0, 10);
}

function toolHashes(result: JsonObject): ToolHash[] {
  if (!Array.isArray(result.tools)) return [];
  return result.tools
    .filter(isObject)
    .map((t) => ({ name: typeof t.name === 'string' ? t.name : '', sha256: sha256Hex(canonicalJson(t)) }));
}

function hasCacheMetadata(r: JsonObject): boolean {
  return Number.isInteger(r.ttlMs) && (r.ttlMs as number) >= 0 && (r.cacheScope === 'public' || r.cacheScope === 'private');
}

function checkTools(input: McpJudgeInput): void {
  const { checks, capabilities } = input;
  const lists = input.ex.filter((e) => e.step === 'mcp.tools-list' && e.status !== 401 && e.status !== 403);
  if (lists.length === 0 || !input.confirmed) return;
  const results = lists.map((e) => ({ e, r: replyOf(e) }));
  const ok = results.filter((x): x is Listed => x.r.kind === 'result');
  if (ok.length === 0) {
    const r = results[0]!;
    const why = r.r.kind === 'error' ? `JSON-RPC error ${r.r.code} ${r.r.message.slice(0, 100)}` : r.r.kind === 'none' ? r.r.why : '';
    if (capabilities ? 'tools' in capabilities : true) checks.flag(TOOLS_LIST, 'tools/list', `no tool list: ${why}`, r.e.url, [r.e]);
    else checks.info('tools/list', `the server declares no tools capability (${why})`, r.e.url, [r.e]);
    return;
  }
  const first = ok[0]!;
  const problems = toolProblems(first.r.result);
  if (problems.length) checks.flag(TOOLS_LIST, 'tools/list', problems.join('; '), first.e.url, [first.e]);
  else checks.pass('tools/list', TOOLS_LIST, `${(first.r.result.tools as unknown[]).length} tool(s)`, first.e.url, [first.e]);
  input.detail.tools = toolHashes(first.r.result);
  if (ok.length >= 2) checkStable(input, first, ok[1]!);
  checkCache(input, first);
}

/** INS-MCP-007: the second list names the same tools, in the same order, with the same definitions. */
function checkStable(input: McpJudgeInput, first: Listed, second: Listed): void {
  const { checks, detail, summary } = input;
  const a = detail.tools;
  const b = toolHashes(second.r.result);
  const orderSame = a.map((t) => t.name).join('\n') === b.map((t) => t.name).join('\n');
  const byName = new Map(b.map((t) => [t.name, t.sha256]));
  const changed = a.filter((t) => byName.get(t.name) !== t.sha256).map((t) => t.name);
  const added = b.filter((t) => !a.some((x) => x.name === t.name)).map((t) => t.name);
  detail.toolsChanged = [...changed, ...added];
  summary.toolsListStable = orderSame && detail.toolsChanged.length === 0;
  if (summary.toolsListStable)
    return checks.pass(
      'tool list stable',
      TOOLS_STABLE,
      'two identical tools/list calls returned the same tools in the same order',
      second.e.url,
      [first.e, second.e],
    );
  const parts: string[] = [];
  if (!orderSame) parts.push(`order changed (${a.map((t) => t.name).join(', ')} → ${b.map((t) => t.name).join(', ')})`);
  if (detail.toolsChanged.length) parts.push(`definitions changed: ${detail.toolsChanged.join(', ')}`);
  checks.flag(TOOLS_STABLE, 'tool list stable', parts.join('; ').slice(0, 600), second.e.url, [first.e, second.e]);
}

/** INS-MCP-008: ttlMs and cacheScope, required of a 2026-07-28 server only. */
function checkCache({ checks, summary }: McpJudgeInput, first: Listed): void {
  const r = first.r.result;
  summary.cacheMetadata = hasCacheMetadata(r);
  const words = `ttlMs ${String(r.ttlMs)}, cacheScope ${String(r.cacheScope)}`;
  if (summary.era !== 'modern')
    checks.info(
      'cache metadata',
      summary.cacheMetadata ? words : `no ttlMs/cacheScope (introduced by ${MODERN_VERSION}; not required of a legacy server)`,
      first.e.url,
      [first.e],
    );
  else if (summary.cacheMetadata) checks.pass('cache metadata', TOOLS_CACHE, words, first.e.url, [first.e]);
  else checks.flag(TOOLS_CACHE, 'cache metadata', 'the ListToolsResult lacks ttlMs or cacheScope', first.e.url, [first.e]);
}
