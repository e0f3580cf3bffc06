/**
 * Real public agents for the search tests and the relevance benchmark, read from the shared corpus
 * (../shared/corpus: A2A cards, server.json files, MCP Registry items), never copied into the
 * repository. The labels are the skill tags the cards' own authors gave; they are held out of
 * the indexed text (`card` has its skills' tags removed), so a query built from a tag is judged by
 * what the agents say of themselves, not by the label.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { agentId } from '../../src/identity/agent-key.js';
import type { SearchSource } from '../../src/warehouse/search/fields.js';
import { indexAgents } from '../../src/warehouse/search/index-writer.js';
import type { Warehouse } from '../../src/warehouse/warehouse.js';
import { agentRow, documentRow, listingRow } from './warehouse-rows.js';

export const CORPUS = join(fileURLToPath(new URL('../..', import.meta.url)), '..', 'shared', 'corpus');

export interface CorpusAgent {
  /** A stable key made from the file name (corpus agents have no live endpoint). */
  key: string;
  protocol: 'a2a' | 'mcp';
  file: string;
  source: SearchSource;
  /** The card's skill tags, lowercased with '-' and '_' read as spaces (empty for MCP agents). */
  labels: string[];
}

type Json = Record<string, unknown>;
const isObj = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);
const str = (v: unknown) => (typeof v === 'string' ? v : '');
const keyOf = (kind: string, name: string) =>
  `https://${kind}-${name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .slice(0, 40)}-${createHash('sha256').update(name).digest('hex').slice(0, 8)}.corpus.example/`;

export const corpusMissing = (): string | null => (existsSync(CORPUS) ? null : `the shared corpus is not on this machine (${CORPUS})`);

/** Every corpus agent: cards (labels held out), server.json files, and the MCP Registry items. */
export function corpusAgents(): CorpusAgent[] {
  const out: CorpusAgent[] = [];
  const cards = join(CORPUS, 'a2a-cards');
  for (const f of readdirSync(cards).sort()) {
    const card = JSON.parse(readFileSync(join(cards, f), 'utf8')) as unknown;
    if (!isObj(card)) continue;
    const labels = new Set<string>();
    const skills = (Array.isArray(card.skills) ? card.skills : []).map((s) => {
      if (!isObj(s)) return s;
      for (const t of Array.isArray(s.tags) ? s.tags : [])
        if (typeof t === 'string') labels.add(t.toLowerCase().replace(/[-_]+/g, ' ').trim());
      const { tags: _held, ...rest } = s;
      return rest;
    });
    const key = keyOf('card', f.replace(/\.json$/, ''));
    out.push({
      key,
      protocol: 'a2a',
      file: `a2a-cards/${f}`,
      labels: [...labels].filter((l) => l !== ''),
      source: {
        agentKey: key,
        protocol: 'a2a',
        name: str(card.name) || f,
        description: str(card.description).slice(0, 500),
        listings: [],
        card: JSON.stringify({ ...card, skills }),
      },
    });
  }
  const sj = join(CORPUS, 'mcp-server-json');
  for (const f of readdirSync(sj).sort()) {
    const text = readFileSync(join(sj, f), 'utf8');
    const s = JSON.parse(text) as unknown;
    if (!isObj(s)) continue;
    const key = keyOf('server', f.replace(/\.json$/, ''));
    out.push({
      key,
      protocol: 'mcp',
      file: `mcp-server-json/${f}`,
      labels: [],
      source: {
        agentKey: key,
        protocol: 'mcp',
        name: str(s.name) || f,
        description: str(s.description).slice(0, 500),
        card: null,
        listings: [{ source: 'mcp-registry', serverJson: text, raw: '', transport: '' }],
      },
    });
  }
  const dump = JSON.parse(
    readFileSync(join(CORPUS, 'sources', 'mcp-registry', 'v0-servers-mirror-dump-first50-2025-12-12.json'), 'utf8'),
  ) as { servers: Array<{ server: Json }> };
  const seen = new Set<string>();
  for (const item of dump.servers) {
    const name = str(item.server.name);
    if (seen.has(name)) continue;
    seen.add(name);
    const key = keyOf('registry', name);
    out.push({
      key,
      protocol: 'mcp',
      file: `sources/mcp-registry#${name}`,
      labels: [],
      source: {
        agentKey: key,
        protocol: 'mcp',
        name,
        description: str(item.server.description).slice(0, 500),
        card: null,
        listings: [{ source: 'mcp-registry', serverJson: JSON.stringify(item.server), raw: JSON.stringify(item), transport: '' }],
      },
    });
  }
  return out;
}

/** Relevance queries: every label two or more cards carry, with the cards that carry it. */
export function labelQueries(agents: readonly CorpusAgent[], minAgents = 2): Array<{ q: string; relevant: Set<string> }> {
  const by = new Map<string, Set<string>>();
  for (const a of agents) for (const l of a.labels) by.set(l, (by.get(l) ?? new Set()).add(a.key));
  return [...by]
    .filter(([, s]) => s.size >= minAgents)
    .sort((a, b) => (a[0] < b[0] ? -1 : 1))
    .map(([q, relevant]) => ({ q, relevant }));
}

/** nDCG@k of a ranking (binary relevance). */
export function ndcgAt(k: number, ranked: readonly string[], relevant: ReadonlySet<string>): number {
  let dcg = 0;
  ranked.slice(0, k).forEach((key, i) => {
    if (relevant.has(key)) dcg += 1 / Math.log2(i + 2);
  });
  let ideal = 0;
  for (let i = 0; i < Math.min(k, relevant.size); i++) ideal += 1 / Math.log2(i + 2);
  return ideal === 0 ? 0 : dcg / ideal;
}

/**
 * Writes corpus agents into a warehouse as the processors would have (agents rows, listings, the
 * cards as documents) and indexes them with the index writer; returns the agents by key.
 */
export async function loadCorpus(wh: Warehouse, agents: readonly CorpusAgent[]): Promise<void> {
  const at = new Date();
  await wh.insert(
    'agents',
    agents.map((a) =>
      agentRow({
        agent_key: a.key,
        agent_id: agentId(a.key),
        protocol: a.protocol,
        name: a.source.name,
        description: a.source.description,
        sources: [...new Set(a.source.listings.map((l) => l.source))],
        first_seen: at,
      }),
    ),
  );
  const listings = agents.flatMap((a) =>
    a.source.listings.map((l) =>
      listingRow({
        agent_key: a.key,
        item_id: a.key,
        protocol: a.protocol,
        source: l.source,
        name: a.source.name,
        server_json: l.serverJson,
        raw: l.raw,
        endpoint_transport: l.transport,
      }),
    ),
  );
  if (listings.length > 0) await wh.insert('listings', listings);
  const cards = new Map<string, string>();
  const docs = agents
    .filter((a) => a.source.card !== null)
    .map((a) => {
      const text = a.source.card!;
      const sha = createHash('sha256').update(text).digest('hex');
      cards.set(a.key, sha);
      return documentRow({ sha256: sha, text, bytes: Buffer.byteLength(text), url: `${a.key}.well-known/agent-card.json` });
    });
  if (docs.length > 0) await wh.insert('documents', docs);
  await indexAgents(
    wh,
    agents.map((a) => a.key),
    cards,
  );
}
