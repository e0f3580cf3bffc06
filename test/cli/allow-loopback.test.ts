/**
 * `run --allow-loopback`: the real command, one daily run (`--once`), over a fixture MCP
 * Registry on loopback that lists a real MCP peer (the official SDK's Streamable HTTP server)
 * on loopback too. With the flag the peer is probed and reads as up, and the command says at
 * start that the flag is for testing only; without it the probe is refused by the address
 * guard and the peer is never contacted. The listing itself is read either way: a configured
 * source may be on loopback (--source-url), a listed agent may not.
 *
 * Each run starts its own local broker in its data directory (no --brokers): the command has
 * no topic prefix, and on the shared test broker its consumer groups would share partitions
 * with any other test that runs a command at the same time.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, type CliResult } from '../helpers/cli.js';
import { entry, startFixtureRegistry, type FixtureRegistry } from '../helpers/fixture-mcp-registry.js';
import { startMcpStreamableStateless, type Peer } from '../helpers/peers.js';

const WARNING = /^veronikai: warning: --allow-loopback is for testing only/m;

/** One loopback MCP peer and a registry listing it, for each run (the runs go side by side). */
const fixtures: Array<{ peer: Peer; registry: FixtureRegistry }> = [];
const dirs: string[] = [];

async function listedPeer(): Promise<{ peer: Peer; registry: FixtureRegistry }> {
  const peer = await startMcpStreamableStateless();
  const registry = await startFixtureRegistry([entry('io.github.loopback/peer', { remoteUrl: peer.url })]);
  fixtures.push({ peer, registry });
  return { peer, registry };
}

afterAll(async () => {
  for (const f of fixtures) {
    await f.registry.close();
    await f.peer.close();
  }
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

async function runOnce(registry: FixtureRegistry, extra: string[]): Promise<CliResult & { dataDir: string }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'veronikai-allow-loopback-'));
  dirs.push(dataDir);
  const r = await runCli(
    [
      'run',
      '--once',
      '--port',
      '0',
      '--data-dir',
      dataDir,
      '--source',
      'mcp-registry',
      '--source-url',
      `mcp-registry=${registry.url}`,
      ...extra,
    ],
    {},
    120_000,
  );
  return { ...r, dataDir };
}

/** The uptime and reason of every check the run's warehouse holds (the `sql` command on its data directory). */
async function checks(dataDir: string): Promise<Array<{ uptime: string; reason: string }>> {
  const r = await runCli(['sql', '--data-dir', dataDir, 'SELECT uptime, reason FROM checks FINAL']);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Array<{ uptime: string; reason: string }>;
}

/** The census line of a daily report: `up U, down D, unknown N, skipped S`. */
function census(stdout: string): { up: number; down: number; unknown: number; skipped: number } {
  const m = /census of latest states .*?: 1 active agent\(s\), 0 inactive; up (\d+), down (\d+), unknown (\d+), skipped (\d+);/.exec(
    stdout,
  );
  expect(m, stdout).not.toBeNull();
  return { up: Number(m![1]), down: Number(m![2]), unknown: Number(m![3]), skipped: Number(m![4]) };
}

// The two runs are independent (own data directory and broker each): run them side by side.
describe.concurrent('run --allow-loopback', () => {
  it('with the flag: warns at start, and the loopback MCP peer is probed and up', async () => {
    const { peer, registry } = await listedPeer();
    const r = await runOnce(registry, ['--allow-loopback']);
    expect(r.code, `stdout: ${r.stdout}\nstderr: ${r.stderr}`).toBe(0);
    expect(r.stderr).toMatch(WARNING);
    expect(r.stdout).toMatch(/^mcp-registry \(full\): 1 page\(s\), 1 item\(s\): 1 new, .*complete/m);
    expect(r.stdout).toMatch(/: 1 probe\(s\) planned/);
    expect(census(r.stdout)).toEqual({ up: 1, down: 0, unknown: 0, skipped: 0 });
    expect(peer.paths).toContain('/mcp');
  }, 150_000);

  it('without it: no warning, the probe is refused and the peer never contacted', async () => {
    const { peer, registry } = await listedPeer();
    const r = await runOnce(registry, []);
    expect(r.code, `stdout: ${r.stdout}\nstderr: ${r.stderr}`).toBe(0);
    expect(r.stderr).not.toMatch(WARNING);
    expect(r.stdout).toMatch(/^mcp-registry \(full\): 1 page\(s\), 1 item\(s\): 1 new, .*complete/m);
    expect(r.stdout).toMatch(/: 1 probe\(s\) planned/);
    // Refused by our own guard: unknown (not down: the agent was never asked), and never contacted.
    expect(census(r.stdout)).toEqual({ up: 0, down: 0, unknown: 1, skipped: 0 });
    expect(peer.paths).toEqual([]);
    expect(await checks(r.dataDir)).toEqual([{ uptime: 'unknown', reason: 'no answer: address refused by the SSRF guard' }]);
  }, 150_000);
});

// One declaration (SETTINGS.allowLoopback): every command that reaches agents offers it with the same words, and no variable.
describe('--allow-loopback is offered, alike, by every command that reaches agents', () => {
  it.each(['run', 'probe-worker', 'probe', 'check', 'inspect', 'census'])('%s --help', async (command) => {
    const r = await runCli([command, '--help']);
    expect(r.code, r.stderr).toBe(0);
    const help = r.stdout.replace(/\s+/g, ' ');
    expect(help).toContain(
      '--allow-loopback testing only: let probes reach 127.0.0.0/8 and ::1 (every request this command makes to an agent); no other address the SSRF guard refuses is ever reached (command line only)',
    );
  });
});
