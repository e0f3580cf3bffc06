/**
 * The probe engine at the size of a daily run (issue 15): the real ProbeEngine
 * (src/producers/probe/probe-agent.ts, with its robots.txt cache and its politeness limiter:
 * 2 requests in flight per host, 6 per site) probes MCP endpoints on H loopback hosts, each
 * host a distinct 127.x.y.z address under a name of its own (`h17.s3.test`, site `s3.test`)
 * resolved by the engine's injectable lookup, every answer sent after 20 ms.
 *
 *   npx tsx bench/probes.ts [hosts, default 500,1000,2000] [big sites, default 4] [pool, default the worker's] [engine|worker|command, default all three]
 *
 * Three paths, each at every size: `engine`, probeWithDocuments called by a pool of `pool` lanes
 * (what the worker's handler calls); `worker`, the real ProbeWorker (the probe-worker command's
 * consumer group) over a broker: the plan's probes as ProbeRequest events keyed by site, as the
 * scheduler sends them, then the worker's batches, its produce calls and its commits, timed from
 * its start (group join included) to the commit of the last request; and `command`, the real
 * `veronikai probe-worker --allow-loopback` command itself (see commandPath). The last line is
 * the command's figure, the other two beside it. The worker's broker is VERONIKAI_KAFKA_BROKERS
 * when set, else a local one started for the run; the command always gets a local one of its own.
 *
 * Shape: 90% of the hosts dealt over a few big sites (a hosting platform's subdomains), each of
 * the other 10% a site of its own (the long tail), so there are many hosts per site and many
 * sites; H grows by adding hosts, so the sizes' peak RSS can be compared. 1 to 6
 * MCP endpoints a host (mean 2.5); robots.txt served by the same host (4 in 5 with rules that
 * allow the endpoints, 1 in 5 a 404). The endpoints answer the GET as remote MCP servers do
 * (see MIX): 405 (no SSE on GET), 401 with a WWW-Authenticate `resource_metadata` the engine
 * then fetches (RFC 9728), an SSE stream with an `endpoint` event (HTTP+SSE), a JSON-RPC 400,
 * an HTML 404, 406, a 301 (not followed), and a few SSE streams that stay silent, which the
 * engine reads for its body window (MCP_BODY_WINDOW_MS) and closes. No 429 or 503, so the
 * pacing never engages and is no term of the ideal. Probes are taken in a random order (as
 * probe requests arrive) by a pool of `window` concurrent calls of probeWithDocuments (what a
 * probe worker calls), by default the probe worker's own concurrency (PROBE_WORKER_CONCURRENCY,
 * VERONIKAI_PROBE_CONCURRENCY), so the figure is the worker's.
 *
 * Why a few big sites: the politeness limits allow 6 × sites exchanges in flight, 300 a second
 * per site at 20 ms, and the engine costs about 0.75 ms of CPU a request (measured here; 1.5 ms
 * before connections were kept alive and the limiter stopped scanning its waiters), so with
 * many big sites one process on 2 cores would be the limit, not the politeness. Each size
 * also prints the engine's CPU a request, its event-loop delay, the mean time a GET took and
 * the bound recomputed at that time (the schedule's own efficiency), so a shortfall says
 * whether it is the limiter or the time an exchange takes.
 *
 * Ideal: the shortest makespan the politeness limits allow, a lower bound computed from the
 * schedule: per site, the sum of its exchanges' least durations (20 ms each; a silent stream
 * 20 ms + the body window) over 6 slots; per host, its robots.txt fetch (which precedes every
 * other exchange to the host) plus the rest over 2 slots; per probe, its chain (robots.txt,
 * GET, metadata). The run's ideal is the largest over sites; ideal rate = probes / that time,
 * achieved = probes / the measured wall time; R = achieved / ideal. robots.txt is counted once
 * per host in the ideal; a refetch (cache eviction) is work the engine added. A site's checks
 * past its run budget (POLITENESS.perSiteRunBudget, taken in arrival order) send nothing, so
 * they add no exchange to the ideal (and a host none of whose probes is admitted has no
 * robots.txt fetch); at the default sizes no site reaches its budget.
 *
 * The server runs in this process; each size runs the engine in a child process of its own
 * (the same file, `--child`), so each size's peak RSS (the child's maxRSS) is the engine's
 * alone and starts from nothing.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { availableParallelism, loadavg } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { MCP_BODY_WINDOW_MS } from '../src/http/limits.js';
import { POLITENESS } from '../src/http/politeness/constants.js';
import type { ProbeEvent } from '../src/events/types.js';
import type { ProbeEngine } from '../src/producers/probe/probe-agent.js';
import { PROBE_WORKER_CONCURRENCY } from '../src/producers/probe-worker.js';

const SELF = fileURLToPath(import.meta.url);
const CLI = fileURLToPath(new URL('../bin/veronikai.js', import.meta.url));
const HOSTS_PRELOAD = new URL('./_hosts-preload.mjs', import.meta.url).href;
/**
 * engine: probeWithDocuments called by a pool, as the worker's handler calls it; worker: the real
 * ProbeWorker over the broker, in the bench's child; command: the real `probe-worker` command.
 */
type Via = 'engine' | 'worker' | 'command';
const VIAS: readonly Via[] = ['engine', 'worker', 'command'];
const VIA_NAMES: Record<Via, string> = {
  engine: 'the engine',
  worker: 'through the probe worker',
  command: 'through the probe-worker command',
};
const DELAY_MS = 20;

/** What an endpoint answers to the GET, with its share of endpoints (percent). */
const MIX = [
  { kind: '405', share: 44 },
  { kind: '401', share: 16 },
  { kind: 'sse', share: 10 },
  { kind: '400', share: 12 },
  { kind: '404', share: 8 },
  { kind: '406', share: 6 },
  { kind: '301', share: 3 },
  { kind: 'silent', share: 1 },
] as const;
type Kind = (typeof MIX)[number]['kind'];

/** Share of the hosts that are each a site of their own. */
const SINGLE_SHARE = 0.1;

/** Endpoints per host, drawn uniformly from this list (mean 2.5). */
const ENDPOINTS_PER_HOST = [1, 1, 1, 2, 2, 3, 4, 6];

// ---- the plan (the same in parent and child: a seeded generator) ----

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    // mulberry32
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Probe {
  host: number;
  site: number;
  kind: Kind;
  url: string;
}

interface Plan {
  hosts: number;
  /** Sites with many hosts. */
  bigSites: number;
  /** Every site, the one-host sites included. */
  sites: number;
  probes: Probe[];
  /** Hosts whose robots.txt is a 404 (unavailable: everything allowed). */
  robots404: Set<number>;
}

/**
 * Host i's site: the first (1 − SINGLE_SHARE) of the hosts are dealt round-robin over the
 * big sites; each of the rest is a site of its own (the long tail of one-host sites).
 */
function siteOfHost(i: number, hosts: number, bigSites: number): number {
  const shared = Math.round(hosts * (1 - SINGLE_SHARE));
  return i < shared ? i % bigSites : bigSites + (i - shared);
}
const hostName = (i: number, site: number): string => `h${i}.s${site}.test`;
/** Host i's loopback address: 127.a.b.c, none of a, b, c zero or 255. */
const addressOf = (i: number): string => `127.${2 + Math.floor(i / 62_500)}.${1 + (Math.floor(i / 250) % 250)}.${1 + (i % 250)}`;
const hostIndex = (name: string): number => Number(/^h(\d+)\./.exec(name)?.[1] ?? -1);

function makePlan(hosts: number, bigSites: number, port: number): Plan {
  const rand = rng(hosts * 7919 + bigSites);
  const pickKind = (): Kind => {
    let x = rand() * 100;
    for (const m of MIX) if ((x -= m.share) < 0) return m.kind;
    return '405';
  };
  const probes: Probe[] = [];
  const robots404 = new Set<number>();
  for (let h = 0; h < hosts; h++) {
    if (rand() < 0.2) robots404.add(h);
    const n = ENDPOINTS_PER_HOST[Math.floor(rand() * ENDPOINTS_PER_HOST.length)]!;
    const site = siteOfHost(h, hosts, bigSites);
    for (let e = 0; e < n; e++) {
      const kind = pickKind();
      probes.push({ host: h, site, kind, url: `http://${hostName(h, site)}:${port}/${kind}/${e}/mcp` });
    }
  }
  // Probe requests arrive in no order of host: shuffle.
  for (let i = probes.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [probes[i], probes[j]] = [probes[j]!, probes[i]!];
  }
  return { hosts, bigSites, sites: siteOfHost(hosts - 1, hosts, bigSites) + 1, probes, robots404 };
}

/** Exchanges of one probe after robots.txt, with their least durations (ms), each exchange taking `ex`. */
function exchangesOf(kind: Kind, ex: number): number[] {
  if (kind === '401') return [ex, ex]; // the GET, then the metadata document
  if (kind === 'silent') return [ex + MCP_BODY_WINDOW_MS];
  return [ex];
}

/**
 * The shortest makespan the politeness limits allow (see the header comment) when an exchange
 * takes `ex` ms: DELAY_MS for the ideal; the measured mean for the schedule's own efficiency.
 */
function idealMakespan(plan: Plan, ex = DELAY_MS): { ms: number; exchanges: number } {
  const perHost = new Map<number, number>();
  const perSite = new Map<number, number>();
  const hostRobots = ex;
  let chain = 0;
  let exchanges = 0;
  // The site's run budget: checks past it are refused before any request.
  const checks = new Map<number, number>();
  const admitted = plan.probes.filter((p) => {
    const n = (checks.get(p.site) ?? 0) + 1;
    checks.set(p.site, n);
    return n <= POLITENESS.perSiteRunBudget;
  });
  for (const p of admitted) {
    if (perHost.has(p.host)) continue;
    exchanges++;
    perHost.set(p.host, hostRobots);
    perSite.set(p.site, (perSite.get(p.site) ?? 0) + hostRobots);
  }
  for (const p of admitted) {
    const xs = exchangesOf(p.kind, ex);
    const w = xs.reduce((a, b) => a + b, 0);
    exchanges += xs.length;
    perHost.set(p.host, perHost.get(p.host)! + w);
    perSite.set(p.site, perSite.get(p.site)! + w);
    chain = Math.max(chain, hostRobots + w);
  }
  let ms = chain;
  for (const [, w] of perSite) ms = Math.max(ms, w / POLITENESS.perSiteConcurrency);
  for (const [, w] of perHost) ms = Math.max(ms, hostRobots + (w - hostRobots) / POLITENESS.perHostConcurrency);
  return { ms, exchanges };
}

// ---- the child: the real engine ----

interface ChildResult {
  hosts: number;
  sites: number;
  probes: number;
  wallMs: number;
  cpuMs: number;
  rssBeforeMb: number;
  peakRssMb: number;
  heapPeakMb: number;
  retainedMb: number;
  /** Mean requests in flight per big site over the run (the limit is 6). */
  bigSiteInFlight: number;
  /** The same over the first 80% of the run (before the last probes drain). */
  bigSiteInFlightEarly: number;
  /** When the last silent stream was taken from the list (ms after the start): the run lasts at least this + the body window. */
  lastSilentTakenMs: number;
  /** Mean duration of a GET (not the silent streams) as the engine measured it, connect to last byte. */
  meanGetMs: number;
  /** The engine's event loop: how late its timers ran (mean, p99). */
  loopDelayMeanMs: number;
  loopDelayP99Ms: number;
  unexpected: Record<string, number>;
  statuses: Record<string, number>;
}

/**
 * A Kafka client on `brokers`, the platform's topics under `prefix` (created), and the plan's
 * probes on its probe-requests topic as ProbeRequest events keyed by site, as the scheduler sends
 * them (probe i's request id `idOf(i)`). The producer stays open for the caller to use and close.
 */
async function requestsOnBroker(plan: Plan, brokers: string, clientId: string, prefix: string, idOf: (i: number) => string) {
  const { createKafka } = await import('../src/kafka/client.js');
  const { ensureTopics } = await import('../src/kafka/topics-admin.js');
  const { EventProducer } = await import('../src/kafka/producer.js');
  const { createLogger } = await import('../src/log.js');
  const { KafkaObservationSink } = await import('../src/producers/kafka-sink.js');
  const { topicNames } = await import('../src/topics.js');
  const log = createLogger('bench-probes', { level: 'warn' });
  const kafka = createKafka({ brokers, clientId, logger: log });
  await ensureTopics(kafka, prefix);
  const topics = topicNames(prefix);
  const producer = new EventProducer(kafka, { logger: log });
  await producer.connect();
  await new KafkaObservationSink(producer, topics).probeRequests(
    plan.probes.map((p, i) => ({
      id: idOf(i),
      observedAt: Date.now(),
      runId: 'bench',
      agentKey: p.url,
      agentId: `a${i}`,
      protocol: 'mcp',
      site: `s${p.site}.test`,
      targetUrl: p.url,
      transport: 'streamable-http',
      reason: 'sample',
      inSample: true,
    })),
  );
  return { kafka, topics, log, producer };
}

/**
 * The worker path: the plan's probes as ProbeRequest events on a probe-requests topic of the
 * broker (keyed by site, as the scheduler sends them), then the real ProbeWorker (the probe-worker
 * command's consumer group: its batches, its sink to the probes and documents topics, its commits)
 * with this engine, until every request's batch is committed. Producing the requests is done
 * before the clock starts; the worker's group join is inside it.
 */
async function workerPath(
  plan: Plan,
  engine: ProbeEngine,
  concurrency: number,
  onStart: (p: Probe) => void,
  record: (p: Probe, ev: ProbeEvent) => void,
): Promise<{ run: () => Promise<void> }> {
  const { deleteTopicsWithPrefix } = await import('../src/kafka/topics-admin.js');
  const { ProbeWorker } = await import('../src/producers/probe-worker.js');
  const byUrl = new Map(plan.probes.map((p) => [p.url, p]));
  // The engine the worker calls, seen from outside: when each probe starts and what it found.
  const probe = engine.probeWithDocuments.bind(engine);
  engine.probeWithDocuments = async (target) => {
    const p = byUrl.get(target.url)!;
    onStart(p);
    const kept = await probe(target);
    record(p, kept.probe);
    return kept;
  };
  const prefix = `bench-probes-${process.pid}.`;
  const { kafka, topics, log, producer } = await requestsOnBroker(
    plan,
    process.env.BENCH_BROKERS!,
    'bench-probes',
    prefix,
    (i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
  );
  const run = async (): Promise<void> => {
    let committed = 0;
    let resolveDone!: () => void;
    const done = new Promise<void>((r) => (resolveDone = r));
    const worker = new ProbeWorker({
      kafka,
      topics,
      engine,
      producer,
      logger: log,
      concurrency,
      groupId: `${prefix}workers`,
      maxWaitTimeInMs: 100,
      hooks: { afterCommit: (o) => void ((committed += o.ok + o.dlq + o.dropped) >= plan.probes.length && resolveDone()) },
    });
    try {
      await worker.start();
      await done;
      await worker.stop();
    } finally {
      await producer.close();
      await deleteTopicsWithPrefix(kafka, prefix).catch(() => undefined);
    }
  };
  return { run };
}

/** Milliseconds of CPU (user + system) a process has used, from /proc (USER_HZ ticks of 10 ms). */
function procCpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8')
    .replace(/^.*\) /s, '')
    .split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** A process's resident set (VmRSS) or its peak (VmHWM), in MB, from /proc. */
function procMemMb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

/**
 * The command path: the real `veronikai probe-worker --allow-loopback` (bin/veronikai.js, a process
 * of its own, with `--probe-concurrency` the pool size), its host names answered by
 * bench/_hosts-preload.mjs as /etc/hosts entries would. The requests go on the unprefixed
 * probe-requests topic of a broker started for this path alone (the command has no topic prefix,
 * so never a shared broker), with ids new for each size (the topics outlive a size; each command
 * commits its batches when stopped, so the next starts past them). The clock runs from the
 * command's "probe worker running" line (its group joined) to the arrival of the last request's
 * Probe event on the probes topic, read by a consumer of the bench's. Peak RSS (VmHWM) and CPU
 * are the command process's, from /proc before it is stopped with SIGINT. What only an engine in
 * the bench's own process shows (slots in flight, event-loop delay, heap) is not known here.
 */
async function commandPath(plan: Plan, window: number, brokers: string): Promise<ChildResult> {
  const { spawn } = await import('node:child_process');
  const { mkdtempSync, rmSync, writeFileSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const { eventCodec } = await import('../src/events/codec.js');
  const dir = mkdtempSync(join(tmpdir(), 'veronikai-bench-probes-command-'));
  const hostsFile = join(dir, 'hosts.json');
  const names: Record<string, string> = {};
  for (let h = 0; h < plan.hosts; h++) names[hostName(h, siteOfHost(h, plan.hosts, plan.bigSites))] = addressOf(h);
  writeFileSync(hostsFile, JSON.stringify(names));

  const size = `${plan.hosts}-${Date.now()}`;
  const idOf = (i: number): string => `bench-${size}-${i}`;
  const byId = new Map(plan.probes.map((p, i) => [idOf(i), p]));
  const { kafka, topics, producer } = await requestsOnBroker(plan, brokers, 'bench-probes-command', '', idOf);
  await producer.close();

  // The bench's reader of the probes topic: the clock stops at the last request's event.
  const codec = eventCodec();
  const seen = new Set<string>();
  let exSum = 0;
  let exN = 0;
  const unexpected: Record<string, number> = {};
  const statuses: Record<string, number> = {};
  let lastAt = 0;
  let allSeen!: () => void;
  const everyEvent = new Promise<void>((r) => (allSeen = r));
  const reader = kafka.consumer({ groupId: `bench-probes-reader-${size}`, maxWaitTimeInMs: 50 });
  await reader.connect();
  await reader.subscribe({ topics: [topics.probes], fromBeginning: true });
  await reader.run({
    eachMessage: async ({ message }) => {
      const ev = codec.decodeAs('Probe', message.value!);
      const id = ev.requestId ?? '';
      const p = byId.get(id);
      if (!p || seen.has(id)) return;
      seen.add(id);
      const get = ev.exchanges.find((e) => e.role === 'mcp-get') ?? ev.exchanges[0];
      if (get?.role === 'mcp-get' && p.kind !== 'silent') {
        exSum += get.durationMs;
        exN++;
      }
      const k = `${p.kind}→${get?.status ?? get?.errorClass ?? 'none'}`;
      statuses[k] = (statuses[k] ?? 0) + 1;
      if (ev.errorClass !== null || ev.robots !== 'allowed') {
        const u = `${ev.errorClass ?? 'ok'}/${ev.robots}`;
        unexpected[u] = (unexpected[u] ?? 0) + 1;
      }
      if (seen.size === byId.size) {
        lastAt = performance.now();
        allSeen();
      }
    },
  });

  const cmd = spawn(
    process.execPath,
    [CLI, 'probe-worker', '--allow-loopback', '--brokers', brokers, '--data-dir', dir, '--probe-concurrency', String(window)],
    {
      env: {
        ...process.env,
        NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import ${HOSTS_PRELOAD}`.trim(),
        BENCH_HOSTS_FILE: hostsFile,
        VERONIKAI_CANARY_URLS: '',
        LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  let err = '';
  cmd.stdout.on('data', (d: Buffer) => (out += d.toString()));
  cmd.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((r) => cmd.on('close', (code) => r(code)));
  const failed = exited.then((code) =>
    Promise.reject(new Error(`the probe-worker command exited (${code}) before the end\n${err.slice(-2000)}`)),
  );
  try {
    await Promise.race([failed, new Promise<void>((r) => cmd.stdout.on('data', () => /probe worker running/.test(out) && r()))]);
    const t0 = performance.now();
    const pid = cmd.pid!;
    const rssBeforeMb = procMemMb(pid, 'VmRSS');
    const cpu0 = procCpuMs(pid);
    await Promise.race([failed, everyEvent]);
    const cpuMs = procCpuMs(pid) - cpu0;
    const peakRssMb = procMemMb(pid, 'VmHWM');
    cmd.kill('SIGINT');
    const code = await exited;
    if (code !== 0) throw new Error(`the probe-worker command exited with ${code} on SIGINT\n${err.slice(-2000)}`);
    return {
      hosts: plan.hosts,
      sites: plan.sites,
      probes: plan.probes.length,
      wallMs: lastAt - t0,
      cpuMs,
      rssBeforeMb,
      peakRssMb,
      heapPeakMb: NaN,
      retainedMb: NaN,
      bigSiteInFlight: NaN,
      bigSiteInFlightEarly: NaN,
      lastSilentTakenMs: NaN,
      meanGetMs: exSum / Math.max(1, exN),
      loopDelayMeanMs: NaN,
      loopDelayP99Ms: NaN,
      unexpected,
      statuses,
    };
  } finally {
    if (cmd.exitCode === null) {
      cmd.kill('SIGKILL');
      await exited;
    }
    void failed.catch(() => undefined);
    await reader.disconnect();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function child(hosts: number, bigSites: number, port: number, window: number, via: Via): Promise<void> {
  const { ProbeEngine } = await import('../src/producers/probe/probe-agent.js');
  const plan = makePlan(hosts, bigSites, port);
  const engine = new ProbeEngine({
    contact: 'bench@veronikai.invalid',
    allowLoopback: true,
    // Every host name resolves to its own loopback address; the SSRF guard still checks it (loopback allowed).
    lookup: async (name) => [{ address: addressOf(hostIndex(name)), family: 4 }],
  });
  global.gc?.();
  const rssBeforeMb = process.memoryUsage().rss / 2 ** 20;
  let heapPeak = 0;
  const sampler = setInterval(() => (heapPeak = Math.max(heapPeak, process.memoryUsage().heapUsed)), 100);
  // How full the big sites' slots are kept: in flight per big site, sampled every 10 ms while the run lasts.
  const occSamples: Array<{ at: number; inflight: number }> = [];
  const occ = setInterval(() => {
    let n = 0;
    for (let s = 0; s < plan.bigSites; s++) n += engine.limiter.siteInFlight(`s${s}.test`);
    occSamples.push({ at: performance.now(), inflight: n / plan.bigSites });
  }, 10);
  let exSum = 0;
  let exN = 0;
  const unexpected: Record<string, number> = {};
  const statuses: Record<string, number> = {};
  const loop = monitorEventLoopDelay({ resolution: 5 });
  loop.enable();
  let next = 0;
  let lastSilentTakenMs = 0;
  let t0 = 0;
  const record = (p: Probe, ev: ProbeEvent): void => {
    const get = ev.exchanges.find((e) => e.role === 'mcp-get') ?? ev.exchanges[0];
    for (const e of ev.exchanges) {
      if (e.role === 'mcp-get' && p.kind !== 'silent') {
        exSum += e.durationMs;
        exN++;
      }
    }
    const s = `${p.kind}→${get?.status ?? get?.errorClass ?? 'none'}`;
    statuses[s] = (statuses[s] ?? 0) + 1;
    if (ev.errorClass !== null || ev.robots !== 'allowed') {
      const k = `${ev.errorClass ?? 'ok'}/${ev.robots}`;
      unexpected[k] = (unexpected[k] ?? 0) + 1;
    }
  };
  const taken = (p: Probe): void => {
    if (p.kind === 'silent') lastSilentTakenMs = performance.now() - t0;
  };
  // The worker path's requests go on the broker before the clock starts.
  const viaWorker = via === 'worker' ? await workerPath(plan, engine, window, taken, record) : null;
  const cpu0 = process.cpuUsage();
  t0 = performance.now();
  const worker = async (): Promise<void> => {
    while (next < plan.probes.length) {
      const p = plan.probes[next++]!;
      taken(p);
      const kept = await engine.probeWithDocuments({ protocol: 'mcp', url: p.url, runId: 'bench', transport: 'streamable-http' });
      record(p, kept.probe);
    }
  };
  if (viaWorker) await viaWorker.run();
  else await Promise.all(Array.from({ length: Math.min(window, plan.probes.length) }, worker));
  const wallMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  clearInterval(sampler);
  clearInterval(occ);
  loop.disable();
  const meanOf = (xs: Array<{ inflight: number }>): number => xs.reduce((a, x) => a + x.inflight, 0) / Math.max(1, xs.length);
  const early = occSamples.filter((x) => x.at - t0 <= 0.8 * wallMs);
  // What the engine still holds once the run is over (its caches), apart from garbage not yet collected.
  global.gc?.();
  const retainedMb = process.memoryUsage().heapUsed / 2 ** 20;
  const result: ChildResult = {
    hosts,
    sites: plan.sites,
    probes: plan.probes.length,
    wallMs,
    cpuMs: (cpu.user + cpu.system) / 1000,
    rssBeforeMb,
    peakRssMb: process.resourceUsage().maxRSS / 1024,
    heapPeakMb: heapPeak / 2 ** 20,
    retainedMb,
    unexpected,
    statuses,
    bigSiteInFlight: meanOf(occSamples),
    lastSilentTakenMs,
    bigSiteInFlightEarly: meanOf(early),
    meanGetMs: exSum / Math.max(1, exN),
    loopDelayP99Ms: loop.percentile(99) / 1e6,
    loopDelayMeanMs: loop.mean / 1e6,
  };
  process.send!(result);
}

// ---- the parent: the hosts ----

interface ServerCounts {
  robots: number;
  gets: number;
  metadata: number;
  /** TCP connections accepted (kept-alive connections serve several requests). */
  connections: number;
}

function startHosts(plan: () => Plan | null, counts: ServerCounts): Promise<{ port: number; close: () => Promise<void> }> {
  const answer = (req: IncomingMessage, res: ServerResponse): void => {
    const p = plan();
    const path = (req.url ?? '/').split('?')[0]!;
    const h = hostIndex(req.headers.host ?? '');
    if (path === '/robots.txt') {
      counts.robots++;
      if (p?.robots404.has(h)) {
        res.writeHead(404, { 'content-type': 'text/html' });
        return void res.end('<html><body><h1>404 Not Found</h1></body></html>');
      }
      res.writeHead(200, { 'content-type': 'text/plain' });
      return void res.end('User-agent: *\nDisallow: /admin/\nDisallow: /private/\n\nUser-agent: GPTBot\nDisallow: /\n');
    }
    if (path.startsWith('/.well-known/oauth-protected-resource')) {
      counts.metadata++;
      const resource = `http://${req.headers.host}${path.slice('/.well-known/oauth-protected-resource'.length)}`;
      res.writeHead(200, { 'content-type': 'application/json' });
      return void res.end(
        JSON.stringify({
          resource,
          authorization_servers: [`http://${req.headers.host}/`],
          bearer_methods_supported: ['header'],
          scopes_supported: ['mcp:tools'],
        }),
      );
    }
    counts.gets++;
    const kind = path.split('/')[1] as Kind;
    switch (kind) {
      case '401':
        res.writeHead(401, {
          'content-type': 'application/json',
          'www-authenticate': `Bearer error="invalid_token", resource_metadata="http://${req.headers.host}/.well-known/oauth-protected-resource${path}"`,
        });
        return void res.end('{"error":"invalid_token","error_description":"Missing or invalid access token"}');
      case 'sse':
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
        res.write(`event: endpoint\ndata: /messages?sessionId=${h}-${Date.now()}\n\n`);
        return; // kept open: the engine closes once it has the event
      case 'silent':
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
        res.write(': connected\n\n');
        return; // kept open and silent: the engine reads its body window and closes
      case '400':
        res.writeHead(400, { 'content-type': 'application/json' });
        return void res.end('{"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: No valid session ID provided"},"id":null}');
      case '406':
        res.writeHead(406, { 'content-type': 'application/json' });
        return void res.end(
          '{"jsonrpc":"2.0","error":{"code":-32000,"message":"Not Acceptable: Client must accept application/json"},"id":null}',
        );
      case '301':
        res.writeHead(301, { location: `https://${req.headers.host}${path}`, 'content-type': 'text/html' });
        return void res.end('<html><body>Moved</body></html>');
      case '404':
        res.writeHead(404, { 'content-type': 'text/html' });
        return void res.end(`<!DOCTYPE html><html><head><title>404</title></head><body>${'<p>Not found</p>'.repeat(20)}</body></html>`);
      default:
        res.writeHead(405, { 'content-type': 'application/json', allow: 'POST, DELETE' });
        return void res.end('{"jsonrpc":"2.0","error":{"code":-32000,"message":"Method not allowed."},"id":null}');
    }
  };
  const server = createServer({ keepAlive: false }, (req, res) => {
    req.resume();
    const t = setTimeout(() => answer(req, res), DELAY_MS);
    res.on('close', () => clearTimeout(t));
  });
  server.maxConnections = 100_000;
  server.on('connection', () => counts.connections++);
  return new Promise((resolve) => {
    // 0.0.0.0: every 127.x.y.z reaches it over lo.
    server.listen(0, '0.0.0.0', 8192, () =>
      resolve({
        port: (server.address() as AddressInfo).port,
        close: () =>
          new Promise<void>((r) => {
            server.closeAllConnections();
            server.close(() => r());
          }),
      }),
    );
  });
}

function runChild(hosts: number, bigSites: number, port: number, window: number, via: Via, brokers: string): Promise<ChildResult> {
  return new Promise((resolve, reject) => {
    const c: ChildProcess = fork(SELF, ['--child', String(hosts), String(bigSites), String(port), String(window), via], {
      env: { ...process.env, BENCH_BROKERS: brokers },
      execArgv: [
        ...process.execArgv,
        '--expose-gc',
        ...(process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : []),
      ],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    let result: ChildResult | null = null;
    c.on('message', (m) => (result = m as ChildResult));
    c.on('error', reject);
    c.on('exit', (code) => (result ? resolve(result) : reject(new Error(`engine process exited with ${code} and no result`))));
  });
}

async function parent(): Promise<void> {
  const sizes = (process.argv[2] ?? '500,1000,2000').split(',').map(Number);
  const bigSites = Number(process.argv[3] ?? 4);
  const window = Number(process.argv[4] ?? PROBE_WORKER_CONCURRENCY);
  const vias: Via[] = VIAS.includes(process.argv[5] as Via) ? [process.argv[5] as Via] : [...VIAS];
  let current: Plan | null = null;
  const counts: ServerCounts = { robots: 0, gets: 0, metadata: 0, connections: 0 };
  const srv = await startHosts(() => current, counts);
  const fmt = (x: number, d = 0): string => x.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });
  console.log(`VeronikAI probe engine benchmark: node ${process.version}; hosts answer after ${DELAY_MS} ms on 127.x.y.z:${srv.port}`);
  console.log(
    `limits: ${POLITENESS.perHostConcurrency} per host, ${POLITENESS.perSiteConcurrency} per site; ${bigSites} sites of many hosts and ${SINGLE_SHARE * 100}% of the hosts a site each; a pool of ${window} concurrent probes; MCP body window ${MCP_BODY_WINDOW_MS} ms`,
  );
  console.log(`mix of MCP GET answers: ${MIX.map((m) => `${m.kind} ${m.share}%`).join(', ')}`);
  console.log('');
  const rows: Array<{ via: Via; r: ChildResult; idealMs: number; idealEx: number; served: ServerCounts }> = [];
  const broker = vias.includes('worker') ? await brokerForRun() : null;
  // The command has no topic prefix: a broker of its own, never a shared one.
  const commandBroker = vias.includes('command') ? await brokerForRun(true) : null;
  try {
    for (const via of vias)
      for (const hosts of sizes) {
        current = makePlan(hosts, bigSites, srv.port);
        const ideal = idealMakespan(current);
        Object.assign(counts, { robots: 0, gets: 0, metadata: 0, connections: 0 });
        const pcpu0 = process.cpuUsage();
        const r =
          via === 'command'
            ? await commandPath(current, window, commandBroker!.brokers)
            : await runChild(hosts, bigSites, srv.port, window, via, broker?.brokers ?? '');
        const pcpu = process.cpuUsage(pcpu0);
        const serverCpuMs = (pcpu.user + pcpu.system) / 1000;
        const served = { ...counts };
        rows.push({ via, r, idealMs: ideal.ms, idealEx: ideal.exchanges, served });
        const achieved = r.probes / (r.wallMs / 1000);
        const idealRate = r.probes / (ideal.ms / 1000);
        const servedEx = served.robots + served.gets + served.metadata;
        console.log(
          `${VIA_NAMES[via]}: hosts ${fmt(hosts)} (sites ${r.sites}: ${bigSites} of ${fmt(Math.round((hosts * (1 - SINGLE_SHARE)) / bigSites))} hosts and ${fmt(r.sites - bigSites)} of one; probes ${fmt(r.probes)}): wall ${fmt(r.wallMs / 1000, 2)} s, ideal ${fmt(ideal.ms / 1000, 2)} s → ` +
            `achieved ${fmt(achieved)}/s, ideal ${fmt(idealRate)}/s, R ${(achieved / idealRate).toFixed(2)}`,
        );
        console.log(
          `  requests served ${fmt(servedEx)} (robots.txt ${fmt(served.robots)} for ${fmt(hosts)} hosts, GET ${fmt(served.gets)}, metadata ${fmt(served.metadata)}; ideal ${fmt(ideal.exchanges)}) over ${fmt(served.connections)} connections, ` +
            `${fmt(servedEx / (r.wallMs / 1000))} requests/s; engine CPU ${fmt(r.cpuMs / 1000, 2)} s (${fmt((r.cpuMs * 1000) / servedEx)} µs a request, ${fmt((100 * r.cpuMs) / r.wallMs)}% of one core); hosts' CPU ${fmt(serverCpuMs / 1000, 2)} s`,
        );
        if (via === 'command') {
          console.log(
            `  peak RSS ${fmt(r.peakRssMb)} MB (${fmt(r.rssBeforeMb)} MB when it started working); a GET took ${r.meanGetMs.toFixed(1)} ms on average (the host waits ${DELAY_MS}); load average ${loadavg()[0]!.toFixed(1)} on ${availableParallelism()} cores`,
          );
        } else {
          console.log(
            `  peak RSS ${fmt(r.peakRssMb)} MB (${fmt(r.rssBeforeMb)} MB before the first probe), peak heap ${fmt(r.heapPeakMb)} MB, heap retained after the run ${fmt(r.retainedMb)} MB`,
          );
          console.log(
            `  in flight per big site ${r.bigSiteInFlight.toFixed(2)} on average, ${r.bigSiteInFlightEarly.toFixed(2)} over the first 80% of the run (limit ${POLITENESS.perSiteConcurrency}); a GET took ${r.meanGetMs.toFixed(1)} ms on average (the host waits ${DELAY_MS}); engine event-loop delay mean ${r.loopDelayMeanMs.toFixed(1)} ms, p99 ${r.loopDelayP99Ms.toFixed(1)} ms; load average ${loadavg()[0]!.toFixed(1)} on ${availableParallelism()} cores`,
          );
        }
        // The same bound with the exchange time the engine measured: what is left is the schedule's own loss.
        const atMeasured = idealMakespan(current, r.meanGetMs);
        console.log(
          `  at the measured ${r.meanGetMs.toFixed(1)} ms an exchange the limits allow ${fmt(atMeasured.ms / 1000, 2)} s: schedule efficiency ${(atMeasured.ms / r.wallMs).toFixed(2)}; ` +
            `the rest of the gap is the time an exchange took beyond the host's ${DELAY_MS} ms`,
        );
        if (via !== 'command') {
          console.log(
            `  the last silent stream was taken from the list at ${fmt(r.lastSilentTakenMs / 1000, 2)} s, so the run lasts at least ${fmt((r.lastSilentTakenMs + MCP_BODY_WINDOW_MS) / 1000, 2)} s ` +
              `(probes are taken in arrival order by ${fmt(window)} lanes; the ideal may start every silent stream first)`,
          );
        }
        const odd = Object.entries(r.unexpected);
        if (odd.length > 0) console.log(`  probes without an answer: ${odd.map(([k, v]) => `${k} ${v}`).join(', ')}`);
      }
  } finally {
    await srv.close();
    await broker?.stop();
    await commandBroker?.stop();
  }
  // The headline is the real command when it ran; the other paths beside it.
  const ratio = (x: (typeof rows)[number]): number => x.idealMs / x.r.wallMs;
  const lastOf = (via: Via): (typeof rows)[number] | undefined => rows.filter((x) => x.via === via).at(-1);
  const last = lastOf('command') ?? lastOf('worker') ?? lastOf('engine')!;
  const others = VIAS.filter((v) => v !== last.via).flatMap((v) => (lastOf(v) ? [`${VIA_NAMES[v]} ${ratio(lastOf(v)!).toFixed(2)}`] : []));
  const achieved = last.r.probes / (last.r.wallMs / 1000);
  const idealRate = last.r.probes / (last.idealMs / 1000);
  const rss = rows
    .filter((x) => x.via === last.via)
    .map((x) => `${fmt(x.r.peakRssMb)} MB at ${fmt(x.r.hosts)}`)
    .join(', ');
  console.log('');
  console.log(
    `probes: achieved/ideal = ${ratio(last).toFixed(2)} (hosts ${last.r.hosts}, sites ${last.r.sites}, probes ${last.r.probes}, ${VIA_NAMES[last.via]}, ` +
      `achieved ${fmt(achieved)}/s, ideal ${fmt(idealRate)}/s, peak RSS ${rss}${others.length > 0 ? `; ${others.join(', ')}` : ''})`,
  );
}

/** VERONIKAI_KAFKA_BROKERS when set (unless `own`), else a local broker started for the run (the project's stack) and stopped at the end. */
async function brokerForRun(own = false): Promise<{ brokers: string; stop: () => Promise<void> }> {
  const given = process.env.VERONIKAI_KAFKA_BROKERS?.trim();
  if (given && !own) return { brokers: given, stop: async () => undefined };
  const { mkdtempSync, rmSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const { loadConfig } = await import('../src/config.js');
  const { createLogger } = await import('../src/log.js');
  const { freePort, startBroker } = await import('../src/stack/kafka/index.js');
  const dir = mkdtempSync(join(tmpdir(), 'veronikai-bench-probes-broker-'));
  const port = await freePort();
  const broker = await startBroker({
    dataDir: dir,
    cacheDir: loadConfig().cacheDir,
    port,
    controllerPort: await freePort([port]),
    logger: createLogger('bench-probes', { level: 'warn' }),
    heap: '1g',
  });
  return {
    brokers: broker.brokers,
    stop: async () => {
      await broker.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

if (process.argv[2] === '--child') {
  const [, , , hosts, bigSites, port, window, via] = process.argv;
  await child(Number(hosts), Number(bigSites), Number(port), Number(window), via as Via);
  process.exit(0);
} else {
  await parent();
}
