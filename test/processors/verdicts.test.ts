import { createPublicKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CHECKER_VERSION, generateSigningKeyPair, keyIdOf } from '../../src/conformance/index.js';
import { isTreeAttestation, verdictLeaf, verifyTreeAttestation, type TreeAttestation } from '../../src/conformance/tree-attestation.js';
import { judgeProbe } from '../../src/processors/verdicts/judge-probe.js';
import { verifyVerdicts } from '../../src/runtime/usecases/verify.js';
import { readAll } from '../helpers/signing.js';
import { sha256Hex } from '../../src/core/canonical-json.js';
import type { ProbeEvent, ProbeExchange } from '../../src/events/types.js';
import { CURRENT_CHECKER } from '../../src/processors/verdicts/checker.js';
import { BUMPED_CHECKER, probeEvent, probeExchange, serverJsonFor } from '../helpers/probe-events.js';
import { VerdictWriter } from '../../src/processors/verdicts/processor.js';
import { FactsIncompleteError, replayFromFacts } from '../../src/processors/verdicts/replay-facts.js';
import { signingKeyObject } from '../../src/processors/verdicts/batch-sign.js';
import { VERDICT_TREE_LEAVES } from '../../src/processors/verdicts/batch-sign.js';
import { ListingContextResolver } from '../../src/processors/verdicts/listing-context.js';
import type { EmbeddedWarehouse } from '../../src/warehouse/embedded.js';
import type { QueryParams } from '../../src/warehouse/warehouse.js';
import { countingQueries, withWarehouse, type TestWarehouse } from '../helpers/warehouse.js';

/**
 * The verdict processor's sink on the real engine: probe events in, checks,
 * verdicts, agent_latest and rollups out; idempotent; and a checker bump that
 * writes new verdicts beside the old ones.
 */

const T = Date.UTC(2026, 10, 29, 10);
const keys = generateSigningKeyPair();
const sign = keys.privateKeyPem;

const exchange = probeExchange;
const probe = (id: string, agentKey: string, protocol: 'a2a' | 'mcp', exchanges: ProbeExchange[], extra: Partial<ProbeEvent> = {}) =>
  probeEvent(T, id, agentKey, protocol, exchanges, extra);

const serverJson = serverJsonFor;

const card = readFileSync('test/fixtures/conformance/a2a/good-0.3.json', 'utf8');
const AGENTS = {
  mcpShort: 'https://mcp.short-agent.dev/mcp', // 30-char description: passes v1, fails the bumped rule
  mcpLong: 'https://mcp.long-agent.dev/mcp',
  mcpNoDoc: 'https://mcp.nodoc-agent.dev/mcp', // no server.json: n/a
  a2a: 'https://agent.recipes-agent.dev',
  a2aDown: 'https://down.recipes-agent.dev',
};

const events: ProbeEvent[] = [
  probe('p1', AGENTS.mcpShort, 'mcp', [exchange('mcp-get', AGENTS.mcpShort, 405, '', { allow: 'POST' })]),
  probe('p2', AGENTS.mcpLong, 'mcp', [
    exchange('mcp-get', AGENTS.mcpLong, 200, 'event: endpoint\ndata: /x\n\n', { 'content-type': 'text/event-stream' }),
  ]),
  probe('p3', AGENTS.mcpNoDoc, 'mcp', [exchange('mcp-get', AGENTS.mcpNoDoc, 405, '')], { inSample: false }),
  probe('p4', AGENTS.a2a, 'a2a', [
    exchange('card', `${AGENTS.a2a}/.well-known/agent-card.json`, 200, card, { 'content-type': 'application/json' }),
  ]),
  probe('p5', AGENTS.a2aDown, 'a2a', [exchange('card', `${AGENTS.a2aDown}/.well-known/agent-card.json`, null, '', {}, 'refused')]),
];

const BUMPED = BUMPED_CHECKER;

describe('verdict writer on the chdb engine', () => {
  let t: TestWarehouse;
  let wh: EmbeddedWarehouse;

  // A fresh warehouse per test: each test writes every verdict it reads.
  beforeEach(async () => {
    t = await withWarehouse('verdicts');
    wh = t.wh;
    const listed = (key: string, doc: string, at = T - 3600_000) => ({
      agent_key: key,
      observed_at: new Date(at),
      event_id: `l-${key}-${at}`,
      source: 'mcp-registry',
      item_id: key,
      status: 'active',
      endpoint_transport: 'streamable-http',
      server_json: doc,
    });
    await wh.insert('listing_history', [
      listed(AGENTS.mcpShort, serverJson('io.github.short/s', 'Short but honest thirty chars.', AGENTS.mcpShort)),
      listed(
        AGENTS.mcpLong,
        serverJson('io.github.long/l', 'A long and descriptive explanation of what this server offers.', AGENTS.mcpLong),
      ),
      // A server.json listed only AFTER the probe must not be used for it.
      listed(
        AGENTS.mcpNoDoc,
        serverJson('io.github.nodoc/n', 'Listed in the registry only after the probe happened.', AGENTS.mcpNoDoc),
        T + 3600_000,
      ),
      { ...listed(AGENTS.a2a, ''), source: 'a2a-registry' },
    ]);
  });
  afterEach(async () => {
    await t?.close();
  });

  const verdictsOf = (checker: string) =>
    wh.query<{
      agent_key: string;
      result: string;
      reasons: string[];
      signature: string;
      a2a_version: string;
      a2a_route: string;
      structure_result: string;
    }>(
      'SELECT agent_key, result, reasons, signature, a2a_version, a2a_route, structure_result FROM verdicts FINAL WHERE checker_version = {c:String} ORDER BY agent_key',
      { c: checker },
    );

  it("judges each probe into a check, a signed verdict and the agent's latest state", async () => {
    await new VerdictWriter(wh, CURRENT_CHECKER, sign).write(events);
    const checks = await wh.query<{ agent_key: string; uptime: string; source: string; in_sample: number }>(
      'SELECT agent_key, uptime, source, in_sample FROM checks FINAL ORDER BY agent_key',
    );
    expect(checks).toEqual([
      { agent_key: AGENTS.a2a, uptime: 'up', source: 'a2a-registry', in_sample: 1 },
      { agent_key: AGENTS.a2aDown, uptime: 'down', source: '', in_sample: 1 },
      { agent_key: AGENTS.mcpLong, uptime: 'up', source: 'mcp-registry', in_sample: 1 },
      { agent_key: AGENTS.mcpNoDoc, uptime: 'up', source: '', in_sample: 0 },
      { agent_key: AGENTS.mcpShort, uptime: 'up', source: 'mcp-registry', in_sample: 1 },
    ]);
    const v1 = await verdictsOf(CHECKER_VERSION);
    expect(v1.map((v) => [v.agent_key, v.result])).toEqual([
      [AGENTS.a2a, 'pass'],
      [AGENTS.a2aDown, 'unknown'],
      [AGENTS.mcpLong, 'pass'],
      [AGENTS.mcpNoDoc, 'n/a'],
      [AGENTS.mcpShort, 'pass'],
    ]);
    const a2a = v1.find((v) => v.agent_key === AGENTS.a2a)!;
    expect(a2a).toMatchObject({ a2a_version: '0.3.0', a2a_route: 'declared', structure_result: 'pass' });
    // A batch of fewer than VERDICT_TREE_LEAVES verdicts is signed once: every verdict verifies against the one signed head with the public key.
    const heads = await wh.query<{ n: number }>('SELECT toUInt32(count()) AS n FROM verdict_heads FINAL');
    expect(heads[0]!.n).toBe(1);
    expect(await verifyVerdicts((sql, onRows) => readAll(wh, sql, onRows), createPublicKey(keys.publicKeyPem))).toMatchObject({
      total: 5,
      verified: 5,
      failed: 0,
    });
    // The agent's latest row carries its verdict's leaf, proof and signed head, checked on their own.
    const [latestRow] = await wh.query<{ signature: string }>('SELECT signature FROM agent_latest FINAL WHERE agent_key = {k:String}', {
      k: AGENTS.a2a,
    });
    const att = JSON.parse(latestRow!.signature) as TreeAttestation;
    expect(isTreeAttestation(att)).toBe(true);
    expect(att.keyId).toBe(keyIdOf(createPublicKey(keys.publicKeyPem)));
    expect(verifyTreeAttestation(att, createPublicKey(keys.publicKeyPem))).toBe(true);
    expect(att.payload).toMatchObject({ subject: AGENTS.a2a, result: 'pass', checker: CHECKER_VERSION });
    // The row stores its proof's hashes as bytes (clickhouse/0036); the public view gives them in hex, as the attestation does.
    const [stored] = await wh.query<{ n: number }>("SELECT toUInt32(length(proof[1])) AS n FROM verdicts WHERE event_id = 'p4'");
    expect(stored!.n).toBe(32);
    const [viewed] = await wh.query<{ proof: string[] }>("SELECT proof FROM veronikai_public.verdict_proofs WHERE event_id = 'p4'");
    expect(viewed!.proof).toEqual(att.proof);
    expect(att.proof.every((h) => /^[0-9a-f]{64}$/.test(h))).toBe(true);
    // Changed, it no longer verifies.
    expect(verifyTreeAttestation({ ...att, payload: { ...att.payload, result: 'fail' } }, createPublicKey(keys.publicKeyPem))).toBe(false);

    const latest = await wh.query<{ n: number }>('SELECT toUInt32(count()) AS n FROM agent_latest FINAL');
    expect(latest[0]!.n).toBe(5);
    const rollup = await wh.query<Record<string, number>>(
      'SELECT toUInt32(sum(checks)) AS checks, toUInt32(sum(up)) AS up, toUInt32(sum(down)) AS down, toUInt32(sum(pass)) AS pass, toUInt32(sum(fail)) AS fail, toUInt32(sum(na)) AS na, toUInt32(sum(sample_checks)) AS sample FROM daily_rollups FINAL WHERE checker_version = {c:String}',
      { c: CHECKER_VERSION },
    );
    expect(rollup[0]).toEqual({ checks: 5, up: 4, down: 1, pass: 3, fail: 0, na: 1, sample: 4 });
  });

  it('signs a batch larger than one tree under a head per VERDICT_TREE_LEAVES verdicts: every row and every latest row verifies', async () => {
    // Probes of the five agents, in turn: two full trees and part of a third.
    const many = Array.from({ length: 2 * VERDICT_TREE_LEAVES + 3 }, (_, i) => {
      const ev = events[i % events.length]!;
      return { ...ev, id: `m${i}`, observedAt: T + i * 1000 };
    });
    await new VerdictWriter(wh, CURRENT_CHECKER, sign).write(many);
    const heads = await wh.query<{ n: number }>('SELECT toUInt32(tree_size) AS n FROM verdict_heads FINAL ORDER BY n DESC');
    expect(heads.map((h) => h.n)).toEqual([VERDICT_TREE_LEAVES, VERDICT_TREE_LEAVES, 3]);
    const [deepest] = await wh.query<{ n: number }>('SELECT toUInt32(max(length(proof))) AS n FROM verdicts');
    expect(deepest!.n).toBe(Math.log2(VERDICT_TREE_LEAVES));
    const publicKey = createPublicKey(keys.publicKeyPem);
    expect(await verifyVerdicts((sql, onRows) => readAll(wh, sql, onRows), publicKey)).toMatchObject({
      total: many.length,
      verified: many.length,
      failed: 0,
    });
    // Three agents' newest verdicts are in the last tree, two agents' in the one before: each attestation carries its own tree's head.
    const latest = await wh.query<{ signature: string }>('SELECT signature FROM agent_latest FINAL');
    expect(latest).toHaveLength(5);
    const atts = latest.map((r) => JSON.parse(r.signature) as TreeAttestation);
    for (const att of atts) expect(verifyTreeAttestation(att, publicKey)).toBe(true);
    expect(new Set(atts.map((a) => a.head.size))).toEqual(new Set([VERDICT_TREE_LEAVES, 3]));
  });

  it("writes a replay's agent_latest rows once it has caught up: the rows a batch at a time writes, each agent's newest", async () => {
    // A second, later probe of one agent: its newest is the one kept.
    const later = probe('p6', AGENTS.a2aDown, 'a2a', [exchange('card', `${AGENTS.a2aDown}/.well-known/agent-card.json`, 200, card)], {
      observedAt: T + 60_000,
    });
    const batches = [events.slice(0, 3), [...events.slice(3), later]];
    const all = 'SELECT * FROM agent_latest FINAL WHERE checker_version = {c:String} ORDER BY agent_key';
    const replay = new VerdictWriter(wh, CURRENT_CHECKER, sign, undefined, 'deferred');
    for (const b of batches) await replay.write(b);
    expect(await wh.query(all, { c: CHECKER_VERSION })).toEqual([]);
    await replay.deriveReadModels();
    const derived = await wh.query<{ agent_key: string; event_id: string; signature: string }>(all, { c: CHECKER_VERSION });
    expect(derived.map((r) => [r.agent_key, r.event_id])).toEqual([
      [AGENTS.a2a, 'p4'],
      [AGENTS.a2aDown, 'p6'],
      [AGENTS.mcpLong, 'p2'],
      [AGENTS.mcpNoDoc, 'p3'],
      [AGENTS.mcpShort, 'p1'],
    ]);
    for (const r of derived) expect(verifyTreeAttestation(JSON.parse(r.signature), createPublicKey(keys.publicKeyPem))).toBe(true);
    // The same batches written by a live writer (same heads, leaves and proofs) give the same rows, signature text included.
    await wh.exec('TRUNCATE TABLE agent_latest');
    const live = new VerdictWriter(wh, CURRENT_CHECKER, sign);
    for (const b of batches) await live.write(b);
    expect(await wh.query(all, { c: CHECKER_VERSION })).toEqual(derived);
  });

  it("derives a replay's agent_latest from the copy of a verdict written last, when a batch was written again under another head", async () => {
    const replay = new VerdictWriter(wh, CURRENT_CHECKER, sign, undefined, 'deferred');
    // A batch whose head was never stored (it failed between its inserts), then the same probes in another batch.
    await replay.write(events.slice(0, 3));
    await wh.exec('TRUNCATE TABLE verdict_heads');
    await replay.write([...events.slice(0, 3)].reverse());
    const heads = await wh.query<{ head_id: string }>('SELECT head_id FROM verdict_heads');
    expect(heads).toHaveLength(1);
    await replay.deriveReadModels();
    const rows = await wh.query<{ event_id: string; signature: string }>(
      'SELECT event_id, signature FROM agent_latest FINAL WHERE checker_version = {c:String} ORDER BY event_id',
      { c: CHECKER_VERSION },
    );
    expect(rows.map((r) => r.event_id)).toEqual(events.slice(0, 3).map((e) => e.id));
    for (const r of rows) {
      const att = JSON.parse(r.signature) as { head: { id: string } };
      expect(att.head.id).toBe(heads[0]!.head_id);
      expect(verifyTreeAttestation(att, createPublicKey(keys.publicKeyPem))).toBe(true);
    }
  });

  it("reads a listing's server.json only for inputs not judged before, named by the hash the engine keeps", async () => {
    const { proxy: counting, reads } = countingQueries(wh);
    const [stored] = await wh.query<{ sha: string; doc: string }>(
      'SELECT server_json_sha256 AS sha, server_json AS doc FROM listing_history WHERE agent_key = {k:String}',
      { k: AGENTS.mcpLong },
    );
    expect(stored!.sha).toBe(sha256Hex(stored!.doc));
    const writer = new VerdictWriter(counting, CURRENT_CHECKER, sign);
    await writer.write(events);
    const texts = () => reads.filter((q) => q.includes('any(server_json)'));
    expect(texts()).toHaveLength(1);
    // The same agents probed a minute later, with the same inputs: judged from the memo, no text read.
    reads.length = 0;
    await writer.write(events.map((e) => ({ ...e, id: `${e.id}-next`, observedAt: e.observedAt + 60_000 })));
    expect(texts()).toEqual([]);
    expect(writer.judgedInputs).toBe(events.length);
  });

  it('reads every server.json a batch needs, however few it keeps, and keeps what fits for the next batches', async () => {
    const probes = [
      { agentKey: AGENTS.mcpShort, observedAt: T },
      { agentKey: AGENTS.mcpLong, observedAt: T },
    ];
    for (const [keptBytes, readsAgain] of [
      [1, 1],
      [undefined, 0],
    ] as const) {
      const { proxy, reads } = countingQueries(wh);
      const resolver = new ListingContextResolver(proxy, { keptBytes });
      for (const batch of [0, 1]) {
        reads.length = 0;
        const contexts = await resolver.resolve(probes);
        expect(contexts.map((c) => c?.serverJson)).toEqual([undefined, undefined]);
        await resolver.loadServerJson(contexts);
        expect(contexts.map((c) => (c?.serverJson as { name: string }).name)).toEqual(['io.github.short/s', 'io.github.long/l']);
        expect(
          reads.filter((q) => q.includes('any(server_json)')),
          `kept ${keptBytes}, batch ${batch}`,
        ).toHaveLength(batch === 0 ? 1 : readsAgain);
      }
    }
  });

  it('writes nothing new when the same events are judged again by the same checker', async () => {
    await new VerdictWriter(wh, CURRENT_CHECKER, sign).write(events);
    const before = await verdictsOf(CHECKER_VERSION);
    await new VerdictWriter(wh, CURRENT_CHECKER, sign).write(events);
    expect(await verdictsOf(CHECKER_VERSION)).toEqual(before);
    const rollup = await wh.query<{ checks: number }>('SELECT toUInt32(sum(checks)) AS checks FROM daily_rollups FINAL');
    expect(rollup[0]!.checks).toBe(5);
  });

  it('replays the same events under a bumped checker beside the old verdicts, and names exactly the agents that changed', async () => {
    await new VerdictWriter(wh, CURRENT_CHECKER, sign).write(events);
    await new VerdictWriter(wh, BUMPED, sign).write(events);
    const old = await verdictsOf(CHECKER_VERSION);
    const bumped = await verdictsOf(BUMPED.version);
    expect(old).toHaveLength(5);
    expect(bumped).toHaveLength(5);
    const changed = await wh.query<{ agent_key: string; old: string; new: string }>(
      `SELECT o.agent_key AS agent_key, o.result AS old, n.result AS new
       FROM (SELECT * FROM verdicts FINAL WHERE checker_version = {old:String}) AS o
       INNER JOIN (SELECT * FROM verdicts FINAL WHERE checker_version = {new:String}) AS n ON n.event_id = o.event_id
       WHERE o.result != n.result ORDER BY agent_key`,
      { old: CHECKER_VERSION, new: BUMPED.version },
    );
    expect(changed).toEqual([{ agent_key: AGENTS.mcpShort, old: 'pass', new: 'fail' }]);
    // Each version has its own checks (uptime is judged by the checker too), so the old
    // version's uptime and rollups are never rewritten by the new one.
    const checksPerVersion = await wh.query<{ checker_version: string; n: number }>(
      'SELECT checker_version, toUInt32(count()) AS n FROM checks FINAL GROUP BY checker_version ORDER BY checker_version',
    );
    expect(checksPerVersion).toEqual([
      { checker_version: CHECKER_VERSION, n: 5 },
      { checker_version: BUMPED.version, n: 5 },
    ]);
    // The rollups count each version separately; nothing was counted twice.
    const perVersion = await wh.query<{ checker_version: string; checks: number; fail: number }>(
      'SELECT checker_version, toUInt32(sum(checks)) AS checks, toUInt32(sum(fail)) AS fail FROM daily_rollups FINAL GROUP BY checker_version ORDER BY checker_version',
    );
    expect(perVersion).toEqual([
      { checker_version: CHECKER_VERSION, checks: 5, fail: 0 },
      { checker_version: BUMPED.version, checks: 5, fail: 1 },
    ]);
  });

  it('replays from the kept facts: the engine writes the rows the writer would have, every verdict verified under the signed heads', async () => {
    // Several probes of each agent: inputs repeat, as daily probes of unchanged agents do. Two days
    // ago, over two UTC days, so the daily models of their days are derived.
    const since = Math.floor(Date.now() / 86_400_000) * 86_400_000 - 86_400_000 - 20_000;
    const many = Array.from({ length: 40 }, (_, i) => ({ ...events[i % events.length]!, id: `f${i}`, observedAt: since + i * 1000 }));
    // A subject whose JSON text has escapes (no canonical key has them): its leaf is the writer's all the same.
    const odd = 'https://odd.example/"quoted"\\back\u0001\n';
    // And its event id one whose leaf under the bumped version ends in a zero byte (1 in 256): the engine hands it over whole.
    const oddProbe = (i: number) => probe(`f40-${i}`, odd, 'mcp', [exchange('mcp-get', odd, 405, '')]);
    let n = 0;
    while (verdictLeaf(judgeProbe(oddProbe(n), null, BUMPED).leaf).at(-1) !== 0) n++;
    many.push(oddProbe(n));
    await new VerdictWriter(wh, CURRENT_CHECKER, sign).write(many);
    const summary = await replayFromFacts(wh, BUMPED, signingKeyObject(sign));
    expect(summary).toEqual({ inputs: 6, events: 41, heads: 1, changes: 0 });
    expect(await verifyVerdicts((sql, onRows) => readAll(wh, sql, onRows), createPublicKey(keys.publicKeyPem))).toMatchObject({
      total: 82,
      verified: 82,
      failed: 0,
    });
    const rows = async (c = BUMPED.version) => ({
      checks: await wh.query('SELECT * FROM checks FINAL WHERE checker_version = {c:String} ORDER BY event_id', { c }),
      verdicts: await wh.query(
        'SELECT * EXCEPT (judged_at, head_id, leaf_index, proof) FROM verdicts FINAL WHERE checker_version = {c:String} ORDER BY event_id',
        { c },
      ),
      // The daily models, derived from the facts here and from the rows by the writer below (the digest's bytes depend on the order its values came in).
      rollups: await wh.query(
        'SELECT * EXCEPT (computed_at) FROM daily_rollups FINAL WHERE checker_version = {c:String} ORDER BY day, protocol, source',
        { c },
      ),
      history: await wh.query(
        'SELECT * EXCEPT (computed_at, latency_digest) FROM agent_daily_history FINAL WHERE checker_version = {c:String} ORDER BY agent_key, day',
        { c },
      ),
      samples: await wh.query('SELECT * FROM run_samples FINAL WHERE checker_version = {c:String} ORDER BY run_id, event_id', { c }),
    });
    const fromFacts = await rows();
    expect(fromFacts.checks).toHaveLength(41);
    expect(fromFacts.rollups.length).toBeGreaterThanOrEqual(4); // two days, both protocols
    expect(fromFacts.history.length).toBeGreaterThan(6);
    expect(fromFacts.samples.length).toBe(many.filter((e) => e.inSample).length);
    expect(fromFacts.samples.length).toBeGreaterThan(0);
    // Another version in shares of about 10 probes, 2 inputs of the next share judged while a share's rows are written: the same rows.
    const shared = { ...BUMPED, version: `${BUMPED.version}.shares` };
    const inShares = await replayFromFacts(wh, shared, signingKeyObject(sign), undefined, { probesPerShare: 10, inputsAhead: 2 });
    expect({ ...inShares, heads: inShares.heads > 1 }).toEqual({ inputs: 6, events: 41, heads: true, changes: 0 });
    const relabel = (r: Record<string, unknown>) => ({ ...r, checker_version: BUMPED.version });
    const sharedRows = await rows(shared.version);
    expect(Object.fromEntries(Object.entries(sharedRows).map(([t, rs]) => [t, (rs as Record<string, unknown>[]).map(relabel)]))).toEqual(
      fromFacts,
    );
    // Run again (a replay cut short and started over), in shares of about 10 probes: nothing to judge, the same rows, every copy verified.
    const again = await replayFromFacts(wh, BUMPED, signingKeyObject(sign), undefined, { probesPerShare: 10 });
    expect({ ...again, heads: again.heads > 1 }).toEqual({ inputs: 0, events: 41, heads: true, changes: 0 });
    expect(await rows()).toEqual(fromFacts);
    // (verify reads every stored copy until the engine merges them: the second run's 40 as well, or not yet)
    const verified = await verifyVerdicts((sql, onRows) => readAll(wh, sql, onRows), createPublicKey(keys.publicKeyPem));
    expect(verified.failures).toEqual([]);
    expect(verified.failed).toBe(0);
    expect(verified.verified).toBe(verified.total);
    expect(verified.total).toBeGreaterThanOrEqual(82);
    expect(fromFacts.verdicts.filter((v) => (v as { result: string }).result === 'fail')).toHaveLength(8);
    // The same probes through a writer of the bumped version.
    for (const table of ['checks', 'verdicts', 'verdict_heads', 'daily_rollups', 'agent_daily_history', 'run_samples'])
      await wh.exec(`TRUNCATE TABLE ${table}`);
    await new VerdictWriter(wh, BUMPED, sign).write(many);
    expect(fromFacts).toEqual(await rows());
    // Facts whose inputs are no longer stored cannot stand for the topic: the replay says so before writing a row.
    await wh.exec('TRUNCATE TABLE probe_inputs');
    const another = { ...BUMPED, version: `${BUMPED.version}.b` };
    await expect(replayFromFacts(wh, another, signingKeyObject(sign))).rejects.toBeInstanceOf(FactsIncompleteError);
    const [written] = await wh.query<{ n: number }>('SELECT toUInt32(count()) AS n FROM checks WHERE checker_version = {c:String}', {
      c: another.version,
    });
    expect(written!.n).toBe(0);
  });

  it("replays from the kept facts while the writer adds facts: a probe added after its share's leaves were taken is left to the tail, and every verdict verifies", async () => {
    const since = Math.floor(Date.now() / 86_400_000) * 86_400_000 - 86_400_000;
    const many = Array.from({ length: 20 }, (_, i) => ({ ...events[i % events.length]!, id: `w${i}`, observedAt: since + i * 1000 }));
    await new VerdictWriter(wh, CURRENT_CHECKER, sign).write(many);
    // Older than every probe of its agent, so it would come first in the agent's order and move every later leaf of the share.
    const late = { ...events[0]!, id: 'w-late', observedAt: since - 60_000 };
    let added = false;
    // The live writer's batch lands between the replay taking the share's leaves and writing its verdicts.
    const interleaved = new Proxy(wh, {
      get(target, prop, receiver) {
        if (prop !== 'query') return Reflect.get(target, prop, receiver) as unknown;
        return async (sql: string, params?: QueryParams) => {
          if (!added && sql.includes('FROM replay_leaves')) {
            added = true;
            await new VerdictWriter(target, CURRENT_CHECKER, sign).write([late]);
          }
          return target.query(sql, params);
        };
      },
    });
    const summary = await replayFromFacts(interleaved, BUMPED, signingKeyObject(sign));
    expect(added).toBe(true);
    expect(summary.events).toBe(21);
    const bumped = await wh.query<{ event_id: string }>(
      'SELECT event_id FROM verdicts FINAL WHERE checker_version = {c:String} ORDER BY event_id',
      { c: BUMPED.version },
    );
    expect(bumped.map((r) => r.event_id)).toEqual(many.map((e) => e.id).sort());
    const verified = await verifyVerdicts((sql, onRows) => readAll(wh, sql, onRows), createPublicKey(keys.publicKeyPem));
    expect(verified.failures).toEqual([]);
    expect(verified).toMatchObject({ total: 41, verified: 41, failed: 0 });
  });
});
