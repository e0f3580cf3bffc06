import { isObject, type JsonObject } from '../../../../core/json-util.js';
import type { Rule } from '../../../rule.js';
import { CAPS26, CHANGELOG26 } from '../spec.js';
import type { McpJudgeInput } from './input.js';

/** INS-MCP-010 and 011: the declared capabilities: extension identifiers, and no feature 2026-07-28 deprecated. */

/** `_meta`-style key with a mandatory prefix: labels of letters, digits and hyphens separated by dots, a slash, then a name. */
const EXTENSION_KEY =
  /^[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*\/(?:[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)?$/;

const DEPRECATED_ON_MODERN = ['roots', 'sampling', 'logging'] as const;

export const NO_DEPRECATED: Rule<McpJudgeInput> = {
  id: 'INS-MCP-010',
  suite: 'inspect',
  component: 'mcp',
  severity: 'warn',
  basis: 'spec',
  needs: 'live',
  prerequisites: [],
  title: 'No deprecated features on a modern server',
  description:
    'A 2026-07-28 server declares Roots, Sampling or Logging, which that revision deprecates (removal no earlier than 2027-07-28).',
  ...CHANGELOG26,
  check: checkCapabilities,
};

export const EXTENSION_KEYS: Rule<McpJudgeInput> = {
  id: 'INS-MCP-011',
  suite: 'inspect',
  component: 'mcp',
  severity: 'warn',
  basis: 'spec',
  needs: 'live',
  prerequisites: [],
  title: 'Extension identifiers are well formed',
  description:
    'Keys of capabilities.extensions must follow the _meta key rules with a mandatory prefix (e.g. io.modelcontextprotocol/tasks).',
  ...CAPS26,
  check: checkCapabilities,
};

function extensionsOf(caps: JsonObject): string[] {
  const out: string[] = [];
  if (isObject(caps.extensions)) out.push(...Object.keys(caps.extensions));
  if (isObject(caps.experimental)) out.push(...Object.keys(caps.experimental).map((k) => `experimental:${k}`));
  return out.slice(0, 100);
}

function checkCapabilities({ checks, summary, capabilities, capsFrom, endpoint }: McpJudgeInput): void {
  if (!capabilities) return;
  summary.extensions = extensionsOf(capabilities);
  const declared = isObject(capabilities.extensions) ? Object.keys(capabilities.extensions) : [];
  const bad = declared.filter((k) => !EXTENSION_KEY.test(k));
  const where = capsFrom?.url ?? endpoint;
  if (declared.length) {
    if (bad.length)
      checks.flag(EXTENSION_KEYS, 'extensions', `extension identifiers without a valid prefix: ${bad.slice(0, 5).join(', ')}`, where, [
        capsFrom,
      ]);
    else checks.pass('extensions', EXTENSION_KEYS, `extensions: ${declared.join(', ')}`, where, [capsFrom]);
  }
  if (summary.era === 'modern') {
    const dep = DEPRECATED_ON_MODERN.filter((k) => k in capabilities);
    if (dep.length)
      checks.flag(
        NO_DEPRECATED,
        'deprecated features',
        `a 2026-07-28 server declares ${dep.join(', ')} (deprecated by that revision)`,
        where,
        [capsFrom],
      );
  }
}
