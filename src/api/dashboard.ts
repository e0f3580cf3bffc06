import { SOURCE_NAMES } from '../config.js';
import { wilson, type Proportion } from '../stats/wilson.js';
import { rankedSearch, type SearchResult, type SearchState } from '../warehouse/read/ranked-search.js';
import type { AgentListCursor, AgentListState } from '../warehouse/read/search.js';
import type { ReadOnlyWarehouse } from '../warehouse/warehouse.js';
import { contentSecurityPolicy, escapeHtml, num, pct, PAGE_STYLE, renderPage, when } from './pages/html.js';
import { facetLinks, searchRow } from './pages/search-results.js';
import { SEARCH_DEFAULT } from './limits.js';
import {
  AGENT_SEARCH_DEFAULT,
  censusResponse,
  currentCheckerVersion,
  dailyResponse,
  latestDailyRuns,
  runStatsResponse,
  searchAgents,
  STATS_DAYS_DEFAULT,
  type AgentSummary,
  type CensusResponse,
  type DailyRow,
  type DailyTotal,
  type RunStatsResponse,
} from './responses.js';
import { dayRange, utcToday } from './svg/days.js';
import { renderRateChart, type RateGroup } from './svg/rate-chart.js';

/**
 * GET /: one self-contained page (inline CSS and a little vanilla JS, nothing external).
 * It is rendered on the server from the same queries as the JSON endpoints under /stats,
 * so it reads without JavaScript; the script only makes the agent search live, through
 * GET /stats/agents, building rows with textContent. Every value taken from data is
 * HTML-escaped here (agent names and URLs are untrusted), and the Content-Security-Policy
 * allows only this page's own script and style (by hash) and requests to this origin.
 * The page chrome (style, policy, escaping) is shared with the agent pages (pages/html.ts).
 */

export { escapeHtml } from './pages/html.js';

/** Days the ecosystem charts cover (one bounded read of daily_rollups; the table shows the last STATS_DAYS_DEFAULT). */
export const CHART_DAYS = 90;

function share(p: Proportion): string {
  if (p.share === null) return '<span class="muted">no judged checks</span>';
  return `<strong>${pct(p.share)}</strong> <span class="ci">95% CI ${pct(p.low)}–${pct(p.high)} · ${num(p.successes)} of ${num(p.trials)}</span>`;
}

function runCard(title: string, r: RunStatsResponse): string {
  const s = r.sample;
  const badge = r.partial ? `<span class="badge warn">${escapeHtml(r.status)}</span>` : '<span class="badge ok">complete</span>';
  return `<section class="card">
  <h2>${escapeHtml(title)} ${badge}</h2>
  <p class="muted">run <code>${escapeHtml(r.runId)}</code> · started ${escapeHtml(when(r.startedAt))}${r.finishedAt ? ` · finished ${escapeHtml(when(r.finishedAt))}` : ''}</p>
  ${r.partial ? `<p class="warnbox">${escapeHtml(r.status === 'incomplete' ? 'Ended early' : 'In progress')}: ${num(s.checks)} of ${r.planned === null ? '?' : num(r.planned)} sampled checks are in. These are partial figures of this run's sample, not the whole index.</p>` : ''}
  <dl class="figures">
    <dt>Agents up (sample)</dt><dd>${share(s.up)}</dd>
    <dt>Passing conformance (sample)</dt><dd>${share(s.pass)}</dd>
    <dt>Sample checks</dt><dd>${num(s.checks)} <span class="muted">· unknown ${num(s.unknown)} · skipped ${num(s.skipped)} · verdict unknown ${num(s.unknownVerdict)} · n/a ${num(s.notApplicable)}</span></dd>
  </dl>
  ${r.partial ? '' : `<p class="note">${escapeHtml(r.note)}</p>`}
</section>`;
}

function censusCard(c: CensusResponse): string {
  const l = c.latest;
  const cell = (label: string, n: number) =>
    `<div class="stat"><span class="n">${num(n)}</span><span class="l">${escapeHtml(label)}</span></div>`;
  return `<section class="card">
  <h2>Census of latest states</h2>
  <p class="muted">Every active agent's latest check and verdict, as of ${escapeHtml(when(c.asOf))}. A count of the snapshot, not a sample estimate.</p>
  <h3>Agents</h3><div class="stats">${cell('active', c.agents.active)}${cell('inactive', c.agents.inactive)}${cell('never checked', l.neverChecked)}</div>
  <h3>Latest check</h3><div class="stats">${cell('up', l.up)}${cell('down', l.down)}${cell('unknown', l.unknown)}${cell('skipped', l.skipped)}</div>
  <h3>Latest verdict</h3><div class="stats">${cell('pass', l.pass)}${cell('fail', l.fail)}${cell('unknown', l.unknownVerdict)}${cell('n/a', l.notApplicable)}</div>
</section>`;
}

function dailyTable(totals: DailyTotal[], days: number): string {
  const rows = totals
    .map(
      (t) => `<tr><td>${escapeHtml(t.day)}</td><td class="r">${num(t.checks)}</td>
  <td class="r">${pct(t.uptime)}</td><td class="r">${pct(t.sample.up.share)} <span class="ci">${t.sample.up.share === null ? '' : `${pct(t.sample.up.low)}–${pct(t.sample.up.high)}`}</span></td>
  <td class="r">${pct(t.passRate)}</td><td class="r">${pct(t.sample.pass.share)} <span class="ci">${t.sample.pass.share === null ? '' : `${pct(t.sample.pass.low)}–${pct(t.sample.pass.high)}`}</span></td>
  <td class="r">${num(t.sample.checks)}</td></tr>`,
    )
    .join('\n');
  return `<section class="card wide">
  <h2>Daily uptime and conformance, last ${days} days</h2>
  <p class="muted">Uptime is up / (up + down); pass rate is pass / (pass + fail). Sample columns use that day's uniform random sample only, with 95% Wilson intervals.</p>
  <table><thead><tr><th>day (UTC)</th><th class="r">checks</th><th class="r">uptime</th><th class="r">sample uptime (95% CI)</th><th class="r">pass rate</th><th class="r">sample pass rate (95% CI)</th><th class="r">sample checks</th></tr></thead>
  <tbody>${rows || `<tr><td colspan="7" class="muted">No checks in the last ${days} days.</td></tr>`}</tbody></table>
</section>`;
}

function agentRow(a: AgentSummary): string {
  const state =
    a.optOut === 'unchecked' ? 'not checked (opted out)' : `${a.uptime ?? 'not checked yet'}${a.result ? ` / ${a.result}` : ''}`;
  return `<tr><td><a href="/agents/${escapeHtml(encodeURIComponent(a.id))}">${escapeHtml(a.name || a.id)}</a></td><td>${escapeHtml(a.protocol)}</td>
  <td>${escapeHtml(a.sources.join(', '))}</td><td class="${escapeHtml(a.uptime ?? '')}">${escapeHtml(state)}</td>
  <td class="r">${pct(a.uptime7d)}</td><td>${escapeHtml(when(a.lastCheckedAt))}</td></tr>`;
}

/** The agent list's filters, as the form and the querystring name them ('' = any). */
export interface AgentFilters {
  protocol: '' | 'a2a' | 'mcp';
  source: string;
  state: '' | AgentListState;
  /** The search's own filters (facets): transport, and whether authentication is required. */
  transport?: string;
  auth?: '' | 'required' | 'none';
  /** Where a search page starts (hits before it are on earlier pages). */
  offset?: number;
}

export const NO_FILTERS: AgentFilters = { protocol: '', source: '', state: '' };

const STATES: ReadonlyArray<[AgentListState, string]> = [
  ['up', 'up'],
  ['down', 'down'],
  ['unknown', 'unknown'],
  ['pass', 'passing'],
  ['fail', 'failing'],
];

function select(name: string, label: string, current: string, options: ReadonlyArray<readonly [string, string]>): string {
  const opts = [['', `any ${label}`] as const, ...options]
    .map(([v, text]) => `<option value="${escapeHtml(v)}"${v === current ? ' selected' : ''}>${escapeHtml(text)}</option>`)
    .join('');
  return `<label class="muted">${escapeHtml(label)} <select id="f-${escapeHtml(name)}" name="${escapeHtml(name)}">${opts}</select></label>`;
}

function agentTable(agents: AgentSummary[], nextCursor: string | null, q: string, f: AgentFilters): string {
  const params = (extra: Record<string, string>) =>
    new URLSearchParams(
      Object.entries({ q, protocol: f.protocol, source: f.source, state: f.state, ...extra }).filter(([, v]) => v !== ''),
    ).toString();
  const next = nextCursor ? `/?${params({ cursor: nextCursor })}` : null;
  const filtered = f.protocol !== '' || f.source !== '' || f.state !== '';
  // A filtered page reads a bounded stretch of the list, so it can come back short (even empty) with more after it.
  const empty = next ? 'No matches in this stretch of the list; the next page goes on.' : 'No agents match.';
  return `<section class="card wide">
  <h2>Agents</h2>
  <form method="get" action="/" role="search"><input id="q" name="q" type="search" maxlength="200" placeholder="Search by name, URL or description" value="${escapeHtml(q)}" autocomplete="off">
  ${select('protocol', 'protocol', f.protocol, [
    ['a2a', 'A2A'],
    ['mcp', 'MCP'],
  ])}
  ${select(
    'source',
    'source',
    f.source,
    SOURCE_NAMES.map((s) => [s, s] as const),
  )}
  ${select('state', 'state', f.state, STATES)}
  <button type="submit">Search</button>${filtered || q ? ' <a href="/">clear</a>' : ''} <span id="status" class="muted" aria-live="polite"></span></form>
  <p class="note">In natural name order (Agent 2 before Agent 10). State is the latest check (up, down, unknown) or the latest verdict (passing, failing).</p>
  <table><thead><tr><th>name</th><th>protocol</th><th>sources</th><th>latest (uptime / result)</th><th class="r">7-day uptime</th><th>last check</th></tr></thead>
  <tbody id="agents">${agents.map(agentRow).join('\n') || `<tr><td colspan="6" class="muted">${empty}</td></tr>`}</tbody></table>
  <p id="more" class="muted">${next ? `<a href="${escapeHtml(next)}">Next page</a>` : ''}</p>
</section>`;
}

/** The ranked search's results (a query was given): hits with their matches marked, facets as links. */
function searchTable(r: SearchResult, q: string, f: AgentFilters): string {
  const filters = { protocol: f.protocol, source: f.source, state: f.state, transport: f.transport ?? '', auth: f.auth ?? '' };
  const offset = f.offset ?? 0;
  const params = (extra: Record<string, string>) =>
    new URLSearchParams(Object.entries({ q, ...filters, ...extra }).filter(([, v]) => v !== '' && v !== '0')).toString();
  const next = offset + r.hits.length < r.total ? `/?${params({ offset: String(offset + r.hits.length) })}` : null;
  const prev = offset > 0 ? `/?${params({ offset: String(Math.max(0, offset - SEARCH_DEFAULT)) })}` : null;
  const hidden = (['transport', 'auth'] as const)
    .map((k) => (filters[k] ? `<input type="hidden" name="${k}" value="${escapeHtml(filters[k])}">` : ''))
    .join('');
  return `<section class="card wide">
  <h2>Agents</h2>
  <form method="get" action="/" role="search"><input id="q" name="q" type="search" maxlength="200" placeholder="Search by what an agent does, its name, skills or URL" value="${escapeHtml(q)}" autocomplete="off">${hidden}
  ${select('protocol', 'protocol', f.protocol, [
    ['a2a', 'A2A'],
    ['mcp', 'MCP'],
  ])}
  ${select(
    'source',
    'source',
    f.source,
    SOURCE_NAMES.map((s) => [s, s] as const),
  )}
  ${select('state', 'state', f.state, STATES)}
  <button type="submit">Search</button> <a href="/">clear</a> <span id="status" class="muted" aria-live="polite"></span></form>
  ${facetLinks(q, filters, r.facets)}
  <p class="note" id="summary">${num(r.total)} ${r.total === 1 ? 'match' : 'matches'}${r.complete ? '' : ' among the best candidates'}, by relevance, then by our own measurements (up now, 30-day uptime, conformance). Nobody can pay to rank higher.</p>
  <table><thead><tr><th>agent</th><th>protocol</th><th>sources</th><th>latest (uptime / result)</th><th class="r">30-day uptime</th><th class="r">score</th></tr></thead>
  <tbody id="agents">${r.hits.map(searchRow).join('\n') || '<tr><td colspan="6" class="muted">No agents match.</td></tr>'}</tbody></table>
  <p id="more" class="muted">${prev ? `<a href="${escapeHtml(prev)}">Previous</a> ` : ''}${next ? `<a href="${escapeHtml(next)}">Next page</a>` : ''}</p>
</section>`;
}

/** The day's sample share per group (every protocol or every source), summed over the rows of the group. */
export function rateGroups(rows: readonly DailyRow[], by: 'protocol' | 'source', metric: 'up' | 'pass'): RateGroup[] {
  const [yes, no] = metric === 'up' ? (['sampleUp', 'sampleDown'] as const) : (['samplePass', 'sampleFail'] as const);
  const sums = new Map<string, Map<string, { s: number; n: number }>>();
  for (const r of rows) {
    const days = sums.get(r[by]) ?? new Map<string, { s: number; n: number }>();
    sums.set(r[by], days);
    const d = days.get(r.day) ?? { s: 0, n: 0 };
    d.s += Number(r[yes] ?? 0);
    d.n += Number(r[yes] ?? 0) + Number(r[no] ?? 0);
    days.set(r.day, d);
  }
  return [...sums.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, days]) => ({
      name: name || '(no source)',
      days: new Map([...days.entries()].map(([day, d]) => [day, wilson(d.s, d.n)])),
    }));
}

function chartsCard(rows: readonly DailyRow[], totals: readonly DailyTotal[], today: string): string {
  const all = (metric: 'up' | 'pass'): RateGroup => ({ name: 'all', days: new Map(totals.map((t) => [t.day, t.sample[metric]])) });
  const chart = (title: string, by: 'protocol' | 'source', metric: 'up' | 'pass') =>
    `<figure class="chart-figure" data-chart="${metric}-by-${by}">${renderRateChart(title, [all(metric), ...rateGroups(rows, by, metric)], { today, days: CHART_DAYS })}<figcaption class="note">${escapeHtml(title)}</figcaption></figure>`;
  return `<section class="card wide">
  <h2>Ecosystem uptime and conformance per day, last ${CHART_DAYS} days</h2>
  <p class="muted">Each line is the day's uniform random sample only: uptime = up / (up + down), pass rate = pass / (pass + fail); the shaded band is its 95% Wilson interval. Hover a point for its figures. A gap is a day whose sample judged nothing.</p>
  <div class="charts">
  ${chart('Uptime by protocol (sample, 95% CI)', 'protocol', 'up')}
  ${chart('Pass rate by protocol (sample, 95% CI)', 'protocol', 'pass')}
  ${chart('Uptime by source (sample, 95% CI)', 'source', 'up')}
  ${chart('Pass rate by source (sample, 95% CI)', 'source', 'pass')}
  </div>
</section>`;
}

/**
 * Live search, as the server renders it: with words, the ranked search (GET /search: rows with the
 * matched words marked from the hits' highlight ranges, the facets as links); without, the list in
 * name order (GET /stats/agents). Everything is built with createElement and textContent (never
 * innerHTML). With a source or state filter and no words it leaves the form to the server (the
 * list's JSON has no such filters).
 */
const SCRIPT = `
(function(){
  var input=document.getElementById('q'),body=document.getElementById('agents'),more=document.getElementById('more'),status=document.getElementById('status');
  var proto=document.getElementById('f-protocol'),source=document.getElementById('f-source'),state=document.getElementById('f-state');
  if(!input||!body||!window.fetch)return;
  var table=body.parentNode,timer=null,seq=0;
  function val(el){return el?el.value:'';}
  function hidden(n){var el=input.form.querySelector('input[type=hidden][name='+n+']');return el?el.value:'';}
  function serverOnly(){return !input.value.trim()&&(val(source)||val(state));}
  function pct(x){return typeof x==='number'&&isFinite(x)?(x*100).toFixed(1)+'%':'\\u2013';}
  function when(s){return s?s.slice(0,10)+' '+s.slice(11,16)+' UTC':'never';}
  function cell(tr,text,cls){var td=document.createElement('td');td.textContent=text;if(cls)td.className=cls;tr.appendChild(td);return td;}
  function heads(names){var tr=document.createElement('tr');names.forEach(function(n){var th=document.createElement('th');th.textContent=n;if(/uptime|score/.test(n))th.className='r';tr.appendChild(th);});table.tHead.replaceChildren(tr);}
  function mark(el,text,ranges){var at=0;(ranges||[]).forEach(function(r){if(r[0]<at)return;el.appendChild(document.createTextNode(text.slice(at,r[0])));var m=document.createElement('mark');m.textContent=text.slice(r[0],r[1]);el.appendChild(m);at=r[1];});el.appendChild(document.createTextNode(text.slice(at)));}
  function stateOf(a){return a.optOut==='unchecked'?'not checked (opted out)':(a.uptime||'not checked yet')+(a.result?' / '+a.result:'');}
  function upCls(a){return /^(up|down|unknown|skipped)$/.test(a.uptime||'')?a.uptime:'';}
  function empty(rows){if(rows.length===0){var tr=document.createElement('tr'),td=cell(tr,'No agents match.','muted');td.colSpan=6;rows.push(tr);}body.replaceChildren.apply(body,rows);more.replaceChildren();}
  function nav(){var n=document.querySelector('nav.facets');if(n)n.remove();var p=document.getElementById('summary');if(p)p.remove();}
  function renderList(list,next,q,p){
    heads(['name','protocol','sources','latest (uptime / result)','7-day uptime','last check']);nav();
    var rows=list.map(function(a){
      var tr=document.createElement('tr'),td=document.createElement('td'),link=document.createElement('a');
      link.href='/agents/'+encodeURIComponent(a.id);link.textContent=a.name||a.id;td.appendChild(link);tr.appendChild(td);
      cell(tr,a.protocol);cell(tr,(a.sources||[]).join(', '));cell(tr,stateOf(a),upCls(a));cell(tr,pct(a.uptime7d),'r');cell(tr,when(a.lastCheckedAt));
      return tr;
    });
    empty(rows);
    if(next){var a=document.createElement('a'),u=new URLSearchParams();if(q)u.set('q',q);if(p)u.set('protocol',p);u.set('cursor',next);a.href='/?'+u.toString();a.textContent='Next page';more.appendChild(a);}
  }
  function renderHits(d){
    heads(['agent','protocol','sources','latest (uptime / result)','30-day uptime','score']);nav();
    var rows=(d.hits||[]).map(function(h){
      var tr=document.createElement('tr'),td=document.createElement('td'),link=document.createElement('a');
      link.href='/agents/'+encodeURIComponent(h.id);mark(link,h.name||h.id,h.name?h.highlights.name:[]);td.appendChild(link);
      var desc=document.createElement('div');desc.className='note';mark(desc,h.description,h.highlights.description);td.appendChild(desc);tr.appendChild(td);
      cell(tr,h.protocol);cell(tr,(h.sources||[]).join(', '));cell(tr,stateOf(h),upCls(h));cell(tr,pct(h.uptime30d),'r');cell(tr,h.score.toFixed(2),'r');
      return tr;
    });
    empty(rows);
    var p=document.createElement('p');p.id='summary';p.className='note';p.textContent=d.total+(d.total===1?' match':' matches')+', by relevance, then by our own measurements. Press Search for the filters.';table.parentNode.insertBefore(p,table);
  }
  function search(){
    var q=input.value.trim(),p=val(proto),mine=++seq,u=new URLSearchParams();
    status.textContent='searching\\u2026';
    if(q){u.set('q',q);u.set('limit','${SEARCH_DEFAULT}');[['protocol',p],['source',val(source)],['state',val(state)],['transport',hidden('transport')],['auth',hidden('auth')]].forEach(function(x){if(x[1])u.set(x[0],x[1]);});}
    else{u.set('limit','${AGENT_SEARCH_DEFAULT}');if(p)u.set('protocol',p);}
    fetch((q?'/search?':'/stats/agents?')+u.toString(),{headers:{accept:'application/json'}})
      .then(function(r){if(!r.ok)throw new Error('HTTP '+r.status);return r.json();})
      .then(function(d){if(mine!==seq)return;if(q)renderHits(d);else renderList(d.agents||[],d.nextCursor,q,p);status.textContent='';
        var l=new URL(location.href);if(q)l.searchParams.set('q',q);else l.searchParams.delete('q');if(p)l.searchParams.set('protocol',p);else l.searchParams.delete('protocol');l.searchParams.delete('cursor');l.searchParams.delete('offset');history.replaceState(null,'',l);})
      .catch(function(e){if(mine===seq)status.textContent='search failed: '+e.message;});
  }
  input.addEventListener('input',function(){if(serverOnly())return;clearTimeout(timer);timer=setTimeout(search,250);});
})();
`;

/** Only this page's own style and script run; it may fetch from its own origin and nothing else. */
export const DASHBOARD_CSP = contentSecurityPolicy({ style: PAGE_STYLE, script: SCRIPT });

export interface DashboardData {
  checkerVersion: string;
  latestRun: RunStatsResponse | null;
  /** The newest complete run, when the latest is still in progress. */
  lastCompleteRun: RunStatsResponse | null;
  census: CensusResponse;
  /** The daily totals of the last STATS_DAYS_DEFAULT days (the table). */
  daily: DailyTotal[];
  /** The daily totals and rows (per protocol and source) of the last CHART_DAYS days (the charts). */
  chartTotals: DailyTotal[];
  chartRows: DailyRow[];
  agents: AgentSummary[];
  /** The ranked search's results when a query was given (then `agents` is empty). */
  search?: SearchResult | null;
  /** The cursor of the agent list's next page (null on the last). */
  nextCursor: string | null;
  q: string;
  filters: AgentFilters;
  generatedAt: string;
}

/**
 * What the page shows, each figure from a bounded read: the latest runs' samples (run_samples),
 * the stored census (census_totals), CHART_DAYS days of daily_rollups (at most days × protocols ×
 * sources rows), and one page of the agent list (in natural name order, after `cursor`, filtered).
 */
export async function dashboardData(
  warehouse: ReadOnlyWarehouse,
  q = '',
  cursor: AgentListCursor | null = null,
  filters: AgentFilters = NO_FILTERS,
): Promise<DashboardData> {
  const cv = await currentCheckerVersion(warehouse);
  const { latest, latestComplete } = await latestDailyRuns(warehouse);
  const latestRun = latest ? await runStatsResponse(warehouse, latest, cv) : null;
  const lastCompleteRun = latestComplete && latestComplete !== latest ? await runStatsResponse(warehouse, latestComplete, cv) : null;
  // A query is a ranked search; without one, the list in natural name order.
  const search = q
    ? await rankedSearch(warehouse, {
        q,
        checkerVersion: cv,
        limit: SEARCH_DEFAULT,
        offset: filters.offset ?? 0,
        filters: {
          protocol: filters.protocol || null,
          source: filters.source || null,
          state: (filters.state || null) as SearchState | null,
          transport: filters.transport || null,
          auth: filters.auth || null,
        },
      })
    : null;
  const found = search
    ? { agents: [], nextCursor: null }
    : await searchAgents(warehouse, cv, {
        q,
        limit: AGENT_SEARCH_DEFAULT,
        cursor,
        protocol: filters.protocol || null,
        source: filters.source || null,
        state: filters.state || null,
      });
  const daily = await dailyResponse(warehouse, cv, CHART_DAYS, null);
  const tableDays = new Set(dayRange(utcToday(), STATS_DAYS_DEFAULT));
  return {
    checkerVersion: cv,
    latestRun,
    lastCompleteRun,
    census: await censusResponse(warehouse, cv),
    daily: daily.totals.filter((t) => tableDays.has(t.day)),
    chartTotals: daily.totals,
    chartRows: daily.rows,
    agents: found.agents,
    search,
    nextCursor: found.nextCursor,
    q,
    filters,
    generatedAt: new Date().toISOString(),
  };
}

export function renderDashboard(d: DashboardData): string {
  const runs = d.latestRun
    ? runCard('Latest daily run', d.latestRun) + (d.lastCompleteRun ? runCard('Last complete run', d.lastCompleteRun) : '')
    : '<section class="card"><h2>Latest daily run</h2><p class="muted">No daily run has been recorded yet.</p></section>';
  return renderPage({
    title: 'VeronikAI — public AI agents: uptime and conformance',
    header: `<h1>VeronikAI</h1><div class="muted">Public A2A agents and remote MCP servers: who answers, who follows their protocol. Checker <code>${escapeHtml(d.checkerVersion)}</code> · page generated ${escapeHtml(when(d.generatedAt))}</div>`,
    main: `${runs}
${censusCard(d.census)}
${chartsCard(d.chartRows, d.chartTotals, d.generatedAt.slice(0, 10))}
${dailyTable(d.daily, STATS_DAYS_DEFAULT)}
${d.search ? searchTable(d.search, d.q, d.filters) : agentTable(d.agents, d.nextCursor, d.q, d.filters)}`,
    footer:
      'Ecosystem shares come from each run\'s uniform random sample, with 95% Wilson score intervals; census counts are totals of every active agent\'s latest state. JSON: <a href="/stats/runs/latest">/stats/runs/latest</a> · <a href="/stats/census">/stats/census</a> · <a href="/stats/daily">/stats/daily</a> · <a href="/stats/agents">/stats/agents</a> · <a href="/search?q=weather">/search</a> · <a href="/agents">/agents</a>',
    script: SCRIPT,
  });
}
