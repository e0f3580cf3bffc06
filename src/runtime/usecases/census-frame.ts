import { readFileSync } from 'node:fs';
import { UsageError, type Config } from '../../config.js';
import { structuralAnswer } from '../../conformance/index.js';
import { fetchBounded, type RequestGate } from '../../http/client.js';
import { CARD_MAX_BYTES } from '../../http/limits.js';
import type { Exchange } from '../../http/types.js';
import { AGENT_CARD_PATH, LEGACY_AGENT_CARD_PATH } from '../../producers/probe/a2a-chain.js';
import { ProbeEngine } from '../../producers/probe/probe-agent.js';
import { buildCensusReport, type CardInput, type CensusReport } from '../../stats/census-report.js';
import { jsonObjectOrNull } from '../../util/text.js';

/**
 * A census of a frame no registry lists: every host of a list is asked for its
 * card at BOTH well-known paths, `/.well-known/agent-card.json` and the pre-0.3
 * `/.well-known/agent.json` — unlike the seed's collection, which asked for the second only when
 * the first failed and so could not say how many hosts serve both. Politely, through the probe
 * engine's shared robots.txt cache and per-host limiter (one robots.txt fetch per origin, paced
 * requests, GET only, bounded reads, the SSRF guard), with the host-failure tracker of one run.
 * A card is a 200 whose body parses as a JSON object; the card judged for a host is the one at
 * the current path when there is one, else the legacy one. The frame itself (every host, path,
 * status, parsed) is returned so it can be published beside the report.
 */

export interface FrameRequest {
  host: string;
  path: string;
  url: string;
  status: number | null;
  errorClass: string | null;
  /** A 200 whose body parsed as a JSON object. */
  card: boolean;
}

export interface FrameCensus {
  hosts: number;
  requests: FrameRequest[];
  /** Hosts with a card at the current path, at the legacy one, at both, at either. */
  servingCurrent: number;
  servingLegacy: number;
  servingBoth: number;
  serving: number;
  report: CensusReport;
}

/** Hosts from a frame file: one a line (a host, host:port or URL; its origin is used); `#` comments; duplicates once; sorted. */
export function readFrameHosts(path: string): string[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new UsageError(`--frame: cannot read ${path}: ${(err as Error).message}`);
  }
  const origins = new Set<string>();
  for (const [i, raw] of text.split(/\r?\n/).entries()) {
    const line = raw.replace(/#.*$/, '').trim();
    if (line === '') continue;
    let url: URL;
    try {
      url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(line) ? line : `https://${line}`);
    } catch {
      throw new UsageError(`--frame ${path}:${i + 1}: not a host: "${line}"`);
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:')
      throw new UsageError(`--frame ${path}:${i + 1}: not an http(s) host: "${line}"`);
    origins.add(url.origin);
  }
  return [...origins].sort();
}

/** The probe engine's gate for one request: its robots.txt cache, then its limiter (as its own hops are gated). */
function politeGate(engine: ProbeEngine, runId: string): RequestGate {
  const tracker = engine.trackerFor(runId);
  return async (url) => {
    const limiterGate = engine.limiter.gate();
    const d = await engine.robots.check(url, { hostTracker: tracker, gate: limiterGate });
    if (!d.permitted) {
      return d.verdict === 'disallowed'
        ? { ok: false, errorClass: 'robots_disallowed', message: `robots.txt disallows ${url.pathname}` }
        : { ok: false, errorClass: 'robots_unreachable', message: `robots.txt of ${url.origin} unreachable: everything disallowed` };
    }
    return limiterGate(url);
  };
}

export interface FrameOptions {
  /** Loopback targets (tests and local servers); nothing else the guard refuses can be permitted. */
  allowLoopback?: boolean;
  /** Hosts probed at once (each host's own requests stay paced by the limiter). */
  concurrency?: number;
  timeoutMs?: number;
  day?: string;
}

export async function censusOfFrame(config: Config, hosts: readonly string[], opts: FrameOptions = {}): Promise<FrameCensus> {
  const policy = opts.allowLoopback ? { allowLoopback: true } : {};
  const engine = new ProbeEngine({ contact: config.contact, ...policy, ...(opts.timeoutMs ? { timeoutMs: opts.timeoutMs } : {}) });
  const runId = `frame-${Date.now()}`;
  const gate = politeGate(engine, runId);
  const requests: FrameRequest[] = [];
  const cards: CardInput[] = [];
  const perHost = new Map<string, { current: boolean; legacy: boolean }>();

  const probeHost = async (origin: string) => {
    const found: Record<string, Record<string, unknown> | null> = {};
    for (const path of [AGENT_CARD_PATH, LEGACY_AGENT_CARD_PATH]) {
      const url = new URL(path, origin).href;
      const res = await fetchBounded(url, {
        contact: config.contact,
        ...policy,
        accept: 'application/json',
        maxBytes: CARD_MAX_BYTES,
        overCap: 'error',
        gate,
        hostTracker: engine.trackerFor(runId),
        // The engine's connections: a host's robots.txt and both card paths share a connect.
        connections: engine.connections,
        ...(opts.timeoutMs ? { timeoutMs: opts.timeoutMs } : {}),
      });
      const final: Exchange = res.final;
      const doc = final.status === 200 && final.errorClass === null ? jsonObjectOrNull(final) : null;
      found[path] = doc;
      requests.push({ host: new URL(origin).host, path, url, status: final.status, errorClass: final.errorClass, card: doc !== null });
    }
    perHost.set(origin, { current: found[AGENT_CARD_PATH] != null, legacy: found[LEGACY_AGENT_CARD_PATH] != null });
    const doc = found[AGENT_CARD_PATH] ?? found[LEGACY_AGENT_CARD_PATH];
    if (doc) cards.push(cardInput(doc));
  };

  // A small pool: hosts differ, so their requests may overlap; one host's requests run in order.
  const queue = [...hosts];
  const workers = Array.from({ length: Math.max(1, opts.concurrency ?? 4) }, async () => {
    for (let origin = queue.shift(); origin !== undefined; origin = queue.shift()) await probeHost(origin);
  });
  await Promise.all(workers);
  requests.sort((a, b) => a.host.localeCompare(b.host) || a.path.localeCompare(b.path));

  const serving = [...perHost.values()];
  const report = buildCensusReport({
    day: opts.day ?? new Date().toISOString().slice(0, 10),
    checkerVersion: 'frame',
    cards,
    sourceSets: [],
    outcomes: [],
  });
  report.checkerVersion = 'this build (judged as fetched)';
  report.method = [
    `A census of a given frame: ${hosts.length} host(s), each asked for /.well-known/agent-card.json and /.well-known/agent.json (both paths, so hosts serving both are counted); a card is a 200 whose body is a JSON object, the current path's when a host serves both.`,
    "Every card of the frame is counted: its rates are the frame's own, not estimates of anything beyond it; the intervals show what they would be as a sample.",
    'Valid means required-field structural conformance against the attributed version (docs/CENSUS.md); route none: no recognised A2A claim, no verdict.',
    'Reachability is one request per path, now: a host behind an outage is absent, not failing.',
  ];
  return {
    hosts: hosts.length,
    requests,
    servingCurrent: serving.filter((h) => h.current).length,
    servingLegacy: serving.filter((h) => h.legacy).length,
    servingBoth: serving.filter((h) => h.current && h.legacy).length,
    serving: serving.filter((h) => h.current || h.legacy).length,
    // A frame is a census: every card is "in the sample", so the shares are the frame's own rates.
    report,
  };
}

/** One card's structural answer as the census reads it (the same judgement the index stores). */
export function cardInput(doc: unknown): CardInput {
  const a = structuralAnswer(doc);
  const v = a.strict?.violations ?? [];
  return {
    inSample: true,
    route: a.attribution.route,
    version: a.strict?.version ?? '',
    result: a.strict === null ? 'n/a' : a.strict.valid ? 'pass' : 'fail',
    tolerantValid: a.tolerantValid,
    altVersion: a.alternative?.version ?? '',
    altValid: a.alternative ? a.alternative.valid : null,
    pvWrongType: v.some((x) => x.kind === 'type' && x.pointer === '/protocolVersion'),
    tagItemType: v.some((x) => x.ruleId === 'A2A-STRUCT-003' && /^\/skills\/\d+\/tags\/\d+$/.test(x.pointer)),
    pvMissing: v.some((x) => x.kind === 'missing' && x.pointer === '/protocolVersion'),
  };
}
