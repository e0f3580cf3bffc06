/**
 * JSON Schema (draft 2020-12) of the report `veronikai check --json` writes, report version 1.
 * A change that a consumer could notice bumps REPORT_VERSION and this schema's $id, once
 * version 1 has been released. (Before its first release, with checker
 * VeronikAI/0.1+attestations.1, version 1 gained `rulesFlagged` on verdicts and a typed
 * attestation payload that carries `scope`.)
 */
const finding = {
  type: 'object',
  required: ['ruleId', 'severity', 'artifact', 'location', 'message', 'spec'],
  additionalProperties: false,
  properties: {
    ruleId: { type: 'string', pattern: '^(A2A-CARD|A2A-STRUCT|MCP-Q|MCP-T)-\\d{3}$' },
    severity: { enum: ['fail', 'warn'] },
    artifact: { enum: ['document', 'card-chain', 'http-get', 'http-metadata'] },
    location: { type: 'string' },
    message: { type: 'string' },
    spec: {
      type: 'object',
      required: ['section', 'url'],
      additionalProperties: false,
      properties: { section: { type: 'string' }, url: { type: 'string', format: 'uri' } },
    },
  },
} as const;

const violation = {
  type: 'object',
  required: ['ruleId', 'kind', 'pointer', 'message'],
  additionalProperties: false,
  properties: {
    ruleId: { type: 'string' },
    kind: { enum: ['missing', 'type', 'item-type'] },
    pointer: { type: 'string' },
    message: { type: 'string' },
  },
} as const;

const family = { enum: ['0.2', '0.3', '1.0'] } as const;

const a2a = {
  type: 'object',
  required: [
    'route',
    'basis',
    'family',
    'version',
    'claimed',
    'recognised',
    'schema',
    'schemaSha256',
    'valid',
    'violationCount',
    'tolerantValid',
    'alternative',
  ],
  additionalProperties: false,
  properties: {
    route: { enum: ['declared', 'conflict', 'inferred', 'none'] },
    basis: { enum: ['json-ld-context', 'supported-interfaces', 'protocol-version', 'url', 'none'] },
    family: { anyOf: [family, { type: 'null' }] },
    version: { type: ['string', 'null'] },
    claimed: { type: ['string', 'null'] },
    recognised: { type: ['boolean', 'null'] },
    schema: { type: ['string', 'null'] },
    schemaSha256: { type: ['string', 'null'] },
    valid: { type: ['boolean', 'null'] },
    violationCount: { type: 'integer', minimum: 0 },
    tolerantValid: { type: ['boolean', 'null'] },
    alternative: {
      anyOf: [
        { type: 'null' },
        {
          type: 'object',
          required: ['family', 'version', 'schema', 'valid', 'violationCount', 'violations'],
          additionalProperties: false,
          properties: {
            family,
            version: { type: 'string' },
            schema: { type: 'string' },
            valid: { type: 'boolean' },
            violationCount: { type: 'integer', minimum: 0 },
            violations: { type: 'array', items: violation },
          },
        },
      ],
    },
  },
} as const;

const verdict = {
  type: 'object',
  required: [
    'subject',
    'observedAt',
    'checker',
    'suite',
    'result',
    'reasons',
    'findings',
    'omittedFindings',
    'rulesEvaluated',
    'rulesFlagged',
    'scope',
    'inputsHash',
  ],
  additionalProperties: false,
  properties: {
    subject: { type: 'string' },
    observedAt: { type: 'string' },
    checker: { type: 'string', pattern: '^VeronikAI/' },
    suite: {
      type: 'object',
      required: ['id', 'version'],
      additionalProperties: false,
      properties: { id: { type: 'string' }, version: { type: 'integer', minimum: 1 } },
    },
    result: { enum: ['pass', 'fail', 'unknown', 'n/a'] },
    reasons: { type: 'array', items: { type: 'string' } },
    findings: { type: 'array', items: finding },
    omittedFindings: { type: 'integer', minimum: 0 },
    rulesEvaluated: { type: 'array', items: { type: 'string' } },
    /** Rules with at least one finding, listed or past the findings cap. */
    rulesFlagged: { type: 'array', items: { type: 'string' } },
    scope: { enum: ['document', 'observation'] },
    inputsHash: { type: 'string', pattern: '^sha256:' },
    a2a,
  },
} as const;

/** The signed payload (src/conformance/attestation.ts): what was judged, and the answer. */
const attestationPayload = {
  type: 'object',
  required: ['subject', 'observedAt', 'inputsHash', 'checker', 'suite', 'scope', 'result', 'reasons'],
  additionalProperties: false,
  properties: {
    subject: { type: 'string' },
    observedAt: { type: 'string' },
    inputsHash: { type: 'string', pattern: '^sha256:' },
    checker: { type: 'string', pattern: '^VeronikAI/' },
    suite: verdict.properties.suite,
    scope: { enum: ['document', 'observation'] },
    result: { enum: ['pass', 'fail', 'unknown', 'n/a'] },
    reasons: { type: 'array', items: { type: 'string' } },
  },
} as const;

export const CHECK_REPORT_SCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'https://veronikai.com/schemas/check-report/1.json',
  title: 'VeronikAI check report, version 1',
  type: 'object',
  required: [
    'reportVersion',
    'tool',
    'target',
    'selectedRule',
    'result',
    'exitCode',
    'qualification',
    'summary',
    'rules',
    'verdicts',
    'uptime',
    'attestations',
  ],
  additionalProperties: false,
  properties: {
    reportVersion: { const: 1 },
    tool: {
      type: 'object',
      required: ['name', 'checker'],
      additionalProperties: false,
      properties: { name: { const: 'veronikai check' }, checker: { type: 'string' } },
    },
    target: {
      type: 'object',
      required: ['input', 'kind', 'scope'],
      additionalProperties: false,
      properties: {
        input: { type: 'string' },
        kind: { enum: ['a2a-card', 'mcp-server-json', 'mcp-endpoint'] },
        scope: { enum: ['document', 'live'] },
      },
    },
    selectedRule: { type: ['string', 'null'] },
    result: { enum: ['pass', 'fail', 'unknown', 'n/a'] },
    exitCode: { enum: [0, 1, 2] },
    qualification: { type: 'string' },
    summary: {
      type: 'object',
      required: ['passed', 'failed', 'warned', 'blocked', 'notRun', 'notApplicable', 'excluded'],
      additionalProperties: false,
      properties: Object.fromEntries(
        ['passed', 'failed', 'warned', 'blocked', 'notRun', 'notApplicable', 'excluded'].map((k) => [k, { type: 'integer', minimum: 0 }]),
      ),
    },
    rules: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'suite', 'severity', 'outcome'],
        additionalProperties: false,
        properties: {
          id: { type: 'string' },
          suite: { type: 'string' },
          severity: { enum: ['fail', 'warn'] },
          outcome: { enum: ['pass', 'fail', 'warn', 'blocked', 'not-run', 'not-applicable', 'excluded'] },
        },
      },
    },
    verdicts: { type: 'array', items: verdict },
    uptime: {
      anyOf: [
        { type: 'null' },
        {
          type: 'object',
          required: ['state', 'reason', 'ourSide', 'status'],
          additionalProperties: false,
          properties: {
            state: { enum: ['up', 'down', 'unknown', 'skipped'] },
            reason: { type: 'string' },
            ourSide: { type: 'boolean' },
            status: { type: ['integer', 'null'] },
          },
        },
      ],
    },
    attestations: {
      type: 'array',
      items: {
        type: 'object',
        required: ['payload', 'alg', 'canonicalization', 'keyId', 'signature'],
        additionalProperties: false,
        properties: {
          payload: attestationPayload,
          alg: { const: 'Ed25519' },
          canonicalization: { type: 'string' },
          keyId: { type: 'string', pattern: '^ed25519:[0-9a-f]{32}$' },
          signature: { type: 'string' },
        },
      },
    },
  },
} as const;
