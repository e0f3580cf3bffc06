/**
 * What a probe event keeps (seed 003 §7): a judged document only by its hash (the document goes
 * to the documents topic), the MCP answer's classification excerpt, the judged headers, and no
 * other body. Judging the kept event with its documents gives the verdicts judging the event
 * read whole gave (the old way: bodies inline), for any body.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { DocumentEvent, ProbeEvent, ProbeExchange } from '../../../src/events/types.js';
import { CURRENT_CHECKER } from '../../../src/processors/verdicts/checker.js';
import { judgeProbe, latestRow } from '../../../src/processors/verdicts/judge-probe.js';
import type { DocumentTexts, ListingContext } from '../../../src/processors/verdicts/observation.js';
import { JUDGED_HEADERS } from '../../../src/http/client.js';
import { keepProbe, MCP_EXCERPT_MAX_BYTES } from '../../../src/producers/probe/kept-bodies.js';
import { textOrNull } from '../../../src/util/text.js';
import { probeEvent, probeExchange, serverJsonFor } from '../../helpers/probe-events.js';

const T = Date.UTC(2026, 10, 29, 10);
const MCP_URL = 'https://mcp.example.dev/mcp';
const CARD_URL = 'https://agent.example.dev/.well-known/agent-card.json';

/** The rows a verdict processor writes, without the inputs hash (it names every header kept) and the signature fields. */
function rows(ev: ProbeEvent, listing: ListingContext | null, documents?: DocumentTexts) {
  const j = judgeProbe(ev, listing, CURRENT_CHECKER, documents);
  const { signature: _s, inputs_hash: _h, head_id: _i, leaf_index: _x, proof: _p, ...verdict } = j.verdict;
  const { signature: _l, ...latest } = latestRow(j);
  return { check: j.check, verdict, latest };
}

/** The documents as the documents table gives them to the verdict processor: text by hash. */
function texts(documents: readonly DocumentEvent[]): DocumentTexts {
  return new Map(
    documents.map((d) => {
      const { text, validUtf8 } = textOrNull(d.body);
      return [d.sha256, { text: text ?? '', validUtf8 }];
    }),
  );
}

function exchange(
  role: string,
  url: string,
  status: number | null,
  body: Buffer,
  headers: Record<string, string>,
  truncated = false,
): ProbeExchange {
  const e = probeExchange(role, url, status, '', headers, status === null ? 'refused' : null);
  return { ...e, body, bodyBytes: body.length, bodyTruncated: truncated, bodySha256: 'recorded-by-the-client' };
}

const listing = (transport: string | null): ListingContext => ({
  serverJson: JSON.parse(serverJsonFor('io.github.acme/weather', 'Forecasts and alerts for any city in the world.', MCP_URL)),
  transport,
  source: 'mcp-registry',
});

// Bodies an MCP GET answers with: SSE streams, HTML pages, JSON-RPC errors, and anything else.
const sseBody = fc
  .tuple(
    fc.constantFrom('endpoint', 'message', 'ping'),
    fc.string({ maxLength: 300, size: 'max' }),
    fc.string({ maxLength: 1500, size: 'max' }),
  )
  .map(([name, data, rest]) => `: comment\nevent: ${name}\ndata: ${data.replace(/\n/g, ' ')}\n\n${rest}`);
const htmlBody = fc
  .tuple(fc.string({ maxLength: 600, size: 'max' }), fc.string({ maxLength: 1500, size: 'max' }))
  .map(([comment, rest]) => `  <!-- ${comment.replace(/-->/g, '')} -->\n<!DOCTYPE html><html>${rest}`);
const rpcBody = fc
  .tuple(fc.string({ maxLength: 1800, size: 'max' }), fc.boolean())
  .map(([msg, idFirst]) =>
    idFirst
      ? JSON.stringify({ id: msg, jsonrpc: '2.0', error: { code: -32000, message: 'x' } })
      : JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: msg }, id: null }),
  );
const mcpBody = fc
  .oneof(sseBody, htmlBody, rpcBody, fc.string({ maxLength: 2100, size: 'max' }), fc.constant(''))
  .map((s) => Buffer.from(s));
const mcpBytes = fc.oneof(
  mcpBody,
  fc.uint8Array({ maxLength: 2100, size: 'max' }).map((b) => Buffer.from(b)),
);

describe('what a probe event keeps', () => {
  it('MCP: for any answer, the excerpt judges as the whole answer did, and is at most MCP_EXCERPT_MAX_BYTES', () => {
    fc.assert(
      fc.property(
        mcpBytes,
        fc.constantFrom(200, 400, 401, 403, 405, 406, 404, 500, 429),
        fc.constantFrom('text/event-stream', 'text/html; charset=utf-8', 'application/json', '', 'text/plain'),
        fc.constantFrom<string | null>(null, 'sse', 'streamable-http'),
        fc.boolean(),
        (bytes, status, ct, transport, truncated) => {
          const body = bytes.subarray(0, 2048);
          const headers: Record<string, string> = ct ? { 'content-type': ct, server: 'nginx', 'x-request-id': 'abc' } : { server: 'nginx' };
          if (status === 401) headers['www-authenticate'] = 'Bearer realm="x"';
          const whole = probeEvent(
            T,
            'p',
            MCP_URL,
            'mcp',
            [exchange('mcp-get', MCP_URL, status, body, headers, truncated || bytes.length > 2048)],
            { transport },
          );
          const kept = keepProbe(whole);
          const x = kept.probe.exchanges[0]!;
          expect(x.bodyKept).toBe('excerpt');
          expect(x.body.length).toBeLessThanOrEqual(MCP_EXCERPT_MAX_BYTES);
          expect(body.subarray(0, x.body.length).equals(x.body)).toBe(true);
          expect(Object.keys(x.headers).every((h) => JUDGED_HEADERS.includes(h))).toBe(true);
          expect(kept.documents).toEqual([]);
          for (const ctx of [listing(transport), null]) expect(rows(kept.probe, ctx, texts(kept.documents))).toEqual(rows(whole, ctx));
        },
      ),
      { numRuns: 600 },
    );
  });

  it('MCP: the usual answers keep nothing or a few bytes; no HTML page or stream is kept', () => {
    const keep = (status: number, body: string, headers: Record<string, string>, transport: string | null = null) =>
      keepProbe(probeEvent(T, 'p', MCP_URL, 'mcp', [exchange('mcp-get', MCP_URL, status, Buffer.from(body), headers)], { transport })).probe
        .exchanges[0]!;
    expect(keep(405, '', { allow: 'POST' }).body.length).toBe(0);
    const page = '<!doctype html><html><body>' + 'Login to continue. '.repeat(100) + '</body></html>';
    expect(keep(401, page, { 'content-type': 'text/html' }).body.length).toBe(0);
    expect(keep(200, page, {}).body.length).toBeLessThanOrEqual(64);
    const stream = 'event: message\ndata: {"jsonrpc":"2.0","method":"notifications/message","params":{"secret":"s"}}\n\n';
    expect(keep(200, stream, { 'content-type': 'text/event-stream' }, 'streamable-http').body.length).toBe(0);
    // A legacy SSE remote is judged on its first event's name: the excerpt reaches just past it.
    const legacy = keep(
      200,
      'event: endpoint\ndata: /messages?session_id=0123456789abcdef\n\n' + 'x'.repeat(1500),
      { 'content-type': 'text/event-stream' },
      'sse',
    );
    expect(legacy.body.toString()).toMatch(/^event: endpoint\ndata: \/messages\?session_id=0123456789abcdef\n\n/);
    expect(legacy.body.length).toBeLessThanOrEqual(128);
  });

  it('A2A: a card is a document named by hash; error pages and HTML keep nothing; the verdicts are those of the whole chain', () => {
    const card = Buffer.from(
      JSON.stringify({
        name: 'Recipes',
        description: 'Finds recipes',
        url: 'https://agent.example.dev/a2a',
        version: '1.0.0',
        capabilities: {},
        skills: [],
        defaultInputModes: ['text'],
        defaultOutputModes: ['text'],
        protocolVersion: '0.3.0',
      }),
    );
    const page = Buffer.from('<html><body>Not Found</body></html>');
    const chains: ProbeExchange[][] = [
      [
        exchange('card', CARD_URL, 404, page, { 'content-type': 'text/html' }),
        exchange('well-known', CARD_URL, 200, card, { 'content-type': 'application/json', 'set-cookie': 'a=b' }),
      ],
      [
        exchange('card', CARD_URL, 200, page, { 'content-type': 'text/html' }),
        exchange('well-known', CARD_URL, 404, page, {}),
        exchange('legacy', CARD_URL, 404, page, {}),
      ],
      [exchange('card', CARD_URL, 200, Buffer.from('[1,2]'), {}), exchange('well-known', CARD_URL, 200, card, {})],
      [exchange('card', CARD_URL, 200, card.subarray(0, 40), {}, true)],
      [
        exchange('redirect', CARD_URL, 302, page, { location: '/x', server: 'nginx' }),
        exchange('card', CARD_URL, 200, Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), card]), {}),
      ],
      [exchange('card', CARD_URL, 401, Buffer.from('{"error":"unauthorized"}'), { 'www-authenticate': 'Bearer' })],
      [exchange('card', CARD_URL, null, Buffer.alloc(0), {})],
    ];
    for (const chain of chains) {
      const whole = probeEvent(T, 'p', CARD_URL, 'a2a', chain);
      const kept = keepProbe(whole);
      for (const [i, x] of kept.probe.exchanges.entries()) {
        expect(Object.keys(x.headers).every((h) => JUDGED_HEADERS.includes(h))).toBe(true);
        expect(x.body.length).toBe(0);
        if (x.bodyKept === 'document') {
          const doc = kept.documents.find((d) => d.sha256 === x.bodySha256)!;
          expect(doc.body.equals(chain[i]!.body)).toBe(true);
          expect(chain[i]!.status).toBe(200);
        } else expect(x.bodyKept).toBe('none');
      }
      // Only 200s whose whole body is JSON are documents: no page, no truncated card.
      expect(kept.documents.every((d) => d.body.toString().trim().startsWith('{') || d.body.toString().startsWith('['))).toBe(true);
      expect(rows(kept.probe, null, texts(kept.documents))).toEqual(rows(whole, null));
    }
  });

  it('A2A: for any card-URL body, the kept chain judges as the whole chain did', () => {
    const bodies = fc.oneof(
      fc.json().map((j) => Buffer.from(j)),
      fc.object().map((o) => Buffer.from(JSON.stringify(o))),
      fc.string().map((s) => Buffer.from(s)),
      fc.uint8Array({ maxLength: 300 }).map((b) => Buffer.from(b)),
    );
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom(200, 404, 401, 500), bodies, fc.boolean()), { minLength: 1, maxLength: 3 }),
        (steps) => {
          const roles = ['card', 'well-known', 'legacy'];
          const whole = probeEvent(
            T,
            'p',
            CARD_URL,
            'a2a',
            steps.map(([status, body, truncated], i) =>
              exchange(roles[i]!, CARD_URL, status, body, { 'content-type': 'application/json' }, truncated),
            ),
          );
          const kept = keepProbe(whole);
          expect(kept.probe.exchanges.every((x) => x.body.length === 0)).toBe(true);
          expect(rows(kept.probe, null, texts(kept.documents))).toEqual(rows(whole, null));
        },
      ),
      { numRuns: 400 },
    );
  });
});
