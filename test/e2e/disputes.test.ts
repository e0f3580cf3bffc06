/**
 * Issue 14 item 8, Methods §9 ("Dispute a result … We re-probe and log corrections"), end to end.
 *
 * As `run` composes it, with nothing configured for Kafka: startPlatform starts the local broker in
 * its data directory (broker.json) and serves the embedded warehouse to other processes
 * (instance.json), with every processor, the probe worker and the API on an ephemeral port. So the
 * operator's `veronikai dispute … --data-dir <dir>` finds both exactly as on a real deployment,
 * and no topic prefix is needed (the CLI has none): this file's broker is its own.
 *
 *   cycle 1    the agent (a real MCP server from the SDK on loopback) is stopped → listed, judged down
 *              the server listens again on the same port; no daily cycle from here on
 *   dispute 1  dispute() of src/runtime/usecases/dispute.ts, as the CLI calls it, for the running instance
 *              → the probe worker re-probes it (up), the corrections processor logs down → up
 *   dispute 2  the real CLI, `node bin/veronikai.js dispute <url> --reason … --data-dir <dir> --json`
 *              → re-probed again (up), logged as unchanged
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, type Config } from '../../src/config.js';
import { agentId, agentKey } from '../../src/identity/agent-key.js';
import { dispute, type DisputeOutcome } from '../../src/runtime/usecases/dispute.js';
import { readInstanceFile } from '../../src/runtime/instance.js';
import { startPlatform, type Platform } from '../../src/runtime/platform.js';
import { brokerStatus } from '../../src/stack/kafka/index.js';
import { pollUntil } from '../../src/util/poll.js';
import { runCli } from '../helpers/cli.js';
import { entry, startFixtureRegistry, type FixtureRegistry } from '../helpers/fixture-mcp-registry.js';
import { testLogger } from '../helpers/kafka.js';
import { atomEntries, changeEntryId, dailyCycle, startMcpServerOn, type WatchedMcpServer } from '../helpers/watched-agent.js';

const WAIT = { timeoutMs: 45_000, intervalMs: 250 };
// Markup and an ampersand: the page and the feed must show them as text.
const REASON_1 = 'Our server was only <b>restarting</b> & is up again: please check it once more.';
const REASON_2 = 'Still up & fine; "unknown" <i>never</i> applied.';

interface CheckRow {
  event_id: string;
  uptime: string;
  reason: string;
  run_id: string;
  in_sample: number;
}
interface CorrectionRow {
  dispute_id: string;
  reason: string;
  outcome: string;
  note: string;
  checker_version: string;
  disputed_checker_version: string;
  disputed_event_id: string;
  disputed_uptime: string;
  disputed_result: string;
  request_id: string;
  reprobe_event_id: string;
  reprobe_uptime: string;
  reprobe_result: string;
  verdict_changed: number;
  uptime_changed: number;
  change_id: string;
}
interface ChangeRow {
  change_id: string;
  kind: string;
  cause_event_id: string;
  checker_version: string;
  from_state: string | null;
  to_state: string | null;
  summary: string;
  reasons: string[];
}

describe('disputes end to end: an owner disputes a down result, the platform re-probes and logs the correction', () => {
  const log = testLogger('disputes');
  let dir: string;
  let registry: FixtureRegistry;
  let peer: WatchedMcpServer | null = null;
  let peerUrl: string;
  let peerPort: number;
  let config: Config;
  let platform: Platform | null = null;
  let key: string;
  let id: string;
  /** The `runs` table before the first dispute: no dispute may add or change a run. */
  let runsBefore: unknown[];
  let downCheck: CheckRow;
  let first: DisputeOutcome;
  let firstCorrection: CorrectionRow;
  let secondCorrection: CorrectionRow;

  const p = () => platform!;
  const q = <T>(sql: string) => p().warehouse.query<T>(sql, { k: key });
  const checks = () =>
    q<CheckRow>(
      'SELECT event_id, uptime, reason, run_id, toUInt8(in_sample) AS in_sample FROM checks FINAL WHERE agent_key = {k:String} ORDER BY observed_at',
    );
  const verdictOf = async (eventId: string) =>
    (await p().warehouse.query<{ result: string }>('SELECT result FROM verdicts FINAL WHERE event_id = {e:String}', { e: eventId })).map(
      (r) => r.result,
    );
  const corrections = () =>
    q<CorrectionRow>(
      `SELECT dispute_id, reason, outcome, note, checker_version, disputed_checker_version, disputed_event_id, disputed_uptime, disputed_result,
              request_id, reprobe_event_id, reprobe_uptime, reprobe_result, toUInt8(verdict_changed) AS verdict_changed,
              toUInt8(uptime_changed) AS uptime_changed, change_id
       FROM corrections FINAL WHERE agent_key = {k:String} ORDER BY requested_at`,
    );
  const corrected = () =>
    q<ChangeRow>(
      `SELECT change_id, kind, cause_event_id, checker_version, from_state, to_state, summary, reasons FROM agent_changes FINAL
       WHERE agent_key = {k:String} AND kind = 'corrected' ORDER BY observed_at`,
    );
  const runs = () =>
    p().warehouse.query('SELECT run_id, phase, kind, budget, sample_size, seed, counts, complete FROM runs FINAL ORDER BY run_id, phase');
  /** The dispute's correction, once the corrections processor wrote it and its change is in agent_changes. */
  const settledCorrection = (disputeId: string) =>
    pollUntil(
      `the correction of dispute ${disputeId}`,
      async () => {
        const row = (await corrections()).find((r) => r.dispute_id === disputeId);
        if (!row) return { done: false, why: `no corrections row (checks: ${JSON.stringify(await checks())})` };
        if (!(await corrected()).some((c) => c.change_id === row.change_id))
          return { done: false, why: `change ${row.change_id} not in agent_changes yet` };
        return { done: true, value: row };
      },
      WAIT,
    );
  const get = async (path: string, accept: string): Promise<string> => {
    const res = await fetch(`${p().apiUrl}${path}`, { headers: { accept }, signal: AbortSignal.timeout(10_000) });
    expect(res.status, path).toBe(200);
    expect(res.headers.get('content-type') ?? '', path).toContain(accept);
    return res.text();
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'veronikai-disputes-'));
    // A port of its own for the agent, stopped at once: the agent is down from the first cycle on.
    peer = await startMcpServerOn(0);
    peerUrl = peer.url;
    peerPort = peer.port;
    await peer.close();
    peer = null;
    key = agentKey('mcp', { endpointUrl: peerUrl })!;
    id = agentId(key);
    registry = await startFixtureRegistry([entry('io.github.acme/disputed', { remoteUrl: peerUrl })]);
    // An explicit environment (not this process's): no brokers configured, so the platform starts
    // the local broker in the data directory, as `run` does.
    config = loadConfig(
      {
        dataDir: join(dir, 'data'),
        port: 0,
        sourceUrl: [`mcp-registry=${registry.url}`],
        // A known-good target that stays up: with the default (public registries, unreachable
        // here) the canary fails and a refused probe would be judged unknown, never down.
        canaryUrl: [`${registry.url}/v0.1/servers`],
        budget: 10,
        sampleSize: 1,
      },
      {},
    );
    expect(config.kafkaBrokers).toEqual([]);
    platform = await startPlatform(config, { log, probePolicy: { allowLoopback: true } });
    expect(p().kafka.broker, 'the platform started its own local broker').not.toBeNull();
    expect(readInstanceFile(config.dataDir)?.pid, 'instance.json names this process').toBe(process.pid);
  }, 120_000);

  afterAll(async () => {
    await platform?.close();
    await peer?.close();
    await registry?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('the daily cycle lists the agent and judges it down (connection refused)', async () => {
    const report = await dailyCycle(p(), ['mcp-registry']);
    expect(report.planned).toBe(1);
    const all = await checks();
    expect(all.map((c) => c.uptime)).toEqual(['down']);
    downCheck = all[0]!;
    expect(downCheck.run_id).toBe(report.runId);
    expect(downCheck.reason).toMatch(/refused/i);
    expect(await verdictOf(downCheck.event_id)).toHaveLength(1);
    runsBefore = await runs();
    expect(runsBefore.filter((r) => (r as { kind: string }).kind === 'daily')).toHaveLength(2); // its start and finish
  }, 60_000);

  it('the server comes back; a dispute re-probes it at once, outside the daily run, and logs down → up', async () => {
    peer = await startMcpServerOn(peerPort);
    expect(peer.url).toBe(peerUrl);

    // As `veronikai dispute <url> --reason … --data-dir <dir>` calls it: the same configuration,
    // so it finds the running instance's broker (broker.json) and warehouse (instance.json).
    expect((await brokerStatus({ dataDir: config.dataDir })).brokers).toBe(p().kafka.brokers);
    first = await dispute(config, log, { target: peerUrl, reason: REASON_1 });
    expect(first.kafkaVia).toBe('running');
    expect(first.brokers).toBe(p().kafka.brokers);
    expect(first.workersListening).toBe(true);
    const d = first.dispute;
    expect(d).toMatchObject({
      agentKey: key,
      agentId: id,
      name: 'io.github.acme/disputed',
      reason: REASON_1,
      disputedEventId: downCheck.event_id,
      disputedUptime: 'down',
      notReprobed: null,
    });
    expect(d.checkerVersion).not.toBe('');
    expect(first.request).toMatchObject({ reason: 'dispute', inSample: false, targetUrl: peerUrl, runId: `dispute:${d.id}` });

    firstCorrection = await settledCorrection(d.id);
    // The real probe worker re-probed it: a second check, up, with the id the dispute named, in a
    // run of its own (not the daily run's, not in its sample).
    const all = await checks();
    expect(all.map((c) => [c.event_id, c.uptime])).toEqual([
      [downCheck.event_id, 'down'],
      [d.probeEventId, 'up'],
    ]);
    expect(all[1]).toMatchObject({ run_id: `dispute:${d.id}`, in_sample: 0 });

    const [before] = await verdictOf(downCheck.event_id);
    const [after] = await verdictOf(d.probeEventId!);
    // The listing's remote is http (loopback), so both verdicts fail MCP-Q-010 (remote URL is https):
    // the uptime changed, the verdict did not, and the row says exactly that.
    expect([before, after]).toEqual(['fail', 'fail']);
    expect(firstCorrection).toMatchObject({
      reason: REASON_1,
      outcome: 'answered',
      note: '',
      checker_version: d.checkerVersion,
      disputed_checker_version: d.checkerVersion,
      disputed_event_id: downCheck.event_id,
      disputed_uptime: 'down',
      disputed_result: before,
      request_id: first.request!.id,
      reprobe_event_id: d.probeEventId,
      reprobe_uptime: 'up',
      reprobe_result: after,
      verdict_changed: 0,
      uptime_changed: 1,
    });

    // One `corrected` change, caused by the dispute, from the disputed verdict to the re-probe's.
    const changes = await corrected();
    expect(changes).toHaveLength(1);
    expect(changes[0]).toMatchObject({
      change_id: firstCorrection.change_id,
      cause_event_id: d.id,
      checker_version: d.checkerVersion,
      from_state: before,
      to_state: after,
    });
    expect(changes[0]!.summary).toBe('Dispute answered: re-probed (up), verdict unchanged (fail)');
    expect(changes[0]!.reasons).toEqual([`disputed: ${REASON_1}`, 'before: down, fail (MCP-Q-010)', 'after: up, fail (MCP-Q-010)']);

    // No daily run was started or changed: the re-probe is outside the budget.
    expect(await runs()).toEqual(runsBefore);
  }, 60_000);

  it('the agent page shows the correction: the reason as text and the outcome', async () => {
    const html = await get(`/agents/${id}`, 'text/html');
    const section = html.slice(html.indexOf('id="corrections"'));
    expect(section).toContain('<li class="correction">');
    // The reason, escaped: its markup is shown, never rendered.
    expect(section).toContain('disputed: Our server was only &lt;b&gt;restarting&lt;/b&gt; &amp; is up again: please check it once more.');
    expect(html).not.toContain('<b>restarting</b>');
    expect(section).toContain('Dispute answered: re-probed (up), verdict unchanged (fail)');
    expect(section).toContain('<li>before: down, fail (MCP-Q-010)</li>');
    expect(section).toContain('<li>after: up, fail (MCP-Q-010)</li>');
    expect(section).not.toContain('No corrections.');
  }, 30_000);

  it("the agent's Atom feed has exactly one entry for the correction", async () => {
    const entries = atomEntries(await get(`/agents/${id}/feed.atom`, 'application/atom+xml'));
    const mine = entries.filter((e) => e.id === changeEntryId(firstCorrection.change_id));
    expect(mine).toHaveLength(1);
    expect(mine[0]!.title).toBe('Dispute answered: re-probed (up), verdict unchanged (fail)');
    // The content is HTML: the reason's markup arrives escaped in it.
    expect(mine[0]!.content).toContain('disputed: Our server was only &lt;b&gt;restarting&lt;/b&gt; &amp; is up again');
    expect(mine[0]!.content).toContain('<strong>fail</strong> → <strong>fail</strong> (unchanged)');
  }, 30_000);

  it('the operator runs `veronikai dispute` against the running instance: re-probed again, logged unchanged', async () => {
    const cli = await runCli(
      ['dispute', peerUrl, '--reason', REASON_2, '--data-dir', config.dataDir, '--json'],
      // The running instance's broker and warehouse, whatever this process's environment says.
      { VERONIKAI_KAFKA_BROKERS: '', VERONIKAI_WAREHOUSE: 'embedded', VERONIKAI_CACHE_DIR: config.cacheDir },
    );
    expect(cli.code, cli.stderr).toBe(0);
    const out = JSON.parse(cli.stdout) as {
      dispute: DisputeOutcome['dispute'];
      request: DisputeOutcome['request'];
      workersListening: boolean;
      kafka: string;
    };
    expect(out).toMatchObject({ kafka: 'running', workersListening: true });
    const d = out.dispute;
    // What it disputes is the re-probe of the first dispute: the instance's latest result.
    expect(d).toMatchObject({
      agentKey: key,
      reason: REASON_2,
      disputedEventId: first.dispute.probeEventId,
      disputedUptime: 'up',
      disputedResult: firstCorrection.reprobe_result,
    });
    expect(out.request).toMatchObject({ reason: 'dispute', targetUrl: peerUrl });

    secondCorrection = await settledCorrection(d.id);
    expect((await checks()).map((c) => [c.event_id, c.uptime])).toEqual([
      [downCheck.event_id, 'down'],
      [first.dispute.probeEventId, 'up'],
      [d.probeEventId, 'up'],
    ]);
    const [after] = await verdictOf(d.probeEventId!);
    expect(secondCorrection).toMatchObject({
      reason: REASON_2,
      outcome: 'answered',
      disputed_uptime: 'up',
      disputed_result: firstCorrection.reprobe_result,
      reprobe_event_id: d.probeEventId,
      reprobe_uptime: 'up',
      reprobe_result: after,
      verdict_changed: after === firstCorrection.reprobe_result ? 0 : 1,
      uptime_changed: 0,
    });
    // One `corrected` change per dispute, none twice.
    expect((await corrected()).map((c) => [c.change_id, c.cause_event_id])).toEqual([
      [firstCorrection.change_id, first.dispute.id],
      [secondCorrection.change_id, d.id],
    ]);
    expect(await runs()).toEqual(runsBefore);
  }, 90_000);

  it('the page and the feed carry each correction once, newest first', async () => {
    const entries = atomEntries(await get(`/agents/${id}/feed.atom`, 'application/atom+xml'));
    const ids = entries.map((e) => e.id);
    for (const c of [firstCorrection, secondCorrection]) expect(ids.filter((x) => x === changeEntryId(c.change_id))).toHaveLength(1);
    expect(ids.indexOf(changeEntryId(secondCorrection.change_id))).toBeLessThan(ids.indexOf(changeEntryId(firstCorrection.change_id)));
    const html = await get(`/agents/${id}`, 'text/html');
    expect(html.split('<li class="correction">')).toHaveLength(3);
    expect(html).toContain('disputed: Still up &amp; fine; &quot;unknown&quot; &lt;i&gt;never&lt;/i&gt; applied.');
    expect(html).not.toContain('<i>never</i>');
  }, 30_000);
});
