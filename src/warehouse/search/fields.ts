/**
 * What the search index reads of an agent (docs/SEARCH.md): its agents row, the server.json and
 * the items of its live listings, and its A2A card, cut into weighted fields. Pure: the index writer
 * and the relevance benchmark build documents with it alike. Every outside text is bounded here.
 */

/** The fields of a search document, with their BM25F weights in bm25f.ts. */
export const FIELD_NAMES = [
  'name',
  'title',
  'tags',
  'skills',
  'packages',
  'provider',
  'url',
  'description',
  'skillText',
  'examples',
] as const;
export type FieldName = (typeof FIELD_NAMES)[number];
export type Fields = Record<FieldName, string>;

/** Characters of one field read, at most; skills and list items read, at most. */
export const FIELD_CHARS_MAX = 8000;
export const ITEMS_MAX = 64;

export interface SearchSourceListing {
  source: string;
  /** The listing's server.json (MCP Registry shape), '' when none. */
  serverJson: string;
  /** The listing's raw item as the source served it ('' or cut: read what parses). */
  raw: string;
  transport: string;
}

export interface SearchSource {
  agentKey: string;
  protocol: string;
  name: string;
  description: string;
  listings: readonly SearchSourceListing[];
  /** The agent's A2A card (JSON text), null when none is known. */
  card: string | null;
}

export interface SearchDocument {
  fields: Fields;
  /** Display title ('' when the listing has none beside its name). */
  title: string;
  transports: string[];
  authRequired: boolean;
}

type Json = Record<string, unknown>;
const obj = (v: unknown): Json | null => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : null);
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v.slice(0, ITEMS_MAX) : []);
const str = (v: unknown): string => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '');
const strs = (v: unknown): string[] =>
  arr(v)
    .map(str)
    .filter((s) => s !== '');
function parse(text: string): Json | null {
  if (text === '' || text.length > 4 * FIELD_CHARS_MAX * ITEMS_MAX) return null;
  try {
    return obj(JSON.parse(text));
  } catch {
    return null;
  }
}
const join = (xs: readonly string[]) =>
  xs
    .filter((x) => x !== '')
    .join(' \n ')
    .slice(0, FIELD_CHARS_MAX);

/** The words of a URL worth searching: host labels and path segments, without the scheme. */
function urlWords(url: string): string {
  return url.replace(/^[a-z][a-z0-9+.-]*:\/\//i, '').replace(/[/.:_-]+/g, ' ');
}

/** Categories, tags and keywords a listing item carries (any of these names, at its top level or in its `server`). */
function labelsOf(item: Json | null): string[] {
  if (!item) return [];
  const out: string[] = [];
  for (const o of [item, obj(item.server)]) {
    if (!o) continue;
    for (const k of ['categories', 'category', 'tags', 'keywords', 'topics']) {
      const v = o[k];
      if (typeof v === 'string') out.push(v);
      else for (const x of arr(v)) out.push(str(x) || str(obj(x)?.name));
    }
  }
  return out;
}

export function searchDocument(src: SearchSource): SearchDocument {
  const titles: string[] = [];
  const descriptions = [src.description];
  const tags: string[] = [];
  const skills: string[] = [];
  const skillText: string[] = [];
  const examples: string[] = [];
  const provider: string[] = [];
  const packages: string[] = [];
  const transports = new Set<string>();
  let authRequired = false;

  for (const l of src.listings) {
    if (l.transport) transports.add(l.transport);
    const raw = parse(l.raw);
    tags.push(...labelsOf(raw));
    const sj = parse(l.serverJson) ?? obj(raw?.server);
    if (!sj) continue;
    titles.push(str(sj.title));
    descriptions.push(str(sj.description));
    provider.push(urlWords(str(obj(sj.repository)?.url)));
    packages.push(str(sj.name).replace(/[/.]+/g, ' '));
    for (const p of arr(sj.packages).map(obj)) {
      if (!p) continue;
      packages.push(str(p.identifier).replace(/[/.:@]+/g, ' '), str(p.registryType));
    }
    for (const r of arr(sj.remotes).map(obj)) {
      if (!r) continue;
      const type = str(r.type);
      if (type) transports.add(type);
      packages.push(type);
      if (arr(r.headers).some((h) => obj(h)?.isRequired === true || obj(h)?.isSecret === true)) authRequired = true;
    }
  }

  const card = src.card === null ? null : parse(src.card);
  if (card) {
    titles.push(str(card.name) !== src.name ? str(card.name) : '');
    descriptions.push(str(card.description));
    const prov = obj(card.provider);
    provider.push(str(prov?.organization), urlWords(str(prov?.url)));
    for (const s of arr(card.skills).map(obj)) {
      if (!s) continue;
      skills.push(str(s.name));
      skillText.push(str(s.description));
      tags.push(...strs(s.tags).map((t) => t.replace(/[-_]+/g, ' ')));
      examples.push(...strs(s.examples));
    }
    const pt = str(card.preferredTransport);
    if (pt) transports.add(pt);
    for (const i of arr(card.additionalInterfaces).map(obj)) if (str(i?.transport)) transports.add(str(i?.transport));
    if (arr(card.security).length > 0 || Object.keys(obj(card.securitySchemes) ?? {}).length > 0) authRequired = true;
  }

  const title = [...new Set(titles.filter((t) => t !== '' && t !== src.name))][0] ?? '';
  return {
    fields: {
      name: src.name.slice(0, FIELD_CHARS_MAX),
      title: join([...new Set(titles.filter((t) => t !== src.name))]),
      tags: join([...new Set(tags)]),
      skills: join(skills),
      packages: join([...new Set(packages)]),
      provider: join([...new Set(provider)]),
      url: urlWords(src.agentKey).slice(0, FIELD_CHARS_MAX),
      description: join([...new Set(descriptions)]),
      skillText: join(skillText),
      examples: join(examples),
    },
    title,
    transports: [...transports].map((t) => t.toLowerCase()).sort(),
    authRequired,
  };
}
