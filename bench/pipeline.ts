/**
 * The event pipeline at the index's real size (issue 15): N probe events of realistic shape on the
 * real broker, read back twice by consumer groups of the project's ConsumerRunner.
 *
 *   npx tsx bench/pipeline.ts [events, default 1000000] [agents, default 50000] [days, default 80] [replay cap in s, default none]
 *
 * With a cap, a replay still running after that many seconds is stopped at its next commit and
 * its rate is measured over what it committed by then (the line says how many).
 *
 * - consume (the baseline): a consumer group that decodes every message (the Avro codec with its
 *   checks, src/kafka/decode-step.ts) and writes nothing: createEventProcessor with a no-op sink,
 *   committing after each batch as every processor does;
 * - replay: the verdict processor (createVerdictProcessor) in a group of its own from the earliest
 *   offset, as `veronikai replay` runs it: decode, read each batch's listing context (only what is
 *   new since the agents' last batch) and the documents and server.json of its new inputs, judge
 *   each distinct input once (the memo by input digest), sign a tree head per 256 verdicts, write
 *   checks, verdicts and the head (RowBinary), derive and publish the agents' up/down/verdict
 *   changes against the states their last batch left, commit; in batches of its own fetch size
 *   (VERDICT_BATCH_BYTES; BENCH_BATCH_MB=n sets another, to compare), two partitions' batches at a
 *   time (REPLAY_CONCURRENT_BATCHES; BENCH_CONCURRENT_BATCHES=n sets another); then, once, the read models
 *   (agent_latest, rollups, daily history, status rows, run samples) of every day replayed, timed as part of it.
 *   BENCH_INPUT_EPOCHS=k cuts the days into k spans, each with other judged inputs, to show what
 *   the replay's cost grows with: with the defaults, 10 gives about 6 times the distinct inputs
 *   of 1, and 20 (a span as long as the time between an agent's probes) makes every event's
 *   inputs distinct, about 11 times those of 1; the last line names the distinct inputs.
 *   That replay, the first, also writes the facts a later one starts from (docs/REPLAY.md);
 * - replay from the kept facts (what the last line measures): a bumped version replayed as
 *   `replay` runs it once the facts cover the topic (replayFromFacts, then the read models), in a
 *   process of its own as `replay` is (bench/_fact-replay.ts), after the first replay's tables are
 *   merged as weeks of background merges leave them: each distinct input judged once, the checks,
 *   verdicts and leaves written by the engine, the trees signed there, the changes derived from the
 *   rows.
 * Beside the wall time each prints the process's CPU time (every thread: the event loop, chdb's,
 * libuv's) per event, and the replay the event loop's busy time per event: the engine runs its
 * statements on threads of its own, so the event loop's share is what bounds the batches.
 * Both are timed from start() (group join included) to the commit of the last message.
 *
 * The data (bench/_pipeline-data.ts): an index of `agents` agents (two MCP servers to one A2A agent,
 * each with a listing: the MCP ones with a registry server.json made from the real ones in
 * ../shared/corpus), `days` days of daily probes in time order, every agent revisited every few
 * days; each probe kept as the probe worker keeps it (documents on the documents topic, named by
 * hash; the MCP GET's excerpt; no other body). Before the two measurements the listing history,
 * the document store and dedupe (agents) are caught up, as `replay` does first; their times are
 * printed but not part of the ratio.
 *
 * The broker: VERONIKAI_KAFKA_BROKERS when set, else a local one started for the run (the project's
 * stack, src/stack/kafka/) and stopped at the end. The warehouse: an embedded one
 * (chdb), migrated, in a temporary directory removed at the end. Topics carry a prefix of their own.
 * The replay's time is broken down by warehouse call and judgement (bench/_timing.ts), and the run
 * prints the ceiling the event loop's busy time sets.
 */
import { generateKeyPairSync } from 'node:crypto';
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../src/config.js';
import { eventCodec } from '../src/events/codec.js';
import type { DocumentEvent } from '../src/events/types.js';
import { createKafka } from '../src/kafka/client.js';
import type { BatchOutcome, ConsumerRunner } from '../src/kafka/consumer-runner.js';
import { EventProducer } from '../src/kafka/producer.js';
import { deleteTopicsWithPrefix, ensureTopics } from '../src/kafka/topics-admin.js';
import { createLogger } from '../src/log.js';
import { createDedupeProcessor } from '../src/processors/dedupe.js';
import { createDocumentStore } from '../src/processors/documents.js';
import { createEventProcessor } from '../src/processors/event-processor.js';
import { createListingHistory } from '../src/processors/listing-history.js';
import { CURRENT_CHECKER } from '../src/processors/verdicts/checker.js';
import { createVerdictProcessor, REPLAY_CONCURRENT_BATCHES, VerdictWriter } from '../src/processors/verdicts/processor.js';
import { KafkaObservationSink } from '../src/producers/kafka-sink.js';
import { produceDocuments } from '../src/producers/probe-worker.js';
import { freePort, startBroker, type BrokerHandle } from '../src/stack/kafka/index.js';
import { topicNames, TOPICS } from '../src/topics.js';
import { EmbeddedWarehouse } from '../src/warehouse/embedded.js';
import { migrate } from '../src/warehouse/migrate.js';
import type { FactReplayFigures } from './_fact-replay.js';
import { buildIndex, loadCorpus, probeHistory } from './_pipeline-data.js';
import { Timings, timedChecker, timedWarehouse } from './_timing.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const N = Number(process.argv[2] ?? 1_000_000);
const AGENTS = Number(process.argv[3] ?? 50_000);
const DAYS = Number(process.argv[4] ?? 80);
const REPLAY_CAP_MS = process.argv[5] ? Number(process.argv[5]) * 1000 : Infinity;
/** BENCH_INPUT_EPOCHS=k: more distinct judged inputs for the same events (_pipeline-data.ts probeHistory). */
const EPOCHS = Number(process.env.BENCH_INPUT_EPOCHS ?? 1);
const CHUNK = 5000;
const DAY_MS = 86_400_000;

const fmt = (x: number): string => Math.round(x).toLocaleString('en-US');
const secs = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;
const log = createLogger('bench-pipeline', { level: 'warn' });

/**
 * Starts `runner` and resolves with the time from start() to the commit that brought its
 * messages (ok + dead letters + dropped) to `expected`; `progress` is called on each commit.
 */
async function runUntil(
  make: (hooks: { afterCommit: (o: BatchOutcome) => void }) => ConsumerRunner<unknown>,
  expected: number,
  progress?: (n: number, ms: number) => void,
  capMs = Infinity,
): Promise<{
  ms: number;
  runner: ConsumerRunner<unknown>;
  firstCommitMs: number;
  afterFirst: number;
  seen: number;
  cpuMs: number;
  loopMs: number;
}> {
  let seen = 0;
  const cpu0 = process.cpuUsage();
  const loop0 = performance.eventLoopUtilization();
  let firstCommitMs = 0;
  let afterFirst = 0;
  let resolveDone!: () => void;
  const reached = new Promise<void>((r) => (resolveDone = r));
  const t0 = performance.now();
  const runner = make({
    afterCommit: (o) => {
      const n = o.ok + o.dlq + o.dropped;
      if (firstCommitMs === 0) firstCommitMs = performance.now() - t0;
      else afterFirst += n;
      seen += n;
      progress?.(seen, performance.now() - t0);
      if (seen >= expected || performance.now() - t0 >= capMs) resolveDone();
    },
  });
  if (expected === 0) resolveDone();
  await runner.start();
  await Promise.race([reached, runner.done.then(() => Promise.reject(new Error(`${runner.groupId} stopped before the end`)))]);
  const ms = performance.now() - t0;
  // The process's CPU (every thread: the event loop, chdb's, libuv's), to compare CPU per event with the wall time.
  const cpu = process.cpuUsage(cpu0);
  // The event loop's busy time (this thread's JavaScript and its pauses for GC), apart from its idle waits.
  const loopMs = performance.eventLoopUtilization(loop0).active;
  await runner.stop();
  return { ms, runner, firstCommitMs, afterFirst, seen, cpuMs: (cpu.user + cpu.system) / 1000, loopMs };
}

/** Runs bench/_fact-replay.ts on the (closed) warehouse in `dir`; its lines go to this output, its figures come back. */
async function factReplayInItsOwnProcess(dir: string, version: string): Promise<FactReplayFigures> {
  const out = join(mkdtempSync(join(tmpdir(), 'veronikai-bench-facts-')), 'figures.json');
  const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'bench', '_fact-replay.ts'), dir, version, out], {
    stdio: 'inherit',
  });
  const [code] = (await once(child, 'exit')) as [number | null];
  if (code !== 0) throw new Error(`the replay from the kept facts exited with ${code}`);
  const figures = JSON.parse(readFileSync(out, 'utf8')) as FactReplayFigures;
  rmSync(dirname(out), { recursive: true, force: true });
  return figures;
}

async function main(): Promise<void> {
  let broker: BrokerHandle | null = null;
  let brokerDir: string | null = null;
  let brokers = process.env.VERONIKAI_KAFKA_BROKERS?.trim() ?? '';
  if (!brokers) {
    brokerDir = mkdtempSync(join(tmpdir(), 'veronikai-bench-pipeline-broker-'));
    const port = await freePort();
    const controllerPort = await freePort([port]);
    process.stdout.write('starting a local broker (src/stack/kafka/)…\n');
    broker = await startBroker({ dataDir: brokerDir, cacheDir: loadConfig().cacheDir, port, controllerPort, logger: log, heap: '1g' });
    brokers = broker.brokers;
  }
  const whDir = mkdtempSync(join(tmpdir(), 'veronikai-bench-pipeline-wh-'));
  const prefix = `bench-pipeline-${Date.now()}.`;
  const kafka = createKafka({ brokers, clientId: 'bench-pipeline', logger: log });
  const warehouse = new EmbeddedWarehouse(join(whDir, 'warehouse'));
  try {
    await migrate(warehouse);
    await ensureTopics(kafka, prefix);
    const topics = topicNames(prefix);
    const privateKey = generateKeyPairSync('ed25519').privateKey;

    // The history ends before today (UTC), its first day inside the raw tables' 90-day TTL.
    const start = Math.floor(Date.now() / DAY_MS) * DAY_MS - DAYS * DAY_MS;
    const corpus = loadCorpus(root);
    const index = buildIndex(AGENTS, corpus, DAYS, start);
    const mcp = index.agents.filter((a) => a.protocol === 'mcp').length;
    console.log('VeronikAI event pipeline benchmark: consume (decode only) against replay (decode + judge + write with commits)');
    console.log(
      `node ${process.version}; broker ${broker ? `${broker.version} (local, started for this run)` : brokers}; warehouse embedded chdb (migrated, temporary); checker ${CURRENT_CHECKER.version}`,
    );
    console.log(
      `index: ${fmt(AGENTS)} agents (${fmt(mcp)} MCP, ${fmt(AGENTS - mcp)} A2A) with one listing each; documents from ${corpus.source}`,
    );
    console.log(
      `inputs: ${EPOCHS === 1 ? 'each agent answers as it always does' : `the days cut into ${EPOCHS} spans, each with other judged inputs (BENCH_INPUT_EPOCHS)`}`,
    );
    console.log(
      `history: ${fmt(N)} probe events over ${DAYS} days (${fmt(N / DAYS)} a day) from ${new Date(start).toISOString().slice(0, 10)}; topic ${topics.probes} (${TOPICS.probes.partitions} partitions)`,
    );

    // ---- produce: listings, then each chunk's new documents before its probes (as the probe worker does) ----
    const producer = new EventProducer(kafka, { logger: log });
    const sink = new KafkaObservationSink(producer, topics);
    const codec = eventCodec();
    let genMs = 0;
    let produceMs = 0;
    let t = performance.now();
    for (let i = 0; i < index.listings.length; i += CHUNK) await sink.listings(index.listings.slice(i, i + CHUNK));
    const listingsMs = performance.now() - t;
    const hashes = new Set<string>();
    let docBytes = 0;
    let sampled = 0;
    let sampledBytes = 0;
    let exchanges = 0;
    let produced = 0;
    const gen = probeHistory(index, N, DAYS, start, CHUNK, EPOCHS);
    for (;;) {
      t = performance.now();
      const next = gen.next();
      if (next.done) break;
      const { probes, documents } = next.value;
      const fresh: DocumentEvent[] = [];
      for (const d of documents) {
        if (hashes.has(d.sha256)) continue;
        hashes.add(d.sha256);
        fresh.push(d);
        docBytes += d.body.length;
      }
      for (let i = 0; i < probes.length; i += 50) {
        sampled++;
        sampledBytes += codec.encode('Probe', probes[i]!).length;
      }
      for (const p of probes) exchanges += p.exchanges.length;
      genMs += performance.now() - t;
      t = performance.now();
      await produceDocuments(producer, topics, fresh, codec);
      await sink.probes(probes);
      produceMs += performance.now() - t;
      produced += probes.length;
      if (produced % 100_000 < CHUNK)
        process.stdout.write(`  produced ${fmt(produced)} probe events (${fmt(produced / (produceMs / 1000))}/s)\n`);
    }
    await producer.close();
    console.log(
      `produced: ${fmt(index.listings.length)} listings in ${secs(listingsMs)}; ${fmt(hashes.size)} documents (${fmt(docBytes / hashes.size)} bytes mean); ${fmt(produced)} probe events in ${secs(produceMs)} (${fmt(produced / (produceMs / 1000))}/s, generated in ${secs(genMs)})`,
    );
    console.log(`probe events: mean ${fmt(sampledBytes / sampled)} bytes encoded, ${(exchanges / produced).toFixed(2)} exchanges each`);

    // ---- the join context first, as replay does ----
    t = performance.now();
    const ctx = { kafka, topics, logger: log, warehouse };
    const [history, docs, dedupe] = await Promise.all([
      runUntil(
        (hooks) => createListingHistory({ ...ctx, groupId: `${prefix}listing-history`, hooks }) as ConsumerRunner<unknown>,
        index.listings.length,
      ),
      runUntil((hooks) => createDocumentStore({ ...ctx, groupId: `${prefix}documents`, hooks }) as ConsumerRunner<unknown>, hashes.size),
      runUntil(
        (hooks) => createDedupeProcessor({ ...ctx, groupId: `${prefix}dedupe`, hooks }) as ConsumerRunner<unknown>,
        index.listings.length,
      ),
    ]);
    console.log(
      `caught up first (not in the ratio): listing history ${secs(history.ms)}, document store ${secs(docs.ms)}, dedupe (agents) ${secs(dedupe.ms)}; all in ${secs(performance.now() - t)}`,
    );
    console.log('');

    // ---- (1) consume: decode only ----
    let lastTick = 0;
    const tick = (what: string) => (n: number, ms: number) => {
      if (n - lastTick < N / 10 && n < N) return;
      lastTick = n;
      process.stdout.write(`  ${what}: ${fmt(n)} of ${fmt(N)} in ${secs(ms)} (${fmt(n / (ms / 1000))}/s)\n`);
    };
    const consume = await runUntil(
      (hooks) =>
        createEventProcessor(
          { ...ctx, groupId: `${prefix}consume`, hooks },
          { groupId: 'unused', topic: 'probes', event: 'Probe', write: async () => undefined },
        ) as ConsumerRunner<unknown>,
      N,
      tick('consume'),
    );
    const consumeRate = N / (consume.ms / 1000);
    console.log(
      `consume: ${fmt(N)} decoded in ${secs(consume.ms)}: ${fmt(consumeRate)}/s (${consume.runner.stats.commits} commits; first commit after ${secs(consume.firstCommitMs)}; process CPU ${secs(consume.cpuMs)}, ${((1000 * consume.cpuMs) / N).toFixed(0)} µs an event)`,
    );

    // ---- (2) replay: decode + judge + write with commits ----
    const timings = new Timings();
    const on = () => true;
    lastTick = 0;
    // As `replay` runs it: judgements memoised by input digest, one signature a batch, the read models derived at the end.
    const replayWarehouse = timedWarehouse(warehouse, timings, on);
    const writer = new VerdictWriter(replayWarehouse, timedChecker(CURRENT_CHECKER, timings, on), privateKey, undefined, 'deferred');
    const replay = await runUntil(
      (hooks) =>
        createVerdictProcessor({
          ...ctx,
          warehouse: replayWarehouse,
          checker: CURRENT_CHECKER,
          sign: privateKey,
          writer,
          groupId: `${prefix}verdicts`,
          ...(process.env.BENCH_BATCH_MB ? { batchBytes: Number(process.env.BENCH_BATCH_MB) * 1024 * 1024 } : {}),
          ...(process.env.BENCH_CONCURRENT_BATCHES ? { concurrentBatches: Number(process.env.BENCH_CONCURRENT_BATCHES) } : {}),
          hooks,
        }) as ConsumerRunner<unknown>,
      N,
      tick('replay'),
      REPLAY_CAP_MS,
    );
    const replayed = Math.min(N, replay.seen);
    const batchesMs = replay.ms;
    // The read models of every day replayed, derived once by the engine over the rows written: part of the replay's time.
    const tDerive = performance.now();
    const derived = await writer.deriveReadModels();
    const deriveMs = performance.now() - tDerive;
    replay.ms += deriveMs;
    const distinct = writer.judgedInputs;
    const evicted = writer.judgedInputs > writer.memo.size;
    const replayRate = replayed / (replay.ms / 1000);
    const capped = replayed < N ? ` (stopped by the ${REPLAY_CAP_MS / 1000} s cap: rate over the first ${fmt(replayed)})` : '';
    if (capped) console.log(`replay stopped by the cap after ${fmt(replayed)} of ${fmt(N)} events`);
    console.log(
      `replay:  ${fmt(replayed)} judged and written in ${secs(replay.ms)}: ${fmt(replayRate)}/s (${replay.runner.stats.commits} commits, ${replay.runner.stats.dlq} dead letters; first commit after ${secs(replay.firstCommitMs)}; process CPU ${secs(replay.cpuMs)}, ${((1000 * replay.cpuMs) / replayed).toFixed(0)} µs an event)`,
    );
    console.log(`  of which the read models of ${derived.days} days, derived once at the end: ${secs(deriveMs)}`);
    console.log(
      `  judged ${fmt(distinct)} distinct inputs (${fmt(replayed - distinct)} probes took an earlier judgement of the same inputs${evicted ? `; the memo dropped older inputs to stay within ${fmt(writer.memo.capacity)} entries and ${fmt(writer.memo.capacityBytes / 1048576)} MB (it holds ${fmt(writer.memo.size)}, about ${fmt(writer.memo.bytes / 1048576)} MB): an input seen again after that was judged again` : ''})`,
    );

    // What the replay wrote, read back.
    const [rows] = await warehouse.query<{ checks: string; verdicts: string; latest: string; days: string; history: string }>(
      `SELECT (SELECT count() FROM checks FINAL WHERE checker_version = {cv:String}) AS checks,
              (SELECT count() FROM verdicts FINAL WHERE checker_version = {cv:String}) AS verdicts,
              (SELECT count() FROM agent_latest FINAL WHERE checker_version = {cv:String}) AS latest,
              (SELECT uniqExact(day) FROM daily_rollups FINAL WHERE checker_version = {cv:String}) AS days,
              (SELECT count() FROM agent_daily_history FINAL WHERE checker_version = {cv:String}) AS history`,
      { cv: CURRENT_CHECKER.version },
    );
    const results = await warehouse.query<{ result: string; n: string }>(
      'SELECT result, count() AS n FROM verdicts WHERE checker_version = {cv:String} GROUP BY result ORDER BY n DESC',
      { cv: CURRENT_CHECKER.version },
    );
    const uptime = await warehouse.query<{ uptime: string; n: string }>(
      'SELECT uptime, count() AS n FROM checks WHERE checker_version = {cv:String} GROUP BY uptime ORDER BY n DESC',
      { cv: CURRENT_CHECKER.version },
    );
    console.log(
      `written: ${fmt(Number(rows!.checks))} checks, ${fmt(Number(rows!.verdicts))} verdicts, ${fmt(Number(rows!.latest))} agent_latest, ${rows!.days} rollup days, ${fmt(Number(rows!.history))} agent-days`,
    );
    console.log(
      `  uptime ${uptime.map((u) => `${u.uptime} ${fmt(Number(u.n))}`).join(', ')}; verdicts ${results.map((r) => `${r.result} ${fmt(Number(r.n))}`).join(', ')}`,
    );

    console.log('');
    const overlap = Number(process.env.BENCH_CONCURRENT_BATCHES ?? REPLAY_CONCURRENT_BATCHES);
    console.log(
      `where the replay's ${secs(replay.ms)} went (wall time of awaited calls; the rest is decode, Kafka fetch and commit, row building):`,
    );
    if (overlap > 1)
      console.log(
        `  (${overlap} batches at a time: one's calls wait for the other's in the engine, so the times overlap and can add up to more than the replay's)`,
      );
    let accounted = 0;
    for (const r of timings.rows()) {
      accounted += r.ms;
      console.log(
        `  ${r.what.padEnd(48)} ${secs(r.ms).padStart(9)}  ${((100 * r.ms) / replay.ms).toFixed(1).padStart(5)} %  (${fmt(r.calls)} calls, ${(r.ms / r.calls).toFixed(2)} ms each)`,
      );
    }
    console.log(
      `  ${'rest'.padEnd(48)} ${secs(replay.ms - accounted).padStart(9)}  ${((100 * (replay.ms - accounted)) / replay.ms).toFixed(1).padStart(5)} %`,
    );

    // Which thread bounds the replay. The warehouse's calls are awaited: the engine runs them on its
    // own threads while the event loop decodes, judges, signs and encodes other batches, so their
    // wall times overlap it and bound nothing alone. The event loop's busy time an event does: the
    // batches go no faster than that, however fast the engine.
    const judgeMs = timings
      .rows()
      .filter((r) => r.what.startsWith('judge'))
      .reduce((a, r) => a + r.ms, 0);
    const warehouseUs = (1000 * (accounted - judgeMs)) / replayed;
    const loopUs = (1000 * replay.loopMs) / replayed;
    const otherCores = (replay.cpuMs - replay.loopMs) / batchesMs;
    console.log('');
    console.log(
      `the warehouse's calls took ${warehouseUs.toFixed(0)} µs an event, awaited (wall time, on the engine's threads, beside the event loop's work)`,
    );
    console.log(
      `the event loop was busy ${((100 * replay.loopMs) / batchesMs).toFixed(0)} % of the batches' ${secs(batchesMs)}: ${loopUs.toFixed(0)} µs an event ` +
        `(decode ${((1000 * consume.loopMs) / N).toFixed(0)} µs of it, as consume measured), so at most ${fmt(1e6 / loopUs)}/s before the read models, ` +
        `R ≤ ${(1e6 / loopUs / consumeRate).toFixed(2)}; the other threads (the engine's statements and merges, GC helpers, I/O) used ` +
        `${otherCores.toFixed(2)} of ${availableParallelism()} cores beside it`,
    );

    // ---- (3) the replay of a bumped version from the kept facts, as `replay` runs it once they cover the topic ----
    // The facts were written over weeks in a real index, and the engine has long merged them and
    // the old version's rows: the first replay's tables are merged here (not part of the ratio).
    const tSettle = performance.now();
    for (const table of ['probe_facts', 'probe_inputs', 'checks', 'verdicts']) await warehouse.exec(`OPTIMIZE TABLE ${table} FINAL`);
    // And the merges the first replay's other writes set off (read models, search, documents) are over, as they are by then.
    const settleMs = 300_000;
    while (performance.now() - tSettle < settleMs) {
      const [m] = await warehouse.query<{ n: string }>('SELECT count() AS n FROM system.merges');
      if (Number(m?.n ?? 0) === 0) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    // And on disk: the first replay's and the broker's writes are not flushed while the timed replay runs.
    spawnSync('sync');
    console.log(
      `the first replay's tables merged (OPTIMIZE … FINAL, as background merges leave facts weeks old), the engine's merges over and the writes flushed in ${secs(performance.now() - tSettle)}`,
    );
    // The replay runs as `replay` does, in a process of its own over the warehouse (bench/_fact-replay.ts),
    // with nothing else running: it needs no broker (the bench takes its changes), so the broker is stopped first.
    await warehouse.close();
    await deleteTopicsWithPrefix(kafka, prefix).catch(() => undefined);
    await broker?.stop(15_000);
    broker = null;
    const parentCpu = process.cpuUsage();
    const fromFacts = await factReplayInItsOwnProcess(join(whDir, 'warehouse'), `${CURRENT_CHECKER.version}+bench`);
    const parentUsed = process.cpuUsage(parentCpu);
    console.log(`(this process used ${secs((parentUsed.user + parentUsed.system) / 1000)} of CPU while it ran)`);
    const factsRate = fromFacts.events / (fromFacts.ms / 1000);

    const r = factsRate / consumeRate;
    console.log('');
    console.log(`target 0.5: ${r >= 0.5 ? 'met' : 'NOT met'} (the first replay, from the topic: ${(replayRate / consumeRate).toFixed(3)})`);
    console.log(
      `pipeline: replay/consume = ${r.toFixed(3)} (events ${fmt(fromFacts.events)}, distinct inputs ${fmt(fromFacts.inputs)}, agents ${fmt(AGENTS)}, consume ${fmt(consumeRate)}/s, replay ${fmt(factsRate)}/s from the kept facts)`,
    );
  } finally {
    await warehouse.close().catch(() => undefined);
    if (process.env.BENCH_KEEP_WAREHOUSE) console.log(`warehouse kept: ${whDir}`);
    else rmSync(whDir, { recursive: true, force: true });
    await broker?.stop(15_000);
    if (brokerDir) rmSync(brokerDir, { recursive: true, force: true });
  }
}

await main();
