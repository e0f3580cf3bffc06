/**
 * JSON Schema (draft 2020-12) of the Agent Plugins package report (`check DIR --json`) and of
 * the report of a directory of packages (`--recursive`), report version 1.
 */
const spec = {
  type: 'object',
  required: ['section', 'url'],
  additionalProperties: false,
  properties: { section: { type: 'string' }, url: { type: 'string', format: 'uri' } },
} as const;

const state = { enum: ['valid', 'invalid', 'absent', 'incomplete', 'not-checked'] } as const;
const count = { type: 'integer', minimum: 0 } as const;
const result = { enum: ['pass', 'fail', 'unknown', 'n/a'] } as const;
const tool = {
  type: 'object',
  required: ['name', 'checker'],
  additionalProperties: false,
  properties: { name: { const: 'veronikai check' }, checker: { type: 'string', pattern: '^VeronikAI/' } },
} as const;

export const PLUGIN_REPORT_SCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'https://veronikai.com/schemas/plugin-check-report/1.json',
  title: 'VeronikAI Agent Plugins package report, version 1',
  type: 'object',
  required: [
    'reportVersion',
    'tool',
    'target',
    'suite',
    'selectedRule',
    'result',
    'exitCode',
    'qualification',
    'components',
    'summary',
    'rules',
    'findings',
    'omittedFindings',
    'incomplete',
  ],
  additionalProperties: false,
  properties: {
    reportVersion: { const: 1 },
    tool,
    target: {
      type: 'object',
      required: ['input', 'kind', 'scope'],
      additionalProperties: false,
      properties: { input: { type: 'string' }, kind: { const: 'agent-plugin' }, scope: { const: 'document' } },
    },
    suite: {
      type: 'object',
      required: ['id', 'version', 'specification'],
      additionalProperties: false,
      properties: { id: { type: 'string' }, version: { type: 'integer', minimum: 1 }, specification: { type: 'string' } },
    },
    selectedRule: { type: ['string', 'null'], pattern: '^PLG-\\d{3}$' },
    result,
    exitCode: { enum: [0, 1, 2] },
    qualification: { type: 'string' },
    components: {
      type: 'object',
      required: ['manifest', 'skills', 'mcp'],
      additionalProperties: false,
      properties: {
        manifest: state,
        skills: {
          type: 'object',
          required: ['state', 'discovered', 'valid'],
          additionalProperties: false,
          properties: { state, discovered: count, valid: count },
        },
        mcp: {
          type: 'object',
          required: ['state', 'servers', 'valid'],
          additionalProperties: false,
          properties: { state, servers: count, valid: count },
        },
      },
    },
    summary: {
      type: 'object',
      required: ['passed', 'failed', 'unableToComplete', 'blocked', 'notApplicable', 'excluded'],
      additionalProperties: false,
      properties: { passed: count, failed: count, unableToComplete: count, blocked: count, notApplicable: count, excluded: count },
    },
    rules: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'severity', 'outcome', 'section'],
        additionalProperties: false,
        properties: {
          id: { type: 'string', pattern: '^PLG-\\d{3}$' },
          severity: { enum: ['fail', 'warn'] },
          outcome: { enum: ['pass', 'fail', 'unable-to-complete', 'blocked', 'not-applicable', 'excluded'] },
          section: { type: 'string' },
        },
      },
    },
    findings: {
      type: 'array',
      items: {
        type: 'object',
        required: ['ruleId', 'severity', 'file', 'pointer', 'location', 'line', 'column', 'message', 'spec'],
        additionalProperties: false,
        properties: {
          ruleId: { type: 'string', pattern: '^PLG-\\d{3}$' },
          severity: { enum: ['fail', 'warn'] },
          file: { type: 'string' },
          pointer: { type: ['string', 'null'] },
          location: { type: 'string' },
          line: { type: ['integer', 'null'], minimum: 1 },
          column: { type: ['integer', 'null'], minimum: 1 },
          message: { type: 'string' },
          spec,
        },
      },
    },
    omittedFindings: count,
    incomplete: {
      type: 'array',
      items: {
        type: 'object',
        required: ['ruleId', 'location', 'reason'],
        additionalProperties: false,
        properties: { ruleId: { type: 'string' }, location: { type: 'string' }, reason: { type: 'string' } },
      },
    },
  },
} as const;

export const PLUGIN_REPORT_SET_SCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'https://veronikai.com/schemas/plugin-check-report-set/1.json',
  title: 'VeronikAI Agent Plugins report for a directory of packages, version 1',
  type: 'object',
  required: ['reportVersion', 'tool', 'target', 'result', 'exitCode', 'note', 'packages'],
  additionalProperties: false,
  properties: {
    reportVersion: { const: 1 },
    tool,
    target: {
      type: 'object',
      required: ['input', 'kind', 'scope'],
      additionalProperties: false,
      properties: { input: { type: 'string' }, kind: { const: 'agent-plugin-collection' }, scope: { const: 'document' } },
    },
    result,
    exitCode: { enum: [0, 1, 2] },
    note: { type: ['string', 'null'] },
    packages: {
      type: 'array',
      items: {
        type: 'object',
        required: ['path', 'report'],
        additionalProperties: false,
        properties: { path: { type: 'string' }, report: PLUGIN_REPORT_SCHEMA },
      },
    },
  },
} as const;
