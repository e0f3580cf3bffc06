/** The schemas of GET /search (docs/SEARCH.md): its query and its answer. */
import { SEARCH_MAX, SEARCH_OFFSET_MAX, SEARCH_QUERY_MAX } from './limits.js';
import { PROTOCOL, STRING, STRINGS, COUNT, SHARE } from './schemas.js';

/** GET /search: the ranked full-text search (docs/SEARCH.md), its filters and page. */
export const searchQuerySchema = {
  type: 'object',
  additionalProperties: false,
  required: ['q'],
  properties: {
    q: {
      type: 'string',
      minLength: 1,
      maxLength: SEARCH_QUERY_MAX,
      description: 'Words or a sentence; the last word also matches as a prefix',
    },
    protocol: PROTOCOL,
    source: { type: 'string', maxLength: 100 },
    state: {
      type: 'string',
      enum: ['up', 'down', 'unknown', 'pass', 'fail'],
      description: 'Latest check (up, down, unknown) or verdict (pass, fail) under the current checker',
    },
    transport: { type: 'string', maxLength: 100 },
    auth: { type: 'string', enum: ['required', 'none'], description: 'Whether the card or server.json asks for authentication' },
    limit: { type: 'integer', minimum: 1, maximum: SEARCH_MAX },
    offset: { type: 'integer', minimum: 0, maximum: SEARCH_OFFSET_MAX },
    explain: { type: 'string', enum: ['0', '1'], description: '1: each hit carries its score parts' },
  },
} as const;

const NUMBER = { type: 'number' } as const;
const RANGES = { type: 'array', items: { type: 'array', items: { type: 'integer', minimum: 0 }, minItems: 2, maxItems: 2 } } as const;
const FACET = { type: 'object', additionalProperties: COUNT, description: 'Matches per value, under the other filters' } as const;

export const searchExplainSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['relevance', 'terms', 'phrase', 'boosts', 'score'],
  description: 'score = relevance × (1 + phrase) × (1 + upNow + uptime30 + conformance)',
  properties: {
    relevance: { type: 'number', description: 'BM25F: the sum over the query words of their best term part' },
    terms: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['word', 'term', 'kind', 'idf', 'impact', 'part'],
        properties: {
          word: STRING,
          term: STRING,
          kind: { type: 'string', enum: ['exact', 'prefix', 'completion', 'typo'] },
          idf: NUMBER,
          impact: { type: 'integer', description: 'The BM25F saturated term frequency, 0..65535' },
          part: NUMBER,
        },
      },
    },
    phrase: { type: 'number', description: 'Boost for query words side by side (or near) in the name, title or description' },
    boosts: {
      type: 'object',
      additionalProperties: false,
      required: ['upNow', 'uptime30', 'conformance'],
      description: 'From our own measurements only',
      properties: { upNow: NUMBER, uptime30: NUMBER, conformance: NUMBER },
    },
    score: NUMBER,
  },
} as const;

export const searchHitSchema = {
  type: 'object',
  additionalProperties: false,
  required: [
    'id',
    'key',
    'name',
    'title',
    'description',
    'protocol',
    'sources',
    'transports',
    'authRequired',
    'uptime',
    'result',
    'uptime30d',
    'score',
    'matched',
    'highlights',
    'explain',
  ],
  properties: {
    id: STRING,
    key: STRING,
    name: STRING,
    title: STRING,
    description: STRING,
    protocol: { type: 'string', enum: ['a2a', 'mcp'] },
    sources: STRINGS,
    transports: STRINGS,
    authRequired: { type: 'boolean' },
    uptime: { type: ['string', 'null'], description: "The latest check's uptime state under the current checker" },
    result: { type: ['string', 'null'], description: "The latest verdict's result under the current checker" },
    uptime30d: SHARE,
    score: NUMBER,
    matched: { ...STRINGS, description: 'The index terms this hit matched (analysed words: folded, stemmed)' },
    highlights: {
      type: 'object',
      additionalProperties: false,
      required: ['name', 'title', 'description'],
      description: 'Where the matched words stand: [start, end) offsets in UTF-16 code units of each text',
      properties: { name: RANGES, title: RANGES, description: RANGES },
    },
    explain: { anyOf: [searchExplainSchema, { type: 'null' }], description: 'The score parts with explain=1, else null' },
  },
} as const;

export const searchResponseSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['checkerVersion', 'q', 'hits', 'total', 'complete', 'facets'],
  properties: {
    checkerVersion: STRING,
    q: STRING,
    hits: { type: 'array', items: searchHitSchema },
    total: {
      type: 'integer',
      minimum: 0,
      description: 'Matches after the filters: every match when complete, else among the best candidates scored (at most 100)',
    },
    complete: {
      type: 'boolean',
      description:
        'Whether the total and the protocol, source, transport and auth facets count every match (true unless the query terms have ' +
        'more than 200,000 postings in all or a state filter is given); the state facet and filter apply to the best candidates',
    },
    facets: {
      type: 'object',
      additionalProperties: false,
      required: ['protocol', 'source', 'state', 'transport', 'auth'],
      properties: { protocol: FACET, source: FACET, state: FACET, transport: FACET, auth: FACET },
    },
  },
} as const;
