import { describe, expect, it } from 'vitest';
import {
  documentImpacts,
  idf,
  IMPACT_SCALE,
  phraseBoost,
  recordBoosts,
  termPart,
  UP_NOW_BOOST,
  UPTIME_BOOST,
  PASS_BOOST,
  PHRASE_BOOST,
} from '../../src/warehouse/search/bm25f.js';
import { FIELD_NAMES, searchDocument, type Fields } from '../../src/warehouse/search/fields.js';

const fields = (f: Partial<Fields>): Fields => ({ ...(Object.fromEntries(FIELD_NAMES.map((n) => [n, ''])) as Fields), ...f });

describe('BM25F', () => {
  it('weighs a word in the name above the same word in a skill example', () => {
    const inName = documentImpacts(fields({ name: 'Weather', examples: 'what is the forecast in Paris' }));
    const inExample = documentImpacts(fields({ name: 'Forecaster', examples: 'what is the weather in Paris' }));
    expect(inName.get('weather')!).toBeGreaterThan(inExample.get('weather')!);
    for (const v of inName.values()) expect(v).toBeLessThanOrEqual(IMPACT_SCALE);
  });

  it('saturates repeated words and normalises long fields', () => {
    const once = documentImpacts(fields({ description: 'maps' }));
    const many = documentImpacts(fields({ description: 'maps maps maps maps maps maps' }));
    const long = documentImpacts(fields({ description: `maps ${'other words here '.repeat(30)}` }));
    expect(many.get('map')!).toBeGreaterThan(once.get('map')!);
    expect(many.get('map')! - once.get('map')!).toBeLessThan(once.get('map')!);
    expect(long.get('map')!).toBeLessThan(once.get('map')!);
  });

  it('gives rare terms a higher idf and never a negative one', () => {
    expect(idf(1, 1000)).toBeGreaterThan(idf(500, 1000));
    expect(idf(1000, 1000)).toBeGreaterThan(0);
    expect(termPart('exact', 2, IMPACT_SCALE)).toBeGreaterThan(termPart('typo', 2, IMPACT_SCALE));
  });

  it('boosts words side by side, and within a few words by half', () => {
    const words = [new Set(['browser']), new Set(['autom'])];
    expect(phraseBoost(words, [['browser', 'autom', 'tool']])).toBeCloseTo(PHRASE_BOOST);
    expect(phraseBoost(words, [['browser', 'x', 'autom']])).toBeCloseTo(PHRASE_BOOST / 2);
    expect(phraseBoost(words, [['autom', 'browser']])).toBe(0);
    expect(phraseBoost([new Set(['x'])], [['x']])).toBe(0);
  });

  it('bounds the boosts of an agent record', () => {
    expect(recordBoosts(null)).toEqual({ upNow: 0, uptime30: 0, conformance: 0 });
    expect(recordBoosts({ latestUptime: 'up', latestResult: 'pass', uptime30: 1 })).toEqual({
      upNow: UP_NOW_BOOST,
      uptime30: UPTIME_BOOST,
      conformance: PASS_BOOST,
    });
    expect(recordBoosts({ latestUptime: 'down', latestResult: 'fail', uptime30: 0.5 }).uptime30).toBeCloseTo(UPTIME_BOOST / 2);
  });
});

describe('search documents', () => {
  it('reads a card: skills, tags, examples, provider, transports and whether it asks for authentication', () => {
    const card = JSON.stringify({
      name: 'Trip Planner',
      description: 'Plans trips',
      provider: { organization: 'Acme Travel', url: 'https://acme.example' },
      preferredTransport: 'JSONRPC',
      securitySchemes: { key: { type: 'apiKey' } },
      skills: [{ name: 'Book flights', description: 'Finds and books flights', tags: ['travel', 'air-fare'], examples: ['fly to Rome'] }],
    });
    const d = searchDocument({
      agentKey: 'https://trips.example/a2a',
      protocol: 'a2a',
      name: 'Trip Planner',
      description: 'Plans trips',
      listings: [],
      card,
    });
    expect(d.fields.skills).toContain('Book flights');
    expect(d.fields.tags).toContain('air fare');
    expect(d.fields.examples).toContain('fly to Rome');
    expect(d.fields.provider).toContain('Acme Travel');
    expect(d.transports).toEqual(['jsonrpc']);
    expect(d.authRequired).toBe(true);
  });

  it('reads a server.json and a listing item: title, packages, remotes, categories; bad JSON reads as nothing', () => {
    const serverJson = JSON.stringify({
      name: 'io.github.acme/pg',
      title: 'Postgres Tools',
      description: 'Query Postgres',
      packages: [{ registryType: 'npm', identifier: '@acme/pg-mcp' }],
      remotes: [{ type: 'streamable-http', url: 'https://pg.example/mcp', headers: [{ name: 'Authorization', isRequired: true }] }],
    });
    const d = searchDocument({
      agentKey: 'https://pg.example/mcp',
      protocol: 'mcp',
      name: 'io.github.acme/pg',
      description: '',
      card: '{not json',
      listings: [{ source: 'a-list', serverJson, raw: JSON.stringify({ categories: ['Databases'], tags: ['sql'] }), transport: '' }],
    });
    expect(d.title).toBe('Postgres Tools');
    expect(d.fields.packages).toContain('acme pg-mcp');
    expect(d.fields.tags).toContain('Databases');
    expect(d.transports).toEqual(['streamable-http']);
    expect(d.authRequired).toBe(true);
    expect(d.fields.skills).toBe('');
  });
});
