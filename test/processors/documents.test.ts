import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { generateSigningKeyPair } from '../../src/conformance/index.js';
import type { ProbeEvent } from '../../src/events/types.js';
import { documentRow, DocumentReader, MissingDocumentsError } from '../../src/processors/documents.js';
import { CURRENT_CHECKER } from '../../src/processors/verdicts/checker.js';
import { VerdictWriter } from '../../src/processors/verdicts/processor.js';
import { keepProbe } from '../../src/producers/probe/kept-bodies.js';
import { probeEvent, probeExchange, serverJsonFor } from '../helpers/probe-events.js';
import { withWarehouse, type TestWarehouse } from '../helpers/warehouse.js';

/**
 * The verdict processor reads the documents probe events name by hash from the `documents`
 * table (written by the document store): the same probes judged the old way (bodies inline)
 * and the new way (documents by hash) give the same rows.
 */

const T = Date.UTC(2026, 10, 29, 10);
const keys = generateSigningKeyPair();
const sign = keys.privateKeyPem;
const card = readFileSync('test/fixtures/conformance/a2a/good-0.3.json', 'utf8');
const MCP = 'https://mcp.bearer-agent.dev/mcp';
const A2A = 'https://agent.recipes-agent.dev/.well-known/agent-card.json';
const metadata = JSON.stringify({ resource: MCP, authorization_servers: ['https://auth.bearer-agent.dev'] });

/** Probe events as they were written before documents were kept apart: bodies inline. */
const whole = (prefix: string): ProbeEvent[] => [
  probeEvent(T, `${prefix}-a2a`, A2A, 'a2a', [
    probeExchange('card', A2A, 200, card, { 'content-type': 'application/json', server: 'nginx', 'set-cookie': 'x=y' }),
  ]),
  probeEvent(T + 1, `${prefix}-a2a-html`, 'https://html.recipes-agent.dev/card.json', 'a2a', [
    probeExchange('card', 'https://html.recipes-agent.dev/card.json', 200, '<html><body>Welcome</body></html>', {
      'content-type': 'text/html',
    }),
  ]),
  probeEvent(T + 2, `${prefix}-mcp`, MCP, 'mcp', [
    probeExchange('mcp-get', MCP, 401, '{"jsonrpc":"2.0","error":{"code":-32001,"message":"Unauthorized"},"id":null}', {
      'www-authenticate': 'Bearer',
      'content-type': 'application/json',
    }),
    probeExchange('resource-metadata', 'https://mcp.bearer-agent.dev/.well-known/oauth-protected-resource/mcp', 200, metadata, {
      'content-type': 'application/json',
    }),
  ]),
];

const comparable = (rows: Array<Record<string, unknown>>) =>
  rows.map(({ event_id, signature: _s, judged_at: _j, inputs_hash: _h, head_id: _i, leaf_index: _x, proof: _p, ...r }) => ({
    ...r,
    event: String(event_id).replace(/^(old|new)-/, ''),
  }));

describe('documents by hash', () => {
  let t: TestWarehouse;
  beforeEach(async () => {
    t = await withWarehouse('documents');
    await t.wh.insert('listing_history', [
      {
        agent_key: MCP,
        observed_at: new Date(T - 3600_000),
        event_id: 'l1',
        source: 'mcp-registry',
        item_id: 'io.github.bearer/b',
        status: 'active',
        endpoint_transport: 'streamable-http',
        server_json: serverJsonFor('io.github.bearer/b', 'Bearer protected weather forecasts.', MCP),
      },
    ]);
  });
  afterEach(async () => {
    await t?.close();
  });

  it('judges kept events with their documents exactly as the same events with bodies inline', async () => {
    const writer = new VerdictWriter(t.wh, CURRENT_CHECKER, sign);
    const old = whole('old');
    await writer.write(old);
    const kept = whole('new').map(keepProbe);
    // Nothing but the excerpt stays on the events; the card and the metadata are documents.
    expect(kept.flatMap((k) => k.probe.exchanges.map((x) => [x.role, x.bodyKept, x.body.length > 0]))).toEqual([
      ['card', 'document', false],
      ['card', 'none', false],
      ['mcp-get', 'excerpt', true],
      ['resource-metadata', 'document', false],
    ]);
    await t.wh.insert('documents', kept.flatMap((k) => k.documents).map(documentRow));
    await writer.write(kept.map((k) => k.probe));

    for (const table of ['checks', 'verdicts']) {
      const read = (p: string) =>
        t.wh.query<Record<string, unknown>>(`SELECT * FROM ${table} FINAL WHERE startsWith(event_id, {p:String}) ORDER BY observed_at`, {
          p,
        });
      const [a, b] = [await read('old-'), await read('new-')];
      expect(a).toHaveLength(3);
      expect(comparable(b)).toEqual(comparable(a));
    }
    const results = await t.wh.query<{ result: string }>(
      "SELECT result FROM verdicts FINAL WHERE startsWith(event_id, 'new-') ORDER BY observed_at",
    );
    expect(results.map((r) => r.result)).toEqual(['pass', 'fail', 'pass']);
  });

  it('a document not (yet) in the table: the writer waits, then fails the batch rather than judge without it', async () => {
    const kept = keepProbe(whole('new')[0]!);
    const writer = new VerdictWriter(t.wh, CURRENT_CHECKER, sign, new DocumentReader(t.wh, 300));
    await expect(writer.write([kept.probe])).rejects.toThrow(MissingDocumentsError);
    expect(await t.wh.query('SELECT * FROM verdicts')).toEqual([]);
    // The document store catches up: the retried batch is judged.
    setTimeout(() => void t.wh.insert('documents', kept.documents.map(documentRow)), 100);
    await new VerdictWriter(t.wh, CURRENT_CHECKER, sign, new DocumentReader(t.wh, 5000)).write([kept.probe]);
    expect(await t.wh.query<{ result: string }>('SELECT result FROM verdicts FINAL')).toEqual([{ result: 'pass' }]);
  });

  it('keeps the documents it has read, by hash, within its bound in bytes', async () => {
    const kept = keepProbe(whole('new')[0]!);
    await t.wh.insert('documents', kept.documents.map(documentRow));
    const hashes = kept.documents.map((d) => d.sha256);
    const reader = new DocumentReader(t.wh, 300);
    const tiny = new DocumentReader(t.wh, 300, 16);
    const first = await reader.texts(hashes);
    await tiny.texts(hashes);
    await t.wh.exec('TRUNCATE TABLE documents');
    // Gone from the table: the reader still has it (a hash never goes stale); one kept within 16 bytes does not.
    expect(await reader.texts(hashes)).toEqual(first);
    await expect(tiny.texts(hashes)).rejects.toThrow(MissingDocumentsError);
  });
});
