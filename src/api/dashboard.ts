import { createHash } from 'node:crypto';
import type { Proportion } from '../stats/wilson.js';
import type { AgentListCursor } from '../warehouse/queries.js';
import type { ReadOnlyWarehouse } from '../warehouse/warehouse.js';
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
  type DailyTotal,
  type RunStatsResponse,
} from './responses.js';

/**
 * GET /: one self-contained page (inline CSS and a little vanilla JS, nothing external).
 * It is rendered on the server from the same queries as the JSON endpoints under /stats,
 * so it reads without JavaScript; the script only makes the agent search live, through
 * GET /stats/agents, building rows with textContent. Every value taken from data is
 * HTML-escaped here (agent names and URLs are untrusted), and the Content-Security-Policy
 * allows only this page's own script and style (by hash) and requests to this origin.
 */

export function escapeHtml(value: unknown): string {
  return String(value ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

const pct = (x: number | null | undefined) => (x === null || x === undefined || !Number.isFinite(x) ? '–' : `${(x * 100).toFixed(1)}%`);
const num = (n: number) => n.toLocaleString('en-US');
/** '2026-11-30T10:04:05.123Z' → '2026-11-30 10:04 UTC'. */
const when = (iso: string | null) => (iso ? `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC` : 'never');

function share(p: Proportion): string {
  if (p.share === null) return '<span class="muted">no judged checks</span>';
  return `<strong>${pct(p.share)}</strong> <span class="ci">95% CI ${pct(p.low)}–${pct(p.high)} · ${num(p.successes)} of ${num(p.trials)}</span>`;
}

function runCard(title: string, r: RunStatsResponse): string {
  const s = r.sample;
  const badge = r.partial
    ? `<span class="badge warn">${escapeHtml(r.status)}</span>`
    : '<span class="badge ok">complete</span>';
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
  const cell = (label: string, n: number) => `<div class="stat"><span class="n">${num(n)}</span><span class="l">${escapeHtml(label)}</span></div>`;
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
  const state = a.optOut === 'unchecked' ? 'not checked (opted out)' : `${a.uptime ?? 'not checked yet'}${a.result ? ` / ${a.result}` : ''}`;
  return `<tr><td><a href="/agents/${escapeHtml(encodeURIComponent(a.id))}">${escapeHtml(a.name || a.id)}</a></td><td>${escapeHtml(a.protocol)}</td>
  <td>${escapeHtml(a.sources.join(', '))}</td><td class="${escapeHtml(a.uptime ?? '')}">${escapeHtml(state)}</td>
  <td class="r">${pct(a.uptime7d)}</td><td>${escapeHtml(when(a.lastCheckedAt))}</td></tr>`;
}

function agentTable(agents: AgentSummary[], nextCursor: string | null, q: string): string {
  const next = nextCursor ? `/?${new URLSearchParams({ ...(q ? { q } : {}), cursor: nextCursor }).toString()}` : null;
  return `<section class="card wide">
  <h2>Agents</h2>
  <form method="get" action="/" role="search"><input id="q" name="q" type="search" maxlength="200" placeholder="Search by name, URL or description" value="${escapeHtml(q)}" autocomplete="off"> <button type="submit">Search</button> <span id="status" class="muted" aria-live="polite"></span></form>
  <table><thead><tr><th>name</th><th>protocol</th><th>sources</th><th>latest (uptime / result)</th><th class="r">7-day uptime</th><th>last check</th></tr></thead>
  <tbody id="agents">${agents.map(agentRow).join('\n') || '<tr><td colspan="6" class="muted">No agents match.</td></tr>'}</tbody></table>
  <p id="more" class="muted">${next ? `<a href="${escapeHtml(next)}">Next page</a>` : ''}</p>
</section>`;
}

const STYLE = `
:root{color-scheme:light dark;--bg:#f6f7f9;--fg:#1b1f24;--muted:#5b6470;--card:#fff;--line:#dde1e6;--ok:#1a7f37;--warn:#9a6700;--bad:#cf222e}
@media (prefers-color-scheme:dark){:root{--bg:#0f1216;--fg:#e6e9ed;--muted:#9aa4af;--card:#171b21;--line:#2a3038;--ok:#3fb950;--warn:#d29922;--bad:#f85149}}
*{box-sizing:border-box}body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:var(--bg);color:var(--fg)}
header{padding:16px 24px;border-bottom:1px solid var(--line);background:var(--card)}header h1{margin:0;font-size:20px}
main{display:grid;grid-template-columns:repeat(auto-fit,minmax(380px,1fr));gap:16px;padding:16px 24px;max-width:1400px;margin:0 auto}
.card{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:14px 18px;min-width:0}.wide{grid-column:1/-1}
h2{font-size:16px;margin:0 0 6px}.muted{color:var(--muted)}.ci{color:var(--muted);font-size:12px}.note{color:var(--muted);font-size:12px}
.badge{font-size:11px;font-weight:600;padding:2px 8px;border-radius:10px;vertical-align:middle;border:1px solid currentColor}.badge.ok{color:var(--ok)}.badge.warn{color:var(--warn)}
.warnbox{border-left:3px solid var(--warn);padding:6px 10px;background:color-mix(in srgb,var(--warn) 10%,transparent)}
dl.figures{display:grid;grid-template-columns:max-content 1fr;gap:6px 14px;margin:8px 0}dt{color:var(--muted)}dd{margin:0}dd strong{font-size:18px}dd .ci{display:block}
h3{font-size:12px;font-weight:600;color:var(--muted);margin:10px 0 4px;text-transform:uppercase;letter-spacing:.04em}
.stats{display:grid;grid-template-columns:repeat(4,minmax(0,1fr));gap:8px}.stat{border:1px solid var(--line);border-radius:6px;padding:6px 10px}
.stat .n{display:block;font-size:18px;font-weight:600}.stat .l{color:var(--muted);font-size:12px}
table{border-collapse:collapse;width:100%;margin-top:8px}th,td{text-align:left;padding:5px 8px;border-bottom:1px solid var(--line);vertical-align:top;overflow-wrap:anywhere}
th{font-size:12px;color:var(--muted);font-weight:600}.r{text-align:right;white-space:nowrap}
td.up{color:var(--ok)}td.down{color:var(--bad)}td.unknown,td.skipped{color:var(--warn)}
a{color:inherit}input[type=search]{width:min(420px,100%);padding:6px 8px;border:1px solid var(--line);border-radius:6px;background:var(--bg);color:var(--fg)}
button{padding:6px 12px;border:1px solid var(--line);border-radius:6px;background:var(--bg);color:var(--fg)}code{font-size:12px}
footer{padding:8px 24px 24px;color:var(--muted);font-size:12px;max-width:1400px;margin:0 auto}
`;

/** Live search: fetches /stats/agents and rebuilds the rows with textContent (never innerHTML). */
const SCRIPT = `
(function(){
  var input=document.getElementById('q'),body=document.getElementById('agents'),more=document.getElementById('more'),status=document.getElementById('status');
  if(!input||!body||!window.fetch)return;
  var timer=null,seq=0;
  function pct(x){return typeof x==='number'&&isFinite(x)?(x*100).toFixed(1)+'%':'\\u2013';}
  function when(s){return s?s.slice(0,10)+' '+s.slice(11,16)+' UTC':'never';}
  function cell(tr,text,cls){var td=document.createElement('td');td.textContent=text;if(cls)td.className=cls;tr.appendChild(td);return td;}
  function render(list,next,q){
    var rows=[];
    list.forEach(function(a){
      var tr=document.createElement('tr');
      var td=document.createElement('td'),link=document.createElement('a');
      link.href='/agents/'+encodeURIComponent(a.id);link.textContent=a.name||a.id;td.appendChild(link);tr.appendChild(td);
      cell(tr,a.protocol);cell(tr,(a.sources||[]).join(', '));
      var state=a.optOut==='unchecked'?'not checked (opted out)':(a.uptime||'not checked yet')+(a.result?' / '+a.result:'');
      cell(tr,state,/^(up|down|unknown|skipped)$/.test(a.uptime||'')?a.uptime:'');
      cell(tr,pct(a.uptime7d),'r');cell(tr,when(a.lastCheckedAt));
      rows.push(tr);
    });
    if(rows.length===0){var tr=document.createElement('tr'),td=cell(tr,'No agents match.','muted');td.colSpan=6;rows.push(tr);}
    body.replaceChildren.apply(body,rows);
    more.replaceChildren();
    if(next){var a=document.createElement('a'),p=new URLSearchParams();if(q)p.set('q',q);p.set('cursor',next);a.href='/?'+p.toString();a.textContent='Next page';more.appendChild(a);}
  }
  function search(){
    var q=input.value.trim(),mine=++seq;
    status.textContent='searching\\u2026';
    fetch('/stats/agents?limit=${AGENT_SEARCH_DEFAULT}'+(q?'&q='+encodeURIComponent(q):''),{headers:{accept:'application/json'}})
      .then(function(r){if(!r.ok)throw new Error('HTTP '+r.status);return r.json();})
      .then(function(d){if(mine!==seq)return;render(d.agents||[],d.nextCursor,q);status.textContent='';
        var u=new URL(location.href);if(q)u.searchParams.set('q',q);else u.searchParams.delete('q');u.searchParams.delete('cursor');history.replaceState(null,'',u);})
      .catch(function(e){if(mine===seq)status.textContent='search failed: '+e.message;});
  }
  input.addEventListener('input',function(){clearTimeout(timer);timer=setTimeout(search,250);});
  input.form.addEventListener('submit',function(e){e.preventDefault();clearTimeout(timer);search();});
})();
`;

const sha256 = (s: string) => `'sha256-${createHash('sha256').update(s, 'utf8').digest('base64')}'`;

/** Only this page's own style and script run; it may fetch from its own origin and nothing else. */
export const DASHBOARD_CSP = [
  "default-src 'none'",
  `style-src ${sha256(STYLE)}`,
  `script-src ${sha256(SCRIPT)}`,
  "connect-src 'self'",
  "img-src 'self' data:",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

export interface DashboardData {
  checkerVersion: string;
  latestRun: RunStatsResponse | null;
  /** The newest complete run, when the latest is still in progress. */
  lastCompleteRun: RunStatsResponse | null;
  census: CensusResponse;
  daily: DailyTotal[];
  agents: AgentSummary[];
  /** The cursor of the agent list's next page (null on the last). */
  nextCursor: string | null;
  q: string;
  generatedAt: string;
}

/**
 * What the page shows, each figure from a bounded read: the latest runs' samples (run_samples),
 * the stored census (census_totals), 30 days of daily_rollups, and one page of the agent list
 * (in natural name order, after `cursor`).
 */
export async function dashboardData(warehouse: ReadOnlyWarehouse, q = '', cursor: AgentListCursor | null = null): Promise<DashboardData> {
  const cv = await currentCheckerVersion(warehouse);
  const { latest, latestComplete } = await latestDailyRuns(warehouse);
  const latestRun = latest ? await runStatsResponse(warehouse, latest, cv) : null;
  const lastCompleteRun = latestComplete && latestComplete !== latest ? await runStatsResponse(warehouse, latestComplete, cv) : null;
  const found = await searchAgents(warehouse, cv, { q, limit: AGENT_SEARCH_DEFAULT, cursor });
  return {
    checkerVersion: cv,
    latestRun,
    lastCompleteRun,
    census: await censusResponse(warehouse, cv),
    daily: (await dailyResponse(warehouse, cv, STATS_DAYS_DEFAULT, null)).totals,
    agents: found.agents,
    nextCursor: found.nextCursor,
    q,
    generatedAt: new Date().toISOString(),
  };
}

export function renderDashboard(d: DashboardData): string {
  const runs = d.latestRun
    ? runCard('Latest daily run', d.latestRun) + (d.lastCompleteRun ? runCard('Last complete run', d.lastCompleteRun) : '')
    : '<section class="card"><h2>Latest daily run</h2><p class="muted">No daily run has been recorded yet.</p></section>';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>VeronikAI — public AI agents: uptime and conformance</title>
<style>${STYLE}</style>
</head>
<body>
<header><h1>VeronikAI</h1><div class="muted">Public A2A agents and remote MCP servers: who answers, who follows their protocol. Checker <code>${escapeHtml(d.checkerVersion)}</code> · page generated ${escapeHtml(when(d.generatedAt))}</div></header>
<main>
${runs}
${censusCard(d.census)}
${dailyTable(d.daily, STATS_DAYS_DEFAULT)}
${agentTable(d.agents, d.nextCursor, d.q)}
</main>
<footer>Ecosystem shares come from each run's uniform random sample, with 95% Wilson score intervals; census counts are totals of every active agent's latest state. JSON: <a href="/stats/runs/latest">/stats/runs/latest</a> · <a href="/stats/census">/stats/census</a> · <a href="/stats/daily">/stats/daily</a> · <a href="/stats/agents">/stats/agents</a> · <a href="/agents">/agents</a></footer>
<script>${SCRIPT}</script>
</body>
</html>
`;
}
