import type { SearchHit, SearchResult } from '../../warehouse/read/ranked-search.js';
import { escapeHtml, num, pct } from './html.js';

/**
 * The dashboard's ranked search results, rendered on the server: each hit's name and description
 * with the matched words marked (<mark>, from the ranges the search gives; the text between them
 * escaped), and the facets as links that add or remove one filter, each with its count.
 */

/** The filters a search page carries in its querystring ('' = any). */
export interface SearchPageFilters {
  protocol: string;
  source: string;
  state: string;
  transport: string;
  auth: string;
}

/** A text with the ranges marked, everything escaped. */
export function marked(text: string, ranges: ReadonlyArray<readonly [number, number]>): string {
  let out = '';
  let at = 0;
  for (const [s, e] of ranges) {
    if (s < at || e > text.length) continue;
    out += `${escapeHtml(text.slice(at, s))}<mark>${escapeHtml(text.slice(s, e))}</mark>`;
    at = e;
  }
  return out + escapeHtml(text.slice(at));
}

export function searchRow(h: SearchHit): string {
  const state = `${h.uptime ?? 'not checked yet'}${h.result ? ` / ${h.result}` : ''}`;
  const title = h.title ? ` <span class="muted">${marked(h.title, h.highlights.title)}</span>` : '';
  return `<tr><td><a href="/agents/${escapeHtml(encodeURIComponent(h.id))}">${marked(h.name || h.id, h.name ? h.highlights.name : [])}</a>${title}
  <div class="note">${marked(h.description, h.highlights.description)}</div></td><td>${escapeHtml(h.protocol)}</td>
  <td>${escapeHtml(h.sources.join(', '))}</td><td class="${escapeHtml(h.uptime ?? '')}">${escapeHtml(state)}</td>
  <td class="r">${pct(h.uptime30)}</td><td class="r">${h.score.toFixed(2)}</td></tr>`;
}

const FACET_LABELS: Record<keyof SearchResult['facets'], string> = {
  protocol: 'protocol',
  source: 'source',
  state: 'state',
  transport: 'transport',
  auth: 'authentication',
};

/** The facets: for each, its values with counts, each a link to the page with that filter set (or cleared when it is the one set). */
export function facetLinks(q: string, f: SearchPageFilters, facets: SearchResult['facets']): string {
  const href = (extra: Partial<SearchPageFilters>) =>
    `/?${new URLSearchParams(Object.entries({ q, ...f, ...extra }).filter(([, v]) => v !== '')).toString()}`;
  const groups = (Object.keys(FACET_LABELS) as Array<keyof SearchResult['facets']>).map((k) => {
    const values = Object.entries(facets[k]).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
    if (values.length === 0 && f[k] === '') return '';
    const links = values.map(([v, n]) => {
      const on = f[k] === v;
      return `<a href="${escapeHtml(href({ [k]: on ? '' : v }))}"${on ? ' class="on" aria-current="true"' : ''}>${escapeHtml(v)} <span class="muted">${num(n)}</span>${on ? ' ×' : ''}</a>`;
    });
    return `<div class="facet"><span class="muted">${escapeHtml(FACET_LABELS[k])}:</span> ${links.join(' ') || `<a href="${escapeHtml(href({ [k]: '' }))}">${escapeHtml(f[k])} ×</a>`}</div>`;
  });
  return `<nav class="facets" aria-label="filters">${groups.join('')}</nav>`;
}
