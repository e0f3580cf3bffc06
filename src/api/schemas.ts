import type { JsonSchemaToTsProvider } from '@fastify/type-provider-json-schema-to-ts';
import { SOURCE_NAMES } from '../config.js';
import { AGENT_SEARCH_MAX, PAGE_MAX, SEARCH_OFFSET_MAX, STATS_DAYS_MAX } from './limits.js';

/**
 * The JSON schemas of the routes' inputs. Fastify validates requests with them (and
 * coerces querystring numbers), and the route handlers' types are derived from them
 * (json-schema-to-ts through @fastify/type-provider-json-schema-to-ts), so a handler's
 * idea of its input cannot disagree with what is validated. Every route has a querystring
 * schema and every object is closed (`additionalProperties: false`; the server's ajv keeps
 * unknown properties instead of removing them), so an unknown parameter is a 400 naming it.
 */

export const PROTOCOL = { type: 'string', enum: ['a2a', 'mcp'] } as const;

export const agentsQuerySchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    limit: { type: 'integer', minimum: 1, maximum: PAGE_MAX },
    cursor: { type: 'string', maxLength: 4096 },
    protocol: PROTOCOL,
    source: { type: 'string', maxLength: 100 },
    active: { type: 'string', enum: ['true', 'false', 'all'] },
  },
} as const;

/** A route that takes no query parameters. */
export const noQuerySchema = { type: 'object', additionalProperties: false, properties: {} } as const;

/** Any id string: one that is not an agent id is answered 404, like an unknown one. */
export const agentParamsSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['id'],
  properties: { id: { type: 'string' } },
} as const;

export const runParamsSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['runId'],
  properties: { runId: { type: 'string', minLength: 1, maxLength: 128, pattern: '^[A-Za-z0-9._:-]+$' } },
} as const;

export const dailyQuerySchema = {
  type: 'object',
  additionalProperties: false,
  properties: { days: { type: 'integer', minimum: 1, maximum: STATS_DAYS_MAX }, protocol: PROTOCOL },
} as const;

export const agentSearchQuerySchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    q: { type: 'string', maxLength: 200 },
    protocol: PROTOCOL,
    limit: { type: 'integer', minimum: 1, maximum: AGENT_SEARCH_MAX },
    cursor: { type: 'string', maxLength: 4096 },
  },
} as const;

/** The dashboard's search and agent-list filters (a plain GET form: an empty select sends ''). */
export const dashboardQuerySchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    q: { type: 'string', maxLength: 200 },
    cursor: { type: 'string', maxLength: 4096 },
    protocol: { type: 'string', enum: ['', ...PROTOCOL.enum] },
    source: { type: 'string', enum: ['', ...SOURCE_NAMES] },
    state: { type: 'string', enum: ['', 'up', 'down', 'unknown', 'pass', 'fail'] },
    transport: { type: 'string', maxLength: 100 },
    auth: { type: 'string', enum: ['', 'required', 'none'] },
    offset: { type: 'integer', minimum: 0, maximum: SEARCH_OFFSET_MAX },
  },
} as const;

/*
 * The JSON schemas of the routes' responses. Fastify serializes a response with the schema of
 * its status (fast-json-stringify), which leaves out every property the schema does not list:
 * each schema lists every property its response type has (test/api/openapi-serialization.test.ts
 * compares every JSON route's body with and without the schema). @fastify/swagger turns these
 * and the input schemas into /openapi.json. Times are ISO 8601 UTC text; a nullable value is
 * `type: [T, 'null']` (JSON Schema 2020-12, as OpenAPI 3.1 has it). The response types
 * (responses.ts) are derived from these schemas with FromSchema, so changing a schema changes
 * its type.
 */

/**
 * The type of a JSON schema: json-schema-to-ts's FromSchema as the routes' type provider applies
 * it to a response schema, i.e. the type Fastify checks a handler's reply against.
 */
export type FromSchema<S> = (JsonSchemaToTsProvider & { schema: S })['serializer'];

export const STRING = { type: 'string' } as const;
export const STRINGS = { type: 'array', items: { type: 'string' } } as const;
export const COUNT = { type: 'integer', minimum: 0 } as const;
const TIME = { type: 'string', description: 'ISO 8601 UTC' } as const;
const TIME_OR_NULL = { type: ['string', 'null'], description: 'ISO 8601 UTC, or null' } as const;
export const SHARE = { type: ['number', 'null'], minimum: 0, maximum: 1 } as const;
const FLAG = { type: 'integer', enum: [0, 1] } as const;
const UPTIME_STATE = { type: 'string', enum: ['up', 'down', 'unknown', 'skipped'] } as const;
const VERDICT_RESULT = { type: 'string', enum: ['pass', 'fail', 'unknown', 'n/a'] } as const;

/** The inside of the one error shape (src/api/errors.ts ApiErrorBody). */
const errorObject = {
  type: 'object',
  additionalProperties: false,
  required: ['code', 'message', 'requestId'],
  properties: {
    code: { type: 'string', description: 'A stable word for programs (not_found, bad_request, invalid_cursor, internal, unavailable, …)' },
    message: { type: 'string', description: 'For people; a 5xx says only that the details are logged under the request id' },
    requestId: { type: 'string', description: 'Also the x-request-id response header and the reqId of the log lines' },
  },
} as const;

/** The one error shape, a shared schema (app.addSchema): /openapi.json has it once, as components.schemas.ApiError. */
export const apiErrorSchema = {
  $id: 'ApiError',
  description: 'Every error the API answers: { error: { code, message, requestId } }',
  type: 'object',
  additionalProperties: false,
  required: ['error'],
  properties: { error: errorObject },
} as const;

const ERROR_DESCRIPTIONS = {
  400: 'Bad request: an unknown or invalid parameter, or a cursor this API did not make',
  404: 'Not found',
  500: 'Internal error: the details are logged under the request id',
  503: 'Unavailable',
} as const;

/** Response entries of the error statuses a route answers, each a reference to the one error schema. */
export function errorResponses<S extends keyof typeof ERROR_DESCRIPTIONS>(
  ...statuses: S[]
): Record<S, { $ref: 'ApiError#'; description: string }> {
  return Object.fromEntries(
    statuses.map((s) => [s, { $ref: 'ApiError#' as const, description: ERROR_DESCRIPTIONS[s] as string }]),
  ) as Record<S, { $ref: 'ApiError#'; description: string }>;
}

/** A page of HTML (the dashboard): a string, sent as it is (no serializer). */
export const htmlResponse = {
  description: 'An HTML page',
  content: { 'text/html': { schema: { type: 'string' } } },
} as const;

const proportionSchema = {
  type: 'object',
  additionalProperties: false,
  description: 'A share with its 95 % Wilson score interval; null share and bounds when there were no trials',
  required: ['successes', 'trials', 'share', 'low', 'high'],
  properties: { successes: COUNT, trials: COUNT, share: SHARE, low: SHARE, high: SHARE },
} as const;

export const healthResponseSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['status', 'warehouse'],
  properties: { status: { type: 'string', const: 'ok' }, warehouse: { type: 'string', enum: ['embedded', 'server'] } },
} as const;

/** /healthz's 503: the error shape with `status` beside it. */
export const healthUnavailableSchema = {
  type: 'object',
  additionalProperties: false,
  description: 'The warehouse did not answer (why is logged under the request id)',
  required: ['status', 'error'],
  properties: { status: { type: 'string', const: 'unavailable' }, error: errorObject },
} as const;

/** An agents row (AgentApiRow with ISO times). */
const agentProperties = {
  id: { type: 'string', description: '16 hex digits of the SHA-256 of the key' },
  key: { type: 'string', description: 'The dedupe key: the canonical endpoint (MCP) or card URL (A2A)' },
  protocol: { type: 'string', enum: ['a2a', 'mcp'] },
  name: STRING,
  description: STRING,
  endpointUrl: STRING,
  cardUrl: STRING,
  sources: STRINGS,
  sourceFirstSeen: {
    type: 'object',
    description: 'Per source, when it first listed the agent (ISO 8601 UTC)',
    additionalProperties: { type: 'string' },
  },
  firstSeen: TIME,
  lastSeen: TIME,
  active: FLAG,
  inactiveSince: TIME_OR_NULL,
  hasServerJson: FLAG,
} as const;
const AGENT_REQUIRED = Object.keys(agentProperties) as Array<keyof typeof agentProperties>;

const agentRowSchema = { type: 'object', additionalProperties: false, required: AGENT_REQUIRED, properties: agentProperties } as const;

export const agentsPageResponseSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['agents', 'more', 'nextCursor'],
  properties: {
    agents: { type: 'array', items: agentRowSchema },
    more: {
      type: 'boolean',
      description:
        'Whether a next page follows. A filtered page (protocol, source or active=false) reads a bounded stretch of the key order, so it can hold fewer than `limit` agents, or none, and still have more after it',
    },
    nextCursor: { type: ['string', 'null'], description: 'The cursor of the next page; null on the last' },
  },
} as const;

const listingSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['source', 'itemId', 'name', 'version', 'endpointUrl', 'cardUrl', 'tombstoned', 'firstSeen', 'lastSeen'],
  properties: {
    source: STRING,
    itemId: STRING,
    name: STRING,
    version: STRING,
    endpointUrl: STRING,
    cardUrl: STRING,
    tombstoned: FLAG,
    firstSeen: TIME,
    lastSeen: TIME,
  },
} as const;

export const uptimeWindowSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['uptime', 'checks', 'latencyP50Ms', 'latencyP95Ms'],
  properties: {
    uptime: { ...SHARE, description: 'up / (up + down) in the window; null when nothing was judged up or down' },
    checks: COUNT,
    latencyP50Ms: { type: ['number', 'null'] },
    latencyP95Ms: { type: ['number', 'null'] },
  },
} as const;

/**
 * A verdict's attestation: signed alone (src/conformance/attestation.ts: Ed25519 over
 * "veronikai-attestation/1\n" + the canonical JSON of `payload`), or as a leaf of its batch's signed
 * tree (src/conformance/tree-attestation.ts, docs/MERKLE.md: `head`, `leafIndex` and `proof` present).
 */
export const attestationSchema = {
  type: 'object',
  additionalProperties: false,
  description:
    'The signed verdict. Signed alone: verify `signature` (base64url Ed25519) over "veronikai-attestation/1\\n" + the canonical JSON of `payload` with the public key `keyId` names. ' +
    'Signed with its batch (`head`, `leafIndex` and `proof` present): `signature` is over "veronikai-tree-head/1\\n" + the canonical JSON of {checker, root, size} of `head`, ' +
    'and the leaf SHA-256(0x00 ‖ "veronikai-verdict/1\\n" + canonical JSON of `payload`) with `proof` must lead to `head.root` (docs/MERKLE.md)',
  required: ['payload', 'alg', 'canonicalization', 'keyId', 'signature'],
  properties: {
    payload: {
      type: 'object',
      additionalProperties: false,
      required: ['subject', 'observedAt', 'inputsHash', 'checker', 'suite', 'scope', 'result', 'reasons'],
      properties: {
        eventId: { type: 'string', description: 'The probe event judged (batch-signed verdicts)' },
        subject: STRING,
        observedAt: TIME,
        inputsHash: STRING,
        checker: STRING,
        suite: {
          type: 'object',
          additionalProperties: false,
          required: ['id', 'version'],
          properties: { id: STRING, version: { type: 'integer' } },
        },
        scope: { type: 'string', enum: ['document', 'observation'] },
        result: VERDICT_RESULT,
        reasons: STRINGS,
      },
    },
    alg: { type: 'string', const: 'Ed25519' },
    canonicalization: STRING,
    keyId: { type: 'string', description: '"ed25519:" + the first 32 hex digits of the SHA-256 of the public key (SPKI DER)' },
    signature: { type: 'string', description: 'base64url' },
    leafIndex: { type: 'integer', description: "The verdict's leaf in its batch's tree (batch-signed verdicts)" },
    proof: { ...STRINGS, description: 'The inclusion proof: hex SHA-256 hashes, deepest first (batch-signed verdicts)' },
    head: {
      type: 'object',
      additionalProperties: false,
      required: ['id', 'checker', 'root', 'size'],
      description: "The batch's signed tree head (batch-signed verdicts)",
      properties: { id: STRING, checker: STRING, root: STRING, size: { type: 'integer' } },
    },
  },
} as const;

/** An agent's status (responses.ts AgentStatus). */
const agentStatusProperties = {
  checkerVersion: STRING,
  lastCheckedAt: { ...TIME_OR_NULL, description: 'When the agent was last checked, under any checker version; null if never' },
  latestCheck: {
    type: ['object', 'null'],
    additionalProperties: false,
    required: ['at', 'eventId', 'uptime', 'reason', 'httpStatus', 'latencyMs', 'inSample', 'ourSide', 'source'],
    properties: {
      at: TIME_OR_NULL,
      eventId: STRING,
      uptime: UPTIME_STATE,
      reason: STRING,
      httpStatus: { type: ['integer', 'null'] },
      latencyMs: { type: ['integer', 'null'] },
      inSample: { type: 'boolean' },
      ourSide: { type: 'boolean' },
      source: STRING,
    },
  },
  latestVerdict: {
    type: ['object', 'null'],
    additionalProperties: false,
    required: ['checkerVersion', 'result', 'reasons', 'warnings', 'suiteId', 'suiteVersion', 'a2aVersion', 'a2aRoute', 'signature'],
    properties: {
      checkerVersion: STRING,
      result: VERDICT_RESULT,
      reasons: STRINGS,
      warnings: STRINGS,
      suiteId: STRING,
      suiteVersion: STRING,
      a2aVersion: STRING,
      a2aRoute: STRING,
      signature: {
        ...attestationSchema,
        type: ['object', 'null'],
        description: `${attestationSchema.description}; null when none is stored (or the stored one is not an attestation)`,
      },
    },
  },
  uptime: {
    type: 'object',
    additionalProperties: false,
    required: ['24h', '7d', '30d', '90d'],
    properties: { '24h': uptimeWindowSchema, '7d': uptimeWindowSchema, '30d': uptimeWindowSchema, '90d': uptimeWindowSchema },
  },
} as const;
const AGENT_STATUS_REQUIRED = Object.keys(agentStatusProperties) as Array<keyof typeof agentStatusProperties>;

/** An agent's status on its own (the agent response lists its properties beside the agent's). */
export const agentStatusSchema = {
  type: 'object',
  additionalProperties: false,
  required: AGENT_STATUS_REQUIRED,
  properties: agentStatusProperties,
} as const;

export const agentResponseSchema = {
  type: 'object',
  additionalProperties: false,
  required: [...AGENT_REQUIRED, 'listings', ...AGENT_STATUS_REQUIRED],
  properties: { ...agentProperties, listings: { type: 'array', items: listingSchema }, ...agentStatusProperties },
} as const;

const runStatsProperties = {
  runId: STRING,
  status: { type: 'string', enum: ['complete', 'incomplete', 'in progress'] },
  startedAt: TIME_OR_NULL,
  finishedAt: TIME_OR_NULL,
  seed: { type: ['string', 'null'] },
  planned: { type: ['integer', 'null'] },
  checkerVersion: STRING,
  sample: {
    type: 'object',
    additionalProperties: false,
    required: ['checks', 'up', 'pass', 'unknown', 'skipped', 'notApplicable', 'unknownVerdict'],
    properties: {
      checks: COUNT,
      up: proportionSchema,
      pass: proportionSchema,
      unknown: COUNT,
      skipped: COUNT,
      notApplicable: COUNT,
      unknownVerdict: COUNT,
    },
  },
  note: STRING,
  kind: { type: 'string', const: 'sample estimate' },
  partial: { type: 'boolean', description: 'True unless the run completed: the counts so far, never the whole index' },
} as const;
const RUN_STATS_REQUIRED = Object.keys(runStatsProperties) as Array<keyof typeof runStatsProperties>;

export const runStatsResponseSchema = {
  type: 'object',
  additionalProperties: false,
  required: RUN_STATS_REQUIRED,
  properties: runStatsProperties,
} as const;

export const latestRunStatsResponseSchema = {
  type: 'object',
  additionalProperties: false,
  required: [...RUN_STATS_REQUIRED, 'latestCompleteRunId'],
  properties: { ...runStatsProperties, latestCompleteRunId: { type: ['string', 'null'] } },
} as const;

export const censusResponseSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['kind', 'checkerVersion', 'agents', 'latest', 'asOf', 'computedAt', 'note'],
  properties: {
    kind: { type: 'string', const: 'census' },
    checkerVersion: STRING,
    agents: {
      type: 'object',
      additionalProperties: false,
      required: ['active', 'inactive'],
      properties: { active: COUNT, inactive: COUNT },
    },
    latest: {
      type: 'object',
      additionalProperties: false,
      required: ['up', 'down', 'unknown', 'skipped', 'pass', 'fail', 'unknownVerdict', 'notApplicable', 'neverChecked'],
      properties: {
        up: COUNT,
        down: COUNT,
        unknown: COUNT,
        skipped: COUNT,
        pass: COUNT,
        fail: COUNT,
        unknownVerdict: COUNT,
        notApplicable: COUNT,
        neverChecked: COUNT,
      },
    },
    asOf: { ...TIME_OR_NULL, description: 'Newest latest-state observation counted; null when nothing was checked yet' },
    computedAt: { ...TIME_OR_NULL, description: 'When these totals were counted' },
    note: STRING,
  },
} as const;

const OUTCOME_COUNTS = {
  checks: COUNT,
  up: COUNT,
  down: COUNT,
  unknown: COUNT,
  skipped: COUNT,
  pass: COUNT,
  fail: COUNT,
  unknownVerdict: COUNT,
  na: COUNT,
} as const;

export const dailyRowSchema = {
  type: 'object',
  additionalProperties: false,
  required: [
    'day',
    'protocol',
    'source',
    'checks',
    'up',
    'down',
    'unknown',
    'skipped',
    'pass',
    'fail',
    'unknownVerdict',
    'na',
    'uptime',
    'passRate',
    'sampleChecks',
    'sampleUp',
    'sampleDown',
    'samplePass',
    'sampleFail',
    'sampleUptime',
    'sampleUptimeLow',
    'sampleUptimeHigh',
    'samplePassRate',
    'samplePassRateLow',
    'samplePassRateHigh',
    'computedAt',
  ],
  properties: {
    day: { type: 'string', description: 'YYYY-MM-DD (UTC)' },
    protocol: STRING,
    source: STRING,
    ...OUTCOME_COUNTS,
    uptime: SHARE,
    passRate: SHARE,
    sampleChecks: COUNT,
    sampleUp: COUNT,
    sampleDown: COUNT,
    samplePass: COUNT,
    sampleFail: COUNT,
    sampleUptime: SHARE,
    sampleUptimeLow: SHARE,
    sampleUptimeHigh: SHARE,
    samplePassRate: SHARE,
    samplePassRateLow: SHARE,
    samplePassRateHigh: SHARE,
    computedAt: TIME_OR_NULL,
  },
} as const;

export const dailyTotalSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['day', 'checks', 'up', 'down', 'unknown', 'skipped', 'pass', 'fail', 'unknownVerdict', 'na', 'uptime', 'passRate', 'sample'],
  properties: {
    day: { type: 'string', description: 'YYYY-MM-DD (UTC)' },
    ...OUTCOME_COUNTS,
    uptime: SHARE,
    passRate: SHARE,
    sample: {
      type: 'object',
      additionalProperties: false,
      description: "The day's sample checks only, with 95 % Wilson intervals",
      required: ['checks', 'up', 'pass'],
      properties: { checks: COUNT, up: proportionSchema, pass: proportionSchema },
    },
  },
} as const;

export const dailyResponseSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['checkerVersion', 'days', 'protocol', 'rows', 'totals'],
  properties: {
    checkerVersion: STRING,
    days: COUNT,
    protocol: { type: ['string', 'null'] },
    rows: { type: 'array', description: 'One per day, protocol and source, newest day first', items: dailyRowSchema },
    totals: { type: 'array', description: 'The rows summed per day, newest first', items: dailyTotalSchema },
  },
} as const;

export const agentSummarySchema = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'name', 'protocol', 'sources', 'optOut', 'lastCheckedAt', 'uptime', 'result', 'uptime7d', 'uptime30d'],
  properties: {
    id: STRING,
    name: STRING,
    protocol: { type: 'string', enum: ['a2a', 'mcp'] },
    sources: STRINGS,
    optOut: { type: 'string', description: "'unchecked' when the owner opted out of probing (listed, never checked)" },
    lastCheckedAt: TIME_OR_NULL,
    uptime: { type: ['string', 'null'], description: "The latest check's uptime state under the current checker" },
    result: { type: ['string', 'null'], description: "The latest verdict's result under the current checker" },
    uptime7d: SHARE,
    uptime30d: SHARE,
  },
} as const;

export const agentSearchResponseSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['checkerVersion', 'agents', 'more', 'nextCursor'],
  properties: {
    checkerVersion: STRING,
    agents: { type: 'array', items: agentSummarySchema },
    more: {
      type: 'boolean',
      description:
        'Whether a next page follows. A page reads a bounded stretch of the list, so it can hold fewer than `limit` agents, or none, and still have more after it',
    },
    nextCursor: { type: ['string', 'null'] },
  },
} as const;

/**
 * GET /agents/:id answers JSON, or the agent page (HTML) to a client that prefers it: both
 * content types for 200 and 404 (Fastify picks the serializer by the reply's content type; the
 * HTML is a string, sent as it is).
 */
export const agentResponses = {
  200: {
    description: 'The agent: its listings, latest check and verdict, uptime windows; or its page (HTML) when Accept prefers text/html',
    content: { 'application/json': { schema: agentResponseSchema }, 'text/html': { schema: { type: 'string' } } },
  },
  404: {
    description: 'No agent has this id, or its owner asked for it to be hidden',
    content: { 'application/json': { schema: { $ref: 'ApiError#' } }, 'text/html': { schema: { type: 'string' } } },
  },
  ...errorResponses(400, 500),
} as const;
