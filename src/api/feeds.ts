import { Feed } from 'feed';
import type { AgentChangeRow } from '../warehouse/rows.js';
import { xmlChars } from '../core/xml.js';
import { escapeHtml } from './dashboard.js';
import { isoTime } from './format.js';

/**
 * The change feeds: Atom 1.0 (RFC 4287, written by the `feed` package) and JSON Feed
 * 1.1, of the ecosystem or of one agent, from agent_changes rows (newest first, as
 * `agentChanges` reads them). Pure: the same rows and base URL give the same bytes, so the
 * routes' ETags hold until a change arrives.
 *
 * - An entry's id is a tag URI (RFC 4151) of the change id, which is a function of the change's
 *   cause: a change derived or delivered twice is one entry, and a reader never sees it twice.
 *   The tagging authority is fixed, not the host the API is reached at, so ids survive a move.
 * - Titles and content are HTML (`type="html"`, `content_html`) built here with every value
 *   escaped: a hostile agent name is text in every reader. Characters XML cannot carry are
 *   removed first, so no data can make the Atom document ill-formed.
 * - The feed's `updated` is its newest entry's time, or the epoch when it has none (never "now").
 *
 * The `feed` package (6.0.0) writes JSON Feed 1.0 only (its version string and the 1.0 `author`
 * field are fixed), so the JSON Feed 1.1 object is built here; JSON.stringify escapes it.
 */

/** Entries per feed: the newest changes (readers poll; older ones are on the agent pages and in the table). */
export const FEED_LIMIT = 50;
/** A feed with no entries was last updated at the epoch, so its bytes (and ETag) do not move with the clock. */
export const FEED_EPOCH = new Date(0);
/** The tag URI prefix of feed and entry ids. */
export const FEED_TAG = 'tag:veronikai.invalid,2026:';
export const JSON_FEED_VERSION = 'https://jsonfeed.org/version/1.1';
const AUTHOR = 'VeronikAI';

export type FeedScope = { kind: 'ecosystem' } | { kind: 'agent'; id: string; name: string };

export interface FeedContext {
  /** `https://host[:port]`, no trailing slash: links are absolute. */
  baseUrl: string;
  scope: FeedScope;
}

export const changeEntryId = (changeId: string): string => `${FEED_TAG}change:${changeId}`;
export const agentPageUrl = (baseUrl: string, agentId: string): string => `${baseUrl}/agents/${encodeURIComponent(agentId)}`;

/** Feed paths, relative to the base URL. */
export const FEED_PATHS = {
  atom: '/feed.atom',
  json: '/feed.json',
  agentAtom: (id: string) => `/agents/${encodeURIComponent(id)}/feed.atom`,
} as const;

const clean = (s: string | null | undefined): string => xmlChars(s ?? '');

function feedMeta(ctx: FeedContext) {
  const { baseUrl, scope } = ctx;
  if (scope.kind === 'agent') {
    const name = clean(scope.name) || scope.id;
    return {
      id: `${FEED_TAG}agent:${scope.id}:changes`,
      title: `VeronikAI: changes of ${name}`,
      description: `Changes of the agent ${name}: went down, came back up, verdict changed, listed, delisted, corrected after a dispute.`,
      home: agentPageUrl(baseUrl, scope.id),
      atom: `${baseUrl}${FEED_PATHS.agentAtom(scope.id)}`,
      json: null,
    };
  }
  return {
    id: `${FEED_TAG}changes`,
    title: 'VeronikAI: agent changes',
    description:
      'Changes of the public AI agents VeronikAI indexes: went down, came back up, verdict changed, listed, delisted, corrected after a dispute.',
    home: `${baseUrl}/`,
    atom: `${baseUrl}${FEED_PATHS.atom}`,
    json: `${baseUrl}${FEED_PATHS.json}`,
  };
}

const observed = (row: AgentChangeRow): Date => new Date(isoTime(row.observed_at) ?? 0);
const newest = (rows: readonly AgentChangeRow[]): Date =>
  rows.length > 0 ? new Date(Math.max(...rows.map((r) => observed(r).getTime()))) : FEED_EPOCH;

/** The entry's title as text: the change's one sentence, or its kind and agent when it has none. */
export function changeTitle(row: AgentChangeRow): string {
  return clean(row.summary) || `${clean(row.name) || row.agent_id}: ${row.kind}`;
}

const STATE_LABEL: Record<AgentChangeRow['kind'], string> = {
  down: 'State',
  up: 'State',
  verdict: 'Verdict',
  listed: 'Listing',
  delisted: 'Listing',
  corrected: 'Verdict after the re-probe',
};
const REASONS_LABEL: Record<AgentChangeRow['kind'], string> = {
  down: 'Error',
  up: 'Details',
  verdict: 'Failing rules',
  listed: 'Details',
  delisted: 'Details',
  corrected: 'Outcome of the dispute',
};

/** An entry's content as HTML: what changed (from → to), why, and where to read more; every value escaped. */
export function changeContentHtml(row: AgentChangeRow, baseUrl: string): string {
  const h = (v: string) => escapeHtml(clean(v));
  const parts = [
    `<p>${h(changeTitle(row))}</p>`,
    `<p>${h(STATE_LABEL[row.kind] ?? 'State')}: <strong>${h(row.from_state ?? 'none')}</strong> → <strong>${h(row.to_state ?? 'none')}</strong>` +
      (row.kind === 'corrected' ? ` (${row.from_state === row.to_state ? 'unchanged' : 'changed'})` : '') +
      '</p>',
  ];
  const reasons = (row.reasons ?? []).map(clean).filter(Boolean);
  if (reasons.length > 0)
    parts.push(`<p>${h(REASONS_LABEL[row.kind] ?? 'Details')}:</p><ul>${reasons.map((r) => `<li>${h(r)}</li>`).join('')}</ul>`);
  const meta = [`agent ${h(clean(row.name) || row.agent_id)} (${h(row.protocol)})`, `observed ${h(isoTime(row.observed_at) ?? '')}`];
  if (row.checker_version) meta.push(`checker ${h(row.checker_version)}`);
  parts.push(`<p>${meta.join(' · ')} · <a href="${h(agentPageUrl(baseUrl, row.agent_id))}">agent page</a></p>`);
  return parts.join('');
}

/**
 * Plain text for an element the package writes as text (the feed's title and subtitle): its XML
 * writer (xml-js) first turns every '&amp;' back into '&' and then escapes, so a name holding the
 * text "&amp;" would lose it; with every '&' written as '&amp;' here, that first step undoes exactly
 * this and the reader gets the text as it was.
 */
const xmlJsText = (s: string): string => clean(s).replace(/&/g, '&amp;');

/** The feed as an Atom 1.0 document. */
export function atomFeed(rows: readonly AgentChangeRow[], ctx: FeedContext): string {
  const meta = feedMeta(ctx);
  const feed = new Feed({
    id: meta.id,
    title: xmlJsText(meta.title),
    description: xmlJsText(meta.description),
    link: meta.home,
    feedLinks: { atom: meta.atom },
    updated: newest(rows),
    generator: AUTHOR,
    language: 'en',
    author: { name: AUTHOR, link: `${ctx.baseUrl}/` },
  });
  for (const row of rows) {
    const at = observed(row);
    feed.addItem({
      id: changeEntryId(row.change_id),
      // The package writes titles as type="html" (CDATA): escaped here, a title is text. Escaping
      // also removes every '>' and so any ']]>' that would end the CDATA section early.
      title: escapeHtml(changeTitle(row)),
      link: agentPageUrl(ctx.baseUrl, row.agent_id),
      date: at,
      published: at,
      content: changeContentHtml(row, ctx.baseUrl),
      category: [{ term: row.kind }],
    });
  }
  return feed.atom1();
}

export interface JsonFeedItem {
  id: string;
  url: string;
  title: string;
  content_html: string;
  date_published: string;
  date_modified: string;
  tags: string[];
  /** The change as data, for programs (a JSON Feed extension: its name starts with an underscore). */
  _veronikai: {
    kind: AgentChangeRow['kind'];
    change_id: string;
    agent_id: string;
    protocol: string;
    name: string;
    checker_version: string | null;
    from: string | null;
    to: string | null;
    reasons: string[];
  };
}

export interface JsonFeed {
  version: typeof JSON_FEED_VERSION;
  title: string;
  home_page_url: string;
  feed_url: string;
  description: string;
  language: string;
  authors: Array<{ name: string; url: string }>;
  items: JsonFeedItem[];
}

/** The ecosystem feed as a JSON Feed 1.1 object. */
export function jsonFeed(rows: readonly AgentChangeRow[], ctx: FeedContext): JsonFeed {
  const meta = feedMeta(ctx);
  return {
    version: JSON_FEED_VERSION,
    title: meta.title,
    home_page_url: meta.home,
    feed_url: meta.json ?? meta.atom,
    description: meta.description,
    language: 'en',
    authors: [{ name: AUTHOR, url: `${ctx.baseUrl}/` }],
    items: rows.map((row) => {
      const at = observed(row).toISOString();
      return {
        id: changeEntryId(row.change_id),
        url: agentPageUrl(ctx.baseUrl, row.agent_id),
        title: changeTitle(row),
        content_html: changeContentHtml(row, ctx.baseUrl),
        date_published: at,
        date_modified: at,
        tags: [row.kind],
        _veronikai: {
          kind: row.kind,
          change_id: row.change_id,
          agent_id: row.agent_id,
          protocol: row.protocol,
          name: clean(row.name),
          checker_version: row.checker_version || null,
          from: row.from_state,
          to: row.to_state,
          reasons: (row.reasons ?? []).map(clean),
        },
      };
    }),
  };
}
