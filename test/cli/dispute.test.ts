import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { withWarehouse, type TestWarehouse } from '../helpers/warehouse.js';
import { agentRow } from '../helpers/warehouse-rows.js';

// `veronikai dispute` run as the operator runs it. Every case here fails before Kafka is opened
// (the broker given is a closed port), so nothing reaches the test broker's unprefixed topics;
// the recorded path and its human output are tested in test/usecases/dispute.test.ts.

const MCP = 'https://mcp.weather-owner.dev/mcp';

describe('veronikai dispute', () => {
  let t: TestWarehouse;
  const dispute = (...args: string[]) => runCli(['dispute', ...args, '--data-dir', t.dir, '--brokers', '127.0.0.1:9']);

  beforeAll(async () => {
    t = await withWarehouse('cli-dispute');
    await t.wh.insert('agents', [agentRow({ agent_key: MCP, name: 'Weather MCP', version: Date.now() })]);
    // The command runs in a child process on this data directory: free it for it.
    await t.wh.close();
  }, 60_000);
  afterAll(() => t?.close());

  it('says what it does in --help', async () => {
    const r = await runCli(['dispute', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout.replace(/\s+/g, ' ')).toMatch(/re-probe the agent at once, outside the daily budget/);
    expect(r.stdout).toContain('--reason <text>');
    expect(r.stdout).toContain('--json');
  });

  it('exits 2 on usage errors, before opening anything', async () => {
    const missing = await dispute(MCP);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/required option '--reason <text>' not specified/);
    const empty = await dispute(MCP, '--reason', '   ');
    expect(empty).toMatchObject({ code: 2, stdout: '' });
    expect(empty.stderr).toMatch(/--reason must say what the owner believes is wrong/);
    const long = await dispute(MCP, '--reason', 'x'.repeat(2001));
    expect(long.code).toBe(2);
    expect(long.stderr).toMatch(/--reason is 2001 characters; at most 2000/);
    const notUrl = await dispute('mcp.weather-owner.dev', '--reason', 'down is wrong');
    expect(notUrl.code).toBe(2);
    expect(notUrl.stderr).toMatch(/needs the agent's URL/);
    const protocol = await dispute(MCP, '--reason', 'x', '--protocol', 'grpc');
    expect(protocol.code).toBe(2);
    expect(protocol.stderr).toMatch(/--protocol.*invalid/i);
  }, 120_000);

  it('exits 2 with a clear message for an agent the index does not have', async () => {
    const r = await dispute('https://nobody.example/mcp', '--reason', 'we are up');
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      'veronikai: no agent in the index has the key https://nobody.example/mcp: check the URL (the card URL for an A2A agent, the endpoint URL for an MCP server)\n',
    );
  }, 60_000);
});
