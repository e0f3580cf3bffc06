import { describe, expect, it } from 'vitest';
import { OptOutList } from '../../src/identity/opt-out.js';
import { mergeAgent, type ListingRow } from '../../src/processors/listings-to-agents.js';

describe('agents from tombstoned listings', () => {
  const row = (source: string, version: number, status: string, extra: Partial<ListingRow> = {}): ListingRow => ({
    source,
    item_id: `${source}-item`,
    agent_key: 'https://mcp.acme.dev/mcp',
    protocol: 'mcp',
    name: `from ${source}`,
    description: 'd',
    version_label: '1',
    endpoint_url: 'https://mcp.acme.dev/mcp',
    endpoint_transport: 'streamable-http',
    card_url: '',
    server_json: '',
    status,
    raw: '{}',
    raw_truncated: 0,
    tombstoned: status === 'deleted' || status === 'delisted' ? 1 : 0,
    content_hash: 'h',
    changed_at: '2026-01-01 00:00:00.000',
    first_seen: '2026-01-01 00:00:00.000',
    last_seen: '2026-01-02 00:00:00.000',
    last_event_id: 'e',
    version,
    ...extra,
  });

  it('drops a delisted source from the agent, and marks it inactive when no listing is live', () => {
    const a = mergeAgent('https://mcp.acme.dev/mcp', [row('mcp-registry', 10, 'active'), row('smithery', 20, 'delisted')]);
    expect(a).toMatchObject({ active: 1, sources: ['mcp-registry'], inactive_since: null, opt_out: '', name: 'from mcp-registry' });
    const gone = mergeAgent('https://mcp.acme.dev/mcp', [row('mcp-registry', 30, 'deleted'), row('smithery', 20, 'delisted')]);
    expect(gone).toMatchObject({ active: 0, sources: [], inactive_since: '1970-01-01 00:00:00.030' });
    const opted = mergeAgent(
      'https://mcp.acme.dev/mcp',
      [row('mcp-registry', 10, 'active')],
      new OptOutList([{ match: 'host:mcp.acme.dev', mode: 'hidden', reason: 'asked' }]),
    );
    expect(opted).toMatchObject({ opt_out: 'hidden', opt_out_reason: 'asked', active: 1 });
  });
});
