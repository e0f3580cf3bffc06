import { flag, NOT_UTF8 } from '../../findings.js';
import { isObject, jsonType, parseJson } from '../../../core/json-util.js';
import type { Rule } from '../../rule.js';
import type { McpInput } from './input.js';
import { SERVER_JSON_SCHEMA } from './spec.js';

/** MCP-Q-001: the server.json is JSON text holding an object; every other rule of the suite needs it. */

export const SERVER_JSON_OBJECT: Rule<McpInput> = {
  id: 'MCP-Q-001',
  suite: 'mcp',
  component: 'server.json',
  severity: 'fail',
  basis: 'spec',
  needs: 'document',
  prerequisites: [],
  title: 'server.json is a JSON object',
  description: 'The server.json does not parse as a JSON object, or is not valid UTF-8 (RFC 8259 §8.1).',
  section: 'server.json schema 2025-12-11',
  link: SERVER_JSON_SCHEMA,
  check: checkObject,
};

/** Parses a server.json given as text, leaving the value for the rules after it, and judges the value. */
function checkObject(input: McpInput): void {
  const rec = input.rec;
  if (input.text !== null) {
    const r = parseJson(input.text);
    if (!r.ok) return flag(rec, SERVER_JSON_OBJECT, 'document', '', 'server.json does not parse as JSON');
    if (!input.validUtf8) return flag(rec, SERVER_JSON_OBJECT, 'document', '', `server.json is ${NOT_UTF8}`);
    input.doc = r.value;
  }
  rec.pass(SERVER_JSON_OBJECT);
  if (!isObject(input.doc)) flag(rec, SERVER_JSON_OBJECT, 'document', '', `server.json is ${jsonType(input.doc)}, not a JSON object`);
}
