import { flag } from '../../findings.js';
import { isNonEmptyString, jsonType, own, sanitize, type JsonObject } from '../../../core/json-util.js';
import { isPlaceholderDescription, MIN_DESCRIPTION, normalizeText, repeatsName } from '../../mcp-quality.js';
import type { Rule } from '../../rule.js';
import type { McpInput } from './input.js';
import { serverJson } from './spec.js';

/**
 * MCP-Q-002 to 005 and MCP-Q-103: the description is present, at least MIN_DESCRIPTION
 * characters (Unicode code points of the trimmed text), not a placeholder, not only the name, not
 * the title (mcp-quality.ts; docs/RULES.md).
 */

export const DESCRIPTION_PRESENT: Rule<McpInput> = {
  id: 'MCP-Q-002',
  suite: 'mcp',
  component: 'server.json',
  severity: 'fail',
  basis: 'spec',
  needs: 'document',
  prerequisites: ['MCP-Q-001'],
  title: 'Description present',
  description: 'description is missing, not a string, or blank.',
  ...serverJson('description'),
  check: checkDescription,
};

export const DESCRIPTION_LENGTH: Rule<McpInput> = {
  id: 'MCP-Q-003',
  suite: 'mcp',
  component: 'server.json',
  severity: 'fail',
  basis: 'policy',
  needs: 'document',
  prerequisites: ['MCP-Q-001'],
  title: 'Description at least 20 characters',
  description: 'description is shorter than 20 characters.',
  ...serverJson('description'),
  check: checkDescription,
};

export const DESCRIPTION_NOT_PLACEHOLDER: Rule<McpInput> = {
  id: 'MCP-Q-004',
  suite: 'mcp',
  component: 'server.json',
  severity: 'fail',
  basis: 'policy',
  needs: 'document',
  prerequisites: ['MCP-Q-001'],
  title: 'Description is not a placeholder',
  description: 'description is template or placeholder text ("hello world", "an MCP server", "<your description here>", …).',
  ...serverJson('description'),
  check: checkDescription,
};

export const DESCRIPTION_NOT_NAME: Rule<McpInput> = {
  id: 'MCP-Q-005',
  suite: 'mcp',
  component: 'server.json',
  severity: 'fail',
  basis: 'policy',
  needs: 'document',
  prerequisites: ['MCP-Q-001'],
  title: 'Description says more than the name',
  description: 'description only repeats the server name.',
  ...serverJson('description'),
  check: checkDescription,
};

export const DESCRIPTION_NOT_TITLE: Rule<McpInput> = {
  id: 'MCP-Q-103',
  suite: 'mcp',
  component: 'server.json',
  severity: 'warn',
  basis: 'policy',
  needs: 'document',
  prerequisites: ['MCP-Q-001'],
  title: 'Description differs from title',
  description: 'description is the same text as title.',
  ...serverJson('title, description'),
  check: checkDescription,
};

function checkDescription({ rec, doc }: McpInput): void {
  rec.pass(DESCRIPTION_PRESENT, DESCRIPTION_LENGTH, DESCRIPTION_NOT_PLACEHOLDER, DESCRIPTION_NOT_NAME, DESCRIPTION_NOT_TITLE);
  const server = doc as JsonObject; // MCP-Q-001 passed
  const desc = own(server, 'description');
  if (!isNonEmptyString(desc)) {
    flag(
      rec,
      DESCRIPTION_PRESENT,
      'document',
      '/description',
      desc === undefined
        ? 'description is missing'
        : typeof desc === 'string'
          ? 'description is blank'
          : `description must be a string, found ${jsonType(desc)}`,
    );
    return;
  }
  const trimmed = desc.trim();
  const len = codePointsUpTo(trimmed, MIN_DESCRIPTION);
  if (len < MIN_DESCRIPTION)
    flag(rec, DESCRIPTION_LENGTH, 'document', '/description', `description has ${len} characters; at least ${MIN_DESCRIPTION} are needed`);
  // Normalised once for the three rules that compare it (each reads it only up to 2000 characters).
  const normalized = trimmed.length <= 2000 ? normalizeText(trimmed) : undefined;
  if (isPlaceholderDescription(trimmed, normalized))
    flag(
      rec,
      DESCRIPTION_NOT_PLACEHOLDER,
      'document',
      '/description',
      `description ${JSON.stringify(sanitize(trimmed, 60))} is placeholder text`,
    );
  const name = own(server, 'name');
  if (repeatsName(trimmed, name, normalized))
    flag(
      rec,
      DESCRIPTION_NOT_NAME,
      'document',
      '/description',
      `description only repeats the name ${JSON.stringify(sanitize(String(name), 80))}`,
    );
  const title = own(server, 'title');
  if (typeof title === 'string' && title.length <= 2000 && normalized !== undefined && normalizeText(title) === normalized) {
    flag(rec, DESCRIPTION_NOT_TITLE, 'document', '/description', 'description is the same text as title');
  }
}

/** The number of code points of `text`, counted no further than `max`. */
function codePointsUpTo(text: string, max: number): number {
  let n = 0;
  for (const _ of text) if (++n >= max) break;
  return n;
}
