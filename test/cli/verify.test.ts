import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CURRENT_CHECKER } from '../../src/processors/verdicts/checker.js';
import { VerdictWriter } from '../../src/processors/verdicts/processor.js';
import { loadSigningKey } from '../../src/signing/keys.js';
import { runCli } from '../helpers/cli.js';
import { probeEvent, probeExchange, serverJsonFor } from '../helpers/probe-events.js';
import { withWarehouse, type TestWarehouse } from '../helpers/warehouse.js';

/**
 * `veronikai verify` as a user runs it on a data directory whose verdicts the verdict writer wrote
 * and signed with the data directory's key: every row verifies; after `sql --write` changes one
 * row's result and another's reasons, it exits 1 and names exactly those two.
 */

const T = Date.now() - 3_600_000;
const MCP = 'https://mcp.short-agent.dev/mcp';
const MCP2 = 'https://mcp.long-agent.dev/mcp';
const A2A = 'https://agent.recipes-agent.dev';
const card = readFileSync('test/fixtures/conformance/a2a/good-0.3.json', 'utf8');
const events = [
  probeEvent(T, 'v1', MCP, 'mcp', [probeExchange('mcp-get', MCP, 405, '', { allow: 'POST' })]),
  probeEvent(T + 1, 'v2', MCP2, 'mcp', [
    probeExchange('mcp-get', MCP2, 200, 'event: endpoint\ndata: /x\n\n', { 'content-type': 'text/event-stream' }),
  ]),
  probeEvent(T + 2, 'v3', A2A, 'a2a', [
    probeExchange('card', `${A2A}/.well-known/agent-card.json`, 200, card, { 'content-type': 'application/json' }),
  ]),
  probeEvent(T + 3, 'v4', `${A2A}/down`, 'a2a', [
    probeExchange('card', `${A2A}/down/.well-known/agent-card.json`, null, '', {}, 'refused'),
  ]),
  // The next day's probe of an unchanged agent: judged from the memo, signed in the same batch.
  probeEvent(T + 4, 'v5', MCP, 'mcp', [probeExchange('mcp-get', MCP, 405, '', { allow: 'POST' })]),
];

describe('veronikai verify', () => {
  let t: TestWarehouse;
  const cli = (...args: string[]) => runCli([...args, '--data-dir', t.dir]);

  beforeAll(async () => {
    t = await withWarehouse('cli-verify');
    const listed = (key: string, description: string) => ({
      agent_key: key,
      observed_at: new Date(T - 3_600_000),
      event_id: `l-${key}`,
      source: 'mcp-registry',
      item_id: key,
      status: 'active',
      endpoint_transport: 'streamable-http',
      server_json: serverJsonFor(`io.github.x/${key.length}`, description, key),
    });
    await t.wh.insert('listing_history', [
      listed(MCP, 'Short but honest thirty chars.'),
      listed(MCP2, 'A long and descriptive explanation of what this server offers.'),
    ]);
    // The data directory's own key, as `run` would generate it.
    const key = loadSigningKey({ dataDir: t.dir });
    await new VerdictWriter(t.wh, CURRENT_CHECKER, key.privateKey).write(events);
    // The commands run in child processes on this data directory: free it for them.
    await t.wh.close();
  });
  afterAll(() => t?.close());

  it('verifies every verdict of a real index, then names the rows sql --write altered', async () => {
    const ok = await cli('verify');
    expect(ok).toMatchObject({ code: 0, stderr: '' });
    expect(ok.stdout).toBe('verified 5 of 5\n');

    const alter = async (statement: string) => expect(await cli('sql', '--write', statement)).toMatchObject({ code: 0, stderr: '' });
    await alter("ALTER TABLE verdicts UPDATE result = 'pass' WHERE event_id = 'v4' SETTINGS mutations_sync = 2");
    await alter("ALTER TABLE verdicts UPDATE reasons = ['forged'] WHERE event_id = 'v2' SETTINGS mutations_sync = 2");
    const seen = await cli('sql', "SELECT event_id, result, reasons FROM verdicts WHERE event_id IN ('v2', 'v4') ORDER BY event_id");
    // The rows say what they were changed to (v4 was unknown: its host refused).
    expect(JSON.parse(seen.stdout)).toMatchObject([
      { event_id: 'v2', result: 'pass', reasons: ['forged'] },
      { event_id: 'v4', result: 'pass' },
    ]);

    const bad = await cli('verify');
    expect(bad.code).toBe(1);
    const named = bad.stdout.split('\n').filter((l) => l.startsWith('NOT VERIFIED'));
    expect(named.map((l) => l.split(' ')[2]).sort()).toEqual(['v2', 'v4']);
    expect(named.find((l) => l.includes(' v2 '))).toContain(`agent ${MCP2}`);
    expect(bad.stdout).toMatch(/^verified 3 of 5$/m);
  });

  it('refuses with a usage error when there is no key to check against', async () => {
    const r = await runCli(['verify', '--data-dir', t.dir, '--public-key', `${t.dir}/missing.pem`]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--public-key: cannot read/);
  });
});
