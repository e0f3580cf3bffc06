import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  attribute,
  checkA2ACard,
  checkServerJson,
  checkStructure,
  hashInputs,
  judgeA2AObservation,
  judgeMcpObservation,
  structuralAnswer,
  type A2AObservation,
  type McpObservation,
  type Verdict,
} from '../../src/conformance/index.js';
import { ctxOf, recipeCard, weatherServerJson } from './helpers.js';

/**
 * Property-based tests over untrusted input: arbitrary JSON, deep nesting, huge arrays, wrong
 * types and keys like __proto__ and constructor. The engine never throws, never mutates its
 * input, answers within a generous time bound, and never hides an internal error as a verdict.
 */

const ctx = ctxOf('p');
const RUNS = 300;

const HOSTILE_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'valueOf', 'hasOwnProperty', '__defineGetter__', 'toJSON'];
const CARD_KEYS = [
  '@context',
  'name',
  'description',
  'url',
  'version',
  'protocolVersion',
  'capabilities',
  'defaultInputModes',
  'defaultOutputModes',
  'skills',
  'provider',
  'supportedInterfaces',
  'additionalInterfaces',
  'tags',
  'id',
  'organization',
  'protocolBinding',
  'transport',
];
const MCP_KEYS = ['$schema', 'name', 'title', 'description', 'version', 'remotes', 'type', 'url', 'repository', 'websiteUrl', 'packages'];

/** JSON values whose objects use card/server.json keys, hostile keys and wrong types, built through JSON text so `__proto__` is an own key. */
function jsonish(keys: string[]): fc.Arbitrary<string> {
  const key = fc.oneof(fc.constantFrom(...keys), fc.constantFrom(...HOSTILE_KEYS), fc.string({ maxLength: 8 }));
  const leaf = fc.oneof(
    fc.constantFrom(
      'null',
      'true',
      'false',
      '0',
      '-0',
      '1e308',
      '42',
      '""',
      '" "',
      '"https://a.dev/x"',
      '"http://10.0.0.1/"',
      '"0.3.0"',
      '"1.0"',
      '"streamable-http"',
      '"sse"',
      '"{x}"',
      '"https://a2a-protocol.org/v1/agent-card.jsonld"',
    ),
    fc.string({ maxLength: 30 }).map((s) => JSON.stringify(s)),
    fc.double().map((d) => (Number.isFinite(d) ? JSON.stringify(d) : '0')),
  );
  const { value } = fc.letrec<{ value: string; arr: string; obj: string }>((tie) => ({
    value: fc.oneof({ maxDepth: 5, depthSize: 'small' }, leaf, tie('arr'), tie('obj')),
    arr: fc.array(tie('value'), { maxLength: 5 }).map((xs) => `[${xs.join(',')}]`),
    obj: fc
      .array(fc.tuple(key, tie('value')), { maxLength: 8 })
      .map((kv) => `{${kv.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`),
  }));
  return value;
}

function deepFreeze<T>(v: T): T {
  const stack: unknown[] = [v];
  while (stack.length) {
    const x = stack.pop();
    if (x && typeof x === 'object' && !Object.isFrozen(x)) {
      Object.freeze(x);
      for (const k of Object.keys(x)) stack.push((x as Record<string, unknown>)[k]);
    }
  }
  return v;
}

function sane(vs: Verdict[]): void {
  for (const v of vs) {
    expect(['pass', 'fail', 'unknown', 'n/a']).toContain(v.result);
    expect(v.reasons.join('\n')).not.toMatch(/internal error/);
    expect(v.checker).toMatch(/^VeronikAI\//);
    // eslint-disable-next-line no-control-regex -- reasons must hold no control characters but tab and line feed
    for (const r of v.reasons) expect(r).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f\u001b]/);
  }
}

describe('the engine on arbitrary input', () => {
  it('never throws, never mutates, on arbitrary JSON values (fc.jsonValue) as card and server.json', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const before = JSON.stringify(value);
        const frozen = deepFreeze(value);
        const a = checkA2ACard({ value: frozen }, ctx);
        const m = checkServerJson({ value: frozen }, ctx);
        sane([a.card, a.structure, m]);
        expect(JSON.stringify(value)).toBe(before);
        const text = checkA2ACard({ text: before }, ctx);
        expect(text.card.result).toBe(a.card.result);
        expect(text.structure.result).toBe(a.structure.result);
      }),
      { numRuns: RUNS },
    );
  });

  it('handles hostile keys (__proto__, constructor, …) and wrong types on card-shaped documents', () => {
    fc.assert(
      fc.property(jsonish(CARD_KEYS), jsonish(MCP_KEYS), (cardText, serverText) => {
        const card = deepFreeze(JSON.parse(cardText) as unknown);
        const server = deepFreeze(JSON.parse(serverText) as unknown);
        const a = checkA2ACard({ value: card }, ctx);
        const m = checkServerJson({ value: server }, ctx);
        sane([a.card, a.structure, m]);
        expect(JSON.stringify(card)).toBe(JSON.stringify(JSON.parse(cardText)));
        expect(({} as Record<string, unknown>).polluted).toBeUndefined();
        expect(Object.prototype).not.toHaveProperty('skills');
        // the text path agrees with the value path
        expect(checkA2ACard({ text: cardText }, ctx).structure.a2a).toEqual(a.structure.a2a);
      }),
      { numRuns: RUNS },
    );
  });

  it('never throws on arbitrary text', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (text) => {
        sane([...Object.values(checkA2ACard({ text }, ctx)), checkServerJson({ text }, ctx)]);
      }),
      { numRuns: RUNS },
    );
  });

  it('never throws on arbitrary observations, including ill-typed fields', () => {
    const weird = fc.anything({ maxDepth: 2 });
    const exchange = fc.record({
      url: fc.oneof(fc.constant('https://mcp.acme.dev/mcp'), fc.webUrl(), weird),
      status: fc.oneof(
        fc.constantFrom(200, 204, 301, 400, 401, 402, 403, 404, 405, 429, 500, 503),
        fc.integer({ min: 0, max: 999 }),
        fc.constant(null),
        weird,
      ),
      headers: fc.oneof(
        fc.dictionary(
          fc.constantFrom('content-type', 'www-authenticate', '__proto__', 'constructor'),
          fc.oneof(fc.constantFrom('text/event-stream', 'text/html', 'application/json', 'Bearer'), fc.string()),
        ),
        weird,
      ),
      body: fc.oneof(
        fc.constantFrom('event: endpoint\ndata: /m\n\n', '{"jsonrpc":"2.0","error":{}}', '<html>', '{"resource":"x"}'),
        fc.string({ maxLength: 100 }),
        weird,
      ),
      bodyTruncated: fc.oneof(fc.boolean(), weird),
      errorClass: fc.oneof(
        fc.constantFrom(null, 'timeout', 'reset', 'refused', 'dns', 'blocked_address', 'constructor', '__proto__'),
        weird,
      ),
    });
    const robots = fc.oneof(fc.constantFrom('allowed', 'disallowed', 'unknown'), weird);
    const canary = fc.oneof(fc.constantFrom('ok', 'failed', 'unknown'), weird);
    fc.assert(
      fc.property(
        fc.array(exchange, { maxLength: 4 }),
        exchange,
        fc.option(exchange),
        robots,
        canary,
        fc.oneof(
          jsonish(MCP_KEYS).map((t) => JSON.parse(t) as unknown),
          fc.constant(null),
        ),
        fc.oneof(
          fc.record({ type: fc.oneof(fc.constantFrom('sse', 'streamable-http'), weird), url: fc.oneof(fc.webUrl(), weird) }),
          fc.constant(null),
        ),
        (exchanges, get, meta, r, c, serverJson, remote) => {
          const a2a = deepFreeze({ exchanges, robots: r, canary: c }) as unknown as A2AObservation;
          const mcp = deepFreeze({ remote, get, metadata: meta, robots: r, canary: c, serverJson }) as unknown as McpObservation;
          const ra = judgeA2AObservation(a2a, ctx);
          const rm = judgeMcpObservation(mcp, ctx);
          sane([ra.card, ra.structure, rm.verdict]);
          expect(['up', 'down', 'unknown', 'skipped']).toContain(ra.uptime.state);
          expect(['up', 'down', 'unknown', 'skipped']).toContain(rm.uptime.state);
        },
      ),
      {
        numRuns: RUNS,
        // Found by a run: a status that is an object without a usable toString once broke the card chain's reason.
        examples: [
          [
            [
              {
                url: 'http://a.aa',
                status: { toString: false },
                headers: false,
                body: 'event: endpoint\ndata: /m\n\n',
                bodyTruncated: false,
                errorClass: null,
              },
            ],
            { url: false, status: {}, headers: {}, body: '', bodyTruncated: false, errorClass: '' },
            null,
            'allowed',
            [],
            null,
            { type: 'sse', url: [] },
          ],
        ],
      },
    );
  });

  it('an internal error still signs the real inputs hash (computed before the guarded body), and its scope', () => {
    // A value that can be hashed (canonicalJson reads each member twice) but throws when the checker reads it: the body fails.
    const once = <T extends object>(plain: T, key: string): T => {
      let reads = 0;
      const o = { ...plain };
      const v = (plain as Record<string, unknown>)[key];
      Object.defineProperty(o, key, {
        enumerable: true,
        get: () => {
          if (++reads > 2) throw new TypeError('boom');
          return v;
        },
      });
      return o;
    };
    const server = weatherServerJson({ remotes: [] });
    const m = checkServerJson({ value: once(server, 'description') }, ctx);
    expect(m.reasons).toEqual(['unknown: internal error in the checker (TypeError); please report it']);
    expect(m.inputsHash).toBe(hashInputs({ kind: 'mcp-server-json-value', value: server }));
    const card = { name: 'n', skills: [] };
    const a = checkA2ACard({ value: once(card, 'name') }, ctx);
    for (const v of [a.card, a.structure]) {
      expect(v.result).toBe('unknown');
      expect(v.inputsHash).toBe(hashInputs({ kind: 'a2a-card-value', value: card }));
    }
    const obs = { remote: null, get: null, robots: 'allowed', canary: 'ok', serverJson: server } as const;
    const r = judgeMcpObservation(once(obs, 'serverJson') as unknown as McpObservation, ctx).verdict;
    expect(r.reasons[0]).toMatch(/internal error/);
    expect(r.inputsHash).toBe(hashInputs({ kind: 'mcp-observation', observation: obs }));
    expect(r.scope).toBe('observation');
    // only inputs that cannot be hashed at all are unavailable
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(checkServerJson({ value: cyclic }, ctx).inputsHash).toBe('sha256:unavailable');
  });

  it('answers deep nesting and huge arrays in bounded time', () => {
    const nested = (depth: number, open: string, close: string, inner = '0') => open.repeat(depth) + inner + close.repeat(depth);
    const texts = [
      nested(100_000, '[', ']'),
      nested(50_000, '{"skills":', '}'),
      `{"url":"https://a","skills":${nested(20_000, '[', ']')}}`,
      `{"name":"x","skills":[${Array.from({ length: 100_000 }, () => '{"tags":[1,"x",null]}').join(',')}]}`,
      `{"name":"n","description":"${'d'.repeat(1_000_000)}","remotes":[${Array.from({ length: 50_000 }, (_, i) => `{"type":"sse","url":"https://10.0.${i % 256}.1/{x}"}`).join(',')}]}`,
      `{"supportedInterfaces":[${Array.from({ length: 100_000 }, () => '7').join(',')}],"protocolVersion":"${'9'.repeat(100_000)}"}`,
      `{"defaultInputModes":[${Array.from({ length: 300_000 }, () => '1').join(',')}],"url":"x"}`,
    ];
    for (const text of texts) {
      const t0 = performance.now();
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        value = undefined; // V8 may refuse extreme nesting; the text path still has to answer
      }
      const a = checkA2ACard({ text }, ctx);
      const m = checkServerJson({ text }, ctx);
      sane([a.card, a.structure, m]);
      if (value !== undefined) sane([...Object.values(checkA2ACard({ value }, ctx)), checkServerJson({ value }, ctx)]);
      const ms = performance.now() - t0;
      expect(ms, `${text.slice(0, 40)}… took ${ms.toFixed(0)} ms`).toBeLessThan(5_000);
      for (const v of [a.card, a.structure, m]) expect(v.findings.length).toBeLessThanOrEqual(200);
    }
  });
});

/** Card-shaped documents biased toward complete 1.0 and 0.x shapes. */
const card10Fields = fc.record(
  {
    name: fc.constantFrom('A', '', 1),
    description: fc.constantFrom('d', null),
    version: fc.constantFrom('1', 2),
    capabilities: fc.constantFrom({}, [], null),
    defaultInputModes: fc.constantFrom(['text'], [], [1], 'text'),
    defaultOutputModes: fc.constantFrom(['text'], []),
    skills: fc.constantFrom(
      [{ id: 'i', name: 'n', description: 'd', tags: ['t'] }],
      [],
      [{ id: 'i' }],
      [{ id: 'i', name: 'n', description: 'd', tags: [1] }],
    ),
    supportedInterfaces: fc.constantFrom(
      [{ url: 'https://a', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
      [],
      [{ url: 'https://a' }],
      'x',
    ),
    protocolVersion: fc.constantFrom('0.3.0', '0.2.5', '1.0', 'latest', 42, null),
    url: fc.constantFrom('https://a', 7, null),
    provider: fc.constantFrom({ organization: 'o', url: 'https://o' }, { organization: 'o' }),
    additionalInterfaces: fc.constantFrom([{ url: 'https://a', transport: 'GRPC' }], [3]),
  },
  { requiredKeys: [] },
);

describe('seed 001 §4.2 as a property', () => {
  it('a document attributed 0.3 (or 0.2) by rules 2-4 never passes the 1.0 check', () => {
    fc.assert(
      fc.property(card10Fields, (doc) => {
        const a = attribute(doc);
        if (a.family !== '0.3' && a.family !== '0.2') return;
        expect(a.basis).not.toBe('json-ld-context');
        expect(checkStructure(doc, '1.0').valid).toBe(false);
        const ans = structuralAnswer(doc);
        if (ans.alternative) expect(ans.alternative.valid).toBe(false);
      }),
      { numRuns: 2000 },
    );
  });

  it('also over arbitrary card-shaped JSON with hostile keys', () => {
    fc.assert(
      fc.property(jsonish(CARD_KEYS), (text) => {
        const doc = JSON.parse(text) as unknown;
        const a = attribute(doc);
        if (
          (a.family === '0.3' || a.family === '0.2') &&
          a.basis !== 'json-ld-context' &&
          doc &&
          typeof doc === 'object' &&
          !Array.isArray(doc)
        ) {
          expect(checkStructure(doc as Record<string, unknown>, '1.0').valid).toBe(false);
        }
      }),
      { numRuns: 1000 },
    );
  });

  it('the one documented exception: a JSON-LD @context may declare 0.3 on a card with the full 1.0 shape', () => {
    const doc = recipeCard({
      '@context': 'https://a2a-protocol.org/v0.3/agent-card.jsonld',
      supportedInterfaces: [{ url: 'https://a', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
    });
    expect(attribute(doc)).toMatchObject({ route: 'declared', basis: 'json-ld-context', family: '0.3' });
    expect(checkStructure(doc, '1.0').valid).toBe(true);
  });
});
