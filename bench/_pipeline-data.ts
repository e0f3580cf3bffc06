/**
 * Synthetic probe history of realistic shape for bench/pipeline.ts: an index of A agents (about
 * two MCP servers to one A2A agent, on many hosts and sites), their listings (MCP agents with the
 * registry's server.json, personalised from the real documents in ../shared/corpus), and a daily
 * probe history over D days ending an hour ago, each day's probes spread over the day, every agent
 * revisited every few days as the scheduler does.
 *
 * Each probe is built as the probe worker observes it (whole bodies, every response header) and
 * then kept exactly as the worker keeps it (src/producers/probe/kept-bodies.ts keepProbe): judged
 * documents (A2A cards, RFC 9728 metadata) leave the event for the documents topic and the event
 * names them by hash; the MCP GET keeps its classification excerpt; nothing else keeps a body.
 * Agents behave as real ones do: most keep one behaviour (card served, 401 with OAuth metadata,
 * 405 to GET, an SSE stream, a JSON-RPC error, a 404 page, a dead host), a few fail now and then,
 * and some A2A agents change their card once during the period.
 */
import { createHash, randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DocumentEvent, ListingEvent, ProbeEvent, ProbeExchange } from '../src/events/types.js';
import { agentKey } from '../src/identity/agent-key.js';
import { keepProbe } from '../src/producers/probe/kept-bodies.js';

const DAY_MS = 86_400_000;

/** A small deterministic generator (mulberry32), so every run builds the same history. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type McpBehaviour = 'oauth' | 'method-not-allowed' | 'sse' | 'jsonrpc-error' | 'not-found' | 'server-error' | 'dead';
type A2ABehaviour = 'card' | 'legacy-card' | 'redirect-card' | 'not-found' | 'html' | 'dead';

/** Shares of behaviours (they sum to 1), roughly as the indexes show them. */
const MCP_MIX: Array<[McpBehaviour, number]> = [
  ['oauth', 0.38],
  ['method-not-allowed', 0.2],
  ['sse', 0.1],
  ['jsonrpc-error', 0.1],
  ['not-found', 0.08],
  ['server-error', 0.04],
  ['dead', 0.1],
];
const A2A_MIX: Array<[A2ABehaviour, number]> = [
  ['card', 0.58],
  ['legacy-card', 0.08],
  ['redirect-card', 0.06],
  ['not-found', 0.1],
  ['html', 0.06],
  ['dead', 0.12],
];
const HOSTING = ['vercel.app', 'onrender.com', 'workers.dev', 'hf.space', 'fly.dev', 'railway.app', 'azurewebsites.net', 'run.app'];
const DEAD_CLASSES = ['timeout', 'refused', 'dns', 'tls', 'reset'];

function pick<T>(mix: Array<[T, number]>, x: number): T {
  let acc = 0;
  for (const [v, p] of mix) if (x < (acc += p)) return v;
  return mix[mix.length - 1]![0];
}

export interface Agent {
  index: number;
  protocol: 'a2a' | 'mcp';
  key: string;
  host: string;
  url: string;
  transport: 'streamable-http' | 'sse' | null;
  behaviour: McpBehaviour | A2ABehaviour;
  /** A2A: the card texts (a second one when the card changes during the period); MCP oauth: the metadata text. */
  documents: string[];
  /** A2A: the day the card changes (Infinity: never). */
  changeDay: number;
}

export interface Corpus {
  cards: string[];
  serverJsons: string[];
  source: string;
}

export function loadCorpus(root: string): Corpus {
  const shared = join(root, '..', 'shared', 'corpus');
  const read = (dir: string) =>
    existsSync(dir)
      ? readdirSync(dir)
          .filter((f) => f.endsWith('.json'))
          .sort()
          .map((f) => readFileSync(join(dir, f), 'utf8'))
      : [];
  let cards = read(join(shared, 'a2a-cards'));
  let serverJsons = read(join(shared, 'mcp-server-json'));
  let source = `../shared/corpus (${cards.length} real A2A cards, ${serverJsons.length} real server.json)`;
  if (cards.length === 0 || serverJsons.length === 0) {
    cards = read(join(root, 'test', 'fixtures', 'conformance', 'a2a')).filter((t) => t.includes('"name"'));
    serverJsons = [
      JSON.stringify({
        $schema: 'https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json',
        name: 'io.github.x/y',
        description: 'A server.',
        version: '1.0.0',
      }),
    ];
    source = `test/fixtures (the shared corpus is missing: ${cards.length} cards)`;
  }
  return { cards, serverJsons, source };
}

/** A corpus card made this agent's own: its URL and name (so every agent's card has its own hash). Texts that are not JSON objects stay as they are. */
function personalCard(text: string, url: string, i: number, revision: number): string {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    return text;
  }
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) return text;
  const card = doc as Record<string, unknown>;
  card.url = url;
  if (typeof card.name === 'string') card.name = `${card.name} #${i}`;
  if (revision > 0) card.version = `${typeof card.version === 'string' ? card.version : '1.0.0'}-r${revision}`;
  return JSON.stringify(card, null, 2);
}

function personalServerJson(text: string, name: string, url: string, transport: string): string {
  try {
    const doc = JSON.parse(text) as Record<string, unknown>;
    doc.name = name;
    doc.remotes = [{ type: transport, url }];
    return JSON.stringify(doc);
  } catch {
    return text;
  }
}

export interface Index {
  agents: Agent[];
  listings: ListingEvent[];
}

/** The agents and their listings (one per agent, observed before the history starts). */
export function buildIndex(count: number, corpus: Corpus, days: number, start: number): Index {
  const r = rng(15);
  const agents: Agent[] = [];
  const listings: ListingEvent[] = [];
  for (let i = 0; i < count; i++) {
    const protocol = i % 3 === 0 ? 'a2a' : 'mcp';
    const site = r() < 0.35 ? `${i.toString(36)}-agent.${HOSTING[i % HOSTING.length]}` : `site-${Math.floor(i / 4)}.example-${i % 211}.dev`;
    const host = protocol === 'mcp' ? (r() < 0.5 ? `mcp.${site}` : site) : r() < 0.5 ? `agent.${site}` : site;
    if (protocol === 'mcp') {
      const behaviour = pick(MCP_MIX, r());
      const transport = behaviour === 'sse' || r() < 0.08 ? 'sse' : 'streamable-http';
      const url = `https://${host}${transport === 'sse' ? '/sse' : '/mcp'}`;
      const key = agentKey('mcp', { endpointUrl: url })!;
      const documents =
        behaviour === 'oauth'
          ? [
              JSON.stringify({
                resource: url,
                authorization_servers: [`https://auth.${site}`],
                bearer_methods_supported: ['header'],
                scopes_supported: ['mcp:tools', 'mcp:resources'],
                resource_name: `MCP server ${i}`,
              }),
            ]
          : [];
      agents.push({ index: i, protocol, key, host, url, transport, behaviour, documents, changeDay: Infinity });
      const name = `io.github.owner-${i % 9973}/server-${i}`;
      const serverJson = personalServerJson(corpus.serverJsons[i % corpus.serverJsons.length]!, name, url, transport);
      listings.push({
        id: randomUUID(),
        observedAt: start - DAY_MS + i,
        runId: 'bench-crawl',
        fetchId: 'bench-fetch',
        source: 'mcp-registry',
        itemId: name,
        protocol,
        name,
        description: `Synthetic MCP server ${i}`,
        version: '1.0.0',
        endpointUrl: url,
        endpointTransport: transport,
        cardUrl: null,
        serverJson,
        status: 'active',
        invalidReason: null,
        updatedAt: new Date(start - 2 * DAY_MS).toISOString(),
        raw: serverJson,
        rawTruncated: false,
      });
    } else {
      const behaviour = pick(A2A_MIX, r());
      const url = `https://${host}`;
      const cardUrl = `${url}/.well-known/agent-card.json`;
      const key = agentKey('a2a', { cardUrl })!;
      const base = corpus.cards[i % corpus.cards.length]!;
      const changes = r() < 0.1;
      const documents = [personalCard(base, url, i, 0), ...(changes ? [personalCard(base, url, i, 1)] : [])];
      agents.push({
        index: i,
        protocol,
        key,
        host,
        url,
        transport: null,
        behaviour,
        documents,
        changeDay: changes ? Math.floor(r() * days) : Infinity,
      });
      listings.push({
        id: randomUUID(),
        observedAt: start - DAY_MS + i,
        runId: 'bench-crawl',
        fetchId: 'bench-fetch',
        source: 'a2a-registry',
        itemId: `agent-${i}`,
        protocol,
        name: `Agent ${i}`,
        description: `Synthetic A2A agent ${i}`,
        version: null,
        endpointUrl: null,
        endpointTransport: null,
        cardUrl,
        serverJson: null,
        status: 'active',
        invalidReason: null,
        updatedAt: null,
        raw: JSON.stringify({ id: `agent-${i}`, card_url: cardUrl }),
        rawTruncated: false,
      });
    }
  }
  return { agents, listings };
}

// ---- one probe as observed ----

const COMMON_HEADERS = (ct: string, len: number): Record<string, string> => ({
  'content-type': ct,
  'content-length': String(len),
  date: 'Thu, 01 Jan 2026 00:00:00 GMT',
  server: 'cloudflare',
  'cache-control': 'no-store',
  vary: 'Accept-Encoding',
  'cf-ray': '8f0e1d2c3b4a5968-FRA',
});
const NOT_FOUND_PAGE = `<!DOCTYPE html><html><head><title>404 Not Found</title></head><body><h1>Not Found</h1><p>The requested URL was not found on this server.</p>${' '.repeat(600)}</body></html>`;
const ERROR_PAGE =
  '<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx</center></body></html>';
const APP_PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Agent</title><script src="/assets/index.js"></script></head><body><div id="root"></div>${'<!-- app shell -->'.repeat(80)}</body></html>`;
const JSONRPC_ERROR = '{"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: No valid session ID provided"},"id":null}';
const SSE_OPEN = 'event: endpoint\ndata: /messages/?session_id=6f1c2a0e9b8d4c7fa3e2d1c0b9a8f7e6\n\n: ping - 2026-01-01 00:00:00\n\n';

function ex(
  role: string,
  url: string,
  status: number | null,
  body: string,
  headers: Record<string, string>,
  errorClass: string | null = null,
): ProbeExchange {
  const b = Buffer.from(body);
  return {
    role,
    url,
    status,
    headers,
    body: b,
    bodyTruncated: false,
    bodyBytes: b.length,
    bodySha256: createHash('sha256').update(b).digest('hex'),
    bodyKept: 'whole',
    remoteAddress: status === null ? null : '203.0.113.7',
    startedAt: 0,
    durationMs: 0,
    errorClass,
    errorMessage: errorClass ? `${errorClass} while connecting` : null,
    retries: errorClass ? 1 : 0,
  };
}

const dead = (role: string, url: string, cls: string) => ex(role, url, null, '', {}, cls);

function mcpExchanges(a: Agent, b: McpBehaviour, cls: string): ProbeExchange[] {
  const url = a.url;
  switch (b) {
    case 'oauth': {
      const meta = `https://${a.host}/.well-known/oauth-protected-resource${new URL(url).pathname}`;
      return [
        ex('mcp-get', url, 401, '{"error":"invalid_token","error_description":"Missing or invalid access token"}', {
          ...COMMON_HEADERS('application/json', 80),
          'www-authenticate': `Bearer error="invalid_token", resource_metadata="${meta}"`,
        }),
        ex('resource-metadata', meta, 200, a.documents[0]!, COMMON_HEADERS('application/json', a.documents[0]!.length)),
      ];
    }
    case 'method-not-allowed':
      return [ex('mcp-get', url, 405, 'Method Not Allowed', { ...COMMON_HEADERS('text/plain', 18), allow: 'POST, DELETE' })];
    case 'sse':
      return [
        ex('mcp-get', url, 200, SSE_OPEN, {
          ...COMMON_HEADERS('text/event-stream', 0),
          'cache-control': 'no-cache',
          connection: 'keep-alive',
        }),
      ];
    case 'jsonrpc-error':
      return [
        ex('mcp-get', url, 400, JSONRPC_ERROR, { ...COMMON_HEADERS('application/json', JSONRPC_ERROR.length), 'mcp-session-id': '' }),
      ];
    case 'not-found':
      return [ex('mcp-get', url, 404, NOT_FOUND_PAGE, COMMON_HEADERS('text/html; charset=utf-8', NOT_FOUND_PAGE.length))];
    case 'server-error':
      return [ex('mcp-get', url, 502, ERROR_PAGE, COMMON_HEADERS('text/html', ERROR_PAGE.length))];
    case 'dead':
      return [dead('mcp-get', url, cls)];
  }
}

function a2aExchanges(a: Agent, b: A2ABehaviour, card: string, cls: string): ProbeExchange[] {
  const cardUrl = `${a.url}/.well-known/agent-card.json`;
  const legacy = `${a.url}/.well-known/agent.json`;
  const json = (u: string, role = 'card') =>
    ex(role, u, 200, card, {
      ...COMMON_HEADERS('application/json', card.length),
      etag: `"${a.index.toString(16)}"`,
      'last-modified': 'Wed, 31 Dec 2025 12:00:00 GMT',
    });
  const notFound = (role: string, u: string) =>
    ex(role, u, 404, NOT_FOUND_PAGE, COMMON_HEADERS('text/html; charset=utf-8', NOT_FOUND_PAGE.length));
  switch (b) {
    case 'card':
      return [json(cardUrl)];
    case 'legacy-card':
      return [notFound('card', cardUrl), json(legacy, 'legacy')];
    case 'redirect-card': {
      const www = cardUrl.replace('https://', 'https://www.');
      return [ex('redirect', cardUrl, 301, '', { ...COMMON_HEADERS('text/html', 0), location: www }), json(www)];
    }
    case 'not-found':
      return [notFound('card', cardUrl), notFound('legacy', legacy)];
    case 'html':
      return [ex('card', cardUrl, 200, APP_PAGE, COMMON_HEADERS('text/html; charset=utf-8', APP_PAGE.length)), notFound('legacy', legacy)];
    case 'dead':
      return [dead('card', cardUrl, cls)];
  }
}

/**
 * The kept probe of agent `a` with one behaviour: built once per (agent, behaviour, card
 * revision) and reused (keepProbe parses and hashes every document, the costly part).
 */
class KeptCache {
  private readonly cache = new Map<string, { exchanges: ProbeExchange[]; documents: DocumentEvent[] }>();
  get(
    a: Agent,
    behaviour: string,
    revision: number,
    cls: string,
    observedAt: number,
    epoch = 0,
  ): { exchanges: ProbeExchange[]; documents: DocumentEvent[]; fresh: boolean } {
    const id = `${a.index}|${behaviour}|${revision}|${cls}|${epoch}`;
    const hit = this.cache.get(id);
    if (hit) return { ...hit, fresh: false };
    const built =
      a.protocol === 'mcp'
        ? mcpExchanges(a, behaviour as McpBehaviour, cls)
        : a2aExchanges(a, behaviour as A2ABehaviour, a.documents[revision] ?? a.documents[0]!, cls);
    // A later epoch answers with another content type parameter (a judged header), and an exchange
    // that had no answer was asked at another URL (a query parameter): either way another input to judge.
    const exchanges =
      epoch === 0
        ? built
        : built.map((e) =>
            e.headers['content-type']
              ? { ...e, headers: { ...e.headers, 'content-type': `${e.headers['content-type']}; epoch=${epoch}` } }
              : e.status === null
                ? { ...e, url: `${e.url}?epoch=${epoch}` }
                : e,
          );
    const kept = keepProbe({
      id: '',
      observedAt,
      runId: '',
      requestId: null,
      agentKey: a.key,
      protocol: a.protocol,
      targetUrl: a.url,
      transport: a.transport,
      inSample: true,
      exchanges,
      robots: 'allowed',
      canary: 'ok',
      errorClass: null,
      retries: 0,
    });
    const entry = { exchanges: kept.probe.exchanges, documents: kept.documents };
    this.cache.set(id, entry);
    return { ...entry, fresh: true };
  }
}

export interface ProbeChunk {
  probes: ProbeEvent[];
  /** Documents not named by an earlier chunk (produced before the chunk's probes, as the worker does). */
  documents: DocumentEvent[];
}

/**
 * The probe history: `total` probes over `days` days from `start`, in time order, `chunk` at a
 * time. Each day probes the next slice of the agents (every agent every agents/perDay days).
 * `epochs` cuts the days into that many spans in which every agent's judged inputs differ (its
 * content type, or the URL of an exchange that had no answer, carries the span's number): more
 * distinct inputs for the same number of events, up to one per event once a span is no longer
 * than the time between an agent's probes.
 */
export function* probeHistory(index: Index, total: number, days: number, start: number, chunk: number, epochs = 1): Generator<ProbeChunk> {
  const r = rng(1515);
  const cache = new KeptCache();
  const perDay = Math.ceil(total / days);
  const agents = index.agents;
  let made = 0;
  let cursor = 0;
  let probes: ProbeEvent[] = [];
  let documents: DocumentEvent[] = [];
  for (let d = 0; d < days && made < total; d++) {
    const dayStart = start + d * DAY_MS;
    const runId = `daily-${new Date(dayStart).toISOString().slice(0, 10)}`;
    const today = Math.min(perDay, total - made);
    for (let j = 0; j < today; j++, made++) {
      const a = agents[cursor++ % agents.length]!;
      const observedAt = dayStart + Math.floor((j / today) * (DAY_MS - 60_000)) + Math.floor(r() * 1000);
      // Now and then an agent behaves unlike itself: a dead one answers, a live one times out.
      const x = r();
      let behaviour: string = a.behaviour;
      if (a.behaviour === 'dead' && x < 0.05) behaviour = a.protocol === 'mcp' ? 'method-not-allowed' : 'not-found';
      else if (a.behaviour !== 'dead' && x < 0.03) behaviour = 'dead';
      else if (a.behaviour !== 'dead' && x < 0.04) behaviour = a.protocol === 'mcp' ? 'server-error' : 'not-found';
      // A dead agent fails the same way each time; a live one that fails now and then, any way
      // (drawn for every probe, so the generator's later draws do not depend on the agent).
      const anyClass = DEAD_CLASSES[Math.floor(r() * DEAD_CLASSES.length)]!;
      const cls = a.behaviour === 'dead' ? DEAD_CLASSES[a.index % DEAD_CLASSES.length]! : anyClass;
      const revision = d >= a.changeDay ? 1 : 0;
      const kept = cache.get(a, behaviour, revision, behaviour === 'dead' ? cls : '', observedAt, Math.floor((d * epochs) / days));
      if (kept.fresh) documents.push(...kept.documents);
      let t = observedAt;
      const exchanges = kept.exchanges.map((e) => {
        const durationMs =
          e.status === null ? (e.errorClass === 'timeout' ? 10_000 : 20 + Math.floor(r() * 200)) : 40 + Math.floor(r() * r() * 1500);
        const out = { ...e, startedAt: t, durationMs };
        t += durationMs;
        return out;
      });
      const dead = exchanges.every((e) => e.status === null);
      probes.push({
        id: randomUUID(),
        observedAt,
        runId,
        requestId: randomUUID(),
        agentKey: a.key,
        protocol: a.protocol,
        targetUrl: exchanges[0]!.url,
        transport: a.transport,
        inSample: r() < 0.8,
        exchanges,
        robots: 'allowed',
        canary: 'ok',
        errorClass: dead ? exchanges[0]!.errorClass : null,
        retries: 0,
      });
      if (probes.length >= chunk) {
        yield { probes, documents };
        probes = [];
        documents = [];
      }
    }
  }
  if (probes.length > 0 || documents.length > 0) yield { probes, documents };
}
