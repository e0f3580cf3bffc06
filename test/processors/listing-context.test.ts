import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../../src/core/canonical-json.js';
import { contextAt, type HistoryRow } from '../../src/processors/verdicts/listing-context.js';
import { toDateTime64 } from '../../src/warehouse/time.js';

const A = 'https://a.acme-tools.dev/mcp';
const B = 'https://b.acme-tools.dev/mcp';
const row = (source: string, item: string, key: string, at: number, status = 'active', serverJson = ''): HistoryRow => ({
  agent_key: key,
  observed_at: toDateTime64(at),
  event_id: `${source}-${item}-${at}`,
  source,
  item_id: item,
  status,
  endpoint_transport: 'streamable-http',
  server_json: serverJson,
  server_json_sha256: serverJson === '' ? '' : sha256Hex(serverJson),
});

describe('the listing context of a probe, as of its time', () => {
  const history = new Map<string, HistoryRow[]>([
    [
      'mcp-registry\u0000r1',
      [
        row('mcp-registry', 'r1', A, 1000, 'active', '{"name":"io.github.a/r1"}'),
        row('mcp-registry', 'r1', B, 5000, 'active', '{"name":"io.github.a/r1"}'),
      ],
    ],
    ['smithery\u0000s1', [row('smithery', 's1', A, 2000), row('smithery', 's1', A, 8000, 'delisted')]],
  ]);

  it('uses the server.json the agent was listed with at the time', () => {
    expect(contextAt(history, A, 3000)).toEqual({
      serverJson: { name: 'io.github.a/r1' },
      transport: 'streamable-http',
      source: 'mcp-registry',
      serverJsonSha256: sha256Hex('{"name":"io.github.a/r1"}'),
    });
    expect(contextAt(history, A, 500)).toBeNull();
  });

  it('stops using an item once it moved to another agent, and a delisted item once it is delisted', () => {
    expect(contextAt(history, A, 6000)).toEqual({
      serverJson: null,
      transport: 'streamable-http',
      source: 'smithery',
      serverJsonSha256: '',
    });
    expect(contextAt(history, B, 6000)?.source).toBe('mcp-registry');
    expect(contextAt(history, A, 9000)).toBeNull();
  });
});
