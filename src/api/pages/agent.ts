import { getRule } from '../../conformance/catalogue.js';
import { agentChanges } from '../../warehouse/read/changes.js';
import { agentDays, type AgentDayRow } from '../../warehouse/read/status.js';
import type { AgentChangeRow } from '../../warehouse/rows.js';
import type { ReadOnlyWarehouse } from '../../warehouse/warehouse.js';
import { finiteOrNull, isoTime } from '../format.js';
import type { AgentResponse, UptimeWindow } from '../responses.js';
import { dayRange, utcToday } from '../svg/days.js';
import { renderLatencyChart } from '../svg/latency-chart.js';
import { renderUptimeBar } from '../svg/uptime-bar.js';
import { escapeHtml, num, pct, renderPage, when } from './html.js';

/**
 * GET /agents/:id as a page (when the client asks for HTML): the agent's identity and listings,
 * its latest check and verdict with each failing rule linked to its specification section
 * (src/conformance/catalogue.ts), its uptime windows, a 90-day uptime bar and latency chart
 * (agent_status by key), the history of its changes and the corrections of disputed results
 * (agent_changes), and the badges and feed to follow it. Every value from data is escaped; no
 * script; links to the agent's own URLs only when they are http(s).
 */

export const HISTORY_DAYS = 90;
/** Changes and corrections shown (newest first): one bounded read each. */
export const CHANGES_SHOWN = 50;
export const CORRECTIONS_SHOWN = 20;

export interface AgentPageData {
  agent: AgentResponse;
  days: AgentDayRow[];
  changes: AgentChangeRow[];
  corrections: AgentChangeRow[];
  /** The base of the badge snippet's links: the public URL, else this server as the client reached it. */
  origin: string;
  today: string;
  generatedAt: string;
}

/** What the page adds to the JSON: the agent's days, its changes and its corrections, each read by key and bounded. */
export async function agentPageData(warehouse: ReadOnlyWarehouse, agent: AgentResponse, origin: string): Promise<AgentPageData> {
  const cv = agent.checkerVersion;
  const days = await agentDays(warehouse, cv, agent.key);
  const changes = await agentChanges(warehouse, {
    agentId: agent.id,
    checkerVersion: cv,
    kinds: ['down', 'up', 'verdict', 'listed', 'delisted'],
    limit: CHANGES_SHOWN,
  });
  const corrections = await agentChanges(warehouse, {
    agentId: agent.id,
    checkerVersion: cv,
    kinds: ['corrected'],
    limit: CORRECTIONS_SHOWN,
  });
  const now = new Date();
  return { agent, days, changes, corrections, origin, today: utcToday(now.getTime()), generatedAt: now.toISOString() };
}

/** A verdict reason line (`RULE-ID location: message`, src/conformance/verdict.ts) split into its parts. */
export function parseReason(line: string): { ruleId: string | null; location: string; message: string } {
  const text = line.startsWith('warn: ') ? line.slice(6) : line;
  const m = /^([A-Z][A-Z0-9]*(?:-[A-Z0-9]+)+)(?:\s+([\s\S]*))?$/.exec(text);
  if (!m) return { ruleId: null, location: '', message: text };
  const rest = m[2] ?? '';
  const cut = rest.indexOf(': ');
  return cut >= 0
    ? { ruleId: m[1]!, location: rest.slice(0, cut), message: rest.slice(cut + 2) }
    : { ruleId: m[1]!, location: '', message: rest };
}

/** An href for a URL from data: http(s) only, else none (the text is shown instead). */
function safeHref(url: string): string | null {
  try {
    const u = new URL(url);
    return u.protocol === 'https:' || u.protocol === 'http:' ? u.href : null;
  } catch {
    return null;
  }
}

const link = (url: string) => {
  const href = safeHref(url);
  return href
    ? `<a href="${escapeHtml(href)}" rel="nofollow noopener noreferrer">${escapeHtml(url)}</a>`
    : `<code>${escapeHtml(url)}</code>`;
};

/** One reason as a list item: the rule, its message, and its specification section linked. */
function ruleItem(line: string, cls: 'fail' | 'warn'): string {
  const r = parseReason(line);
  const rule = r.ruleId ? getRule(r.ruleId) : undefined;
  const spec = rule
    ? ` <span class="muted">· ${rule.basis === 'policy' ? 'VeronikAI policy on ' : ''}<a href="${escapeHtml(rule.link)}" rel="noopener noreferrer">${escapeHtml(rule.section)}</a></span>`
    : r.ruleId
      ? ' <span class="muted">· not in this build\'s rule catalogue</span>'
      : '';
  return `<li class="rule ${cls}" data-rule="${escapeHtml(r.ruleId ?? '')}">${r.ruleId ? `<code>${escapeHtml(r.ruleId)}</code> ` : ''}${rule ? `<strong>${escapeHtml(rule.title)}</strong>: ` : ''}${escapeHtml(r.message)}${r.location ? ` <span class="muted">at <code>${escapeHtml(r.location)}</code></span>` : ''}${spec}</li>`;
}

function identityCard(a: AgentResponse): string {
  const sources =
    Object.keys(a.sourceFirstSeen ?? {}).length > 0 ? Object.entries(a.sourceFirstSeen) : a.sources.map((s) => [s, null] as const);
  const sourceItems = sources
    .map(([s, at]) => `<li><code>${escapeHtml(s)}</code> <span class="muted">first seen ${escapeHtml(when(isoTime(at)))}</span></li>`)
    .join('');
  const listings = a.listings
    .map(
      (
        l,
      ) => `<tr><td><code>${escapeHtml(l.source)}</code></td><td>${escapeHtml(l.itemId)}</td><td>${escapeHtml(l.name)}</td><td>${escapeHtml(l.version)}</td>
  <td>${escapeHtml(when(isoTime(l.firstSeen)))}</td><td>${escapeHtml(when(isoTime(l.lastSeen)))}</td><td>${Number(l.tombstoned) === 1 ? '<span class="muted">delisted</span>' : 'listed'}</td></tr>`,
    )
    .join('\n');
  return `<section class="card wide" id="identity">
  <h2>${escapeHtml(a.name || a.id)} <span class="badge ${Number(a.active) === 1 ? 'ok' : 'warn'}">${Number(a.active) === 1 ? 'active' : 'inactive'}</span></h2>
  ${a.description ? `<p>${escapeHtml(a.description)}</p>` : ''}
  <dl class="figures">
    <dt>Protocol</dt><dd>${escapeHtml(a.protocol.toUpperCase())}</dd>
    <dt>Key</dt><dd><code>${escapeHtml(a.key)}</code></dd>
    ${a.endpointUrl ? `<dt>Endpoint</dt><dd>${link(a.endpointUrl)}</dd>` : ''}
    ${a.cardUrl ? `<dt>Agent card</dt><dd>${link(a.cardUrl)}</dd>` : ''}
    <dt>Id</dt><dd><code>${escapeHtml(a.id)}</code></dd>
    <dt>First seen</dt><dd>${escapeHtml(when(isoTime(a.firstSeen)))}</dd>
    <dt>Last seen in a listing</dt><dd>${escapeHtml(when(isoTime(a.lastSeen)))}${a.inactiveSince ? ` <span class="muted">· inactive since ${escapeHtml(when(isoTime(a.inactiveSince)))}</span>` : ''}</dd>
    <dt>Sources</dt><dd><ul class="plain">${sourceItems || '<li class="muted">none</li>'}</ul></dd>
  </dl>
  ${listings ? `<h3>Listings</h3><table><thead><tr><th>source</th><th>item</th><th>name</th><th>version</th><th>first seen</th><th>last seen</th><th>state</th></tr></thead><tbody>${listings}</tbody></table>` : ''}
</section>`;
}

function latestCard(a: AgentResponse): string {
  const c = a.latestCheck;
  const v = a.latestVerdict;
  const check = c
    ? `<dl class="figures">
    <dt>Checked</dt><dd>${escapeHtml(when(c.at))}${c.inSample ? ' <span class="muted">· in the run\'s sample</span>' : ''}</dd>
    <dt>Uptime</dt><dd class="${escapeHtml(c.uptime)}"><strong>${escapeHtml(c.uptime)}</strong>${c.reason ? ` <span class="muted">(${escapeHtml(c.reason)})</span>` : ''}${c.ourSide ? ' <span class="muted">· a failure on our side, not counted against the agent</span>' : ''}</dd>
    <dt>HTTP status</dt><dd>${c.httpStatus === null ? '–' : escapeHtml(c.httpStatus)}</dd>
    <dt>Latency</dt><dd>${c.latencyMs === null ? '–' : `${escapeHtml(c.latencyMs)} ms`}</dd>
    ${c.source ? `<dt>Listed by</dt><dd><code>${escapeHtml(c.source)}</code></dd>` : ''}
  </dl>`
    : `<p class="muted">${a.lastCheckedAt ? `Not checked under checker ${escapeHtml(a.checkerVersion)} yet; last checked ${escapeHtml(when(a.lastCheckedAt))}.` : 'Never checked.'}</p>`;
  const failing = v ? v.reasons.filter((r) => parseReason(r).ruleId !== null) : [];
  const other = v ? v.reasons.filter((r) => parseReason(r).ruleId === null) : [];
  const verdict = v
    ? `<p>Result: <strong class="${escapeHtml(v.result)}" id="verdict-result">${escapeHtml(v.result)}</strong> <span class="muted">· suite <code>${escapeHtml(v.suiteId)}</code> v${escapeHtml(v.suiteVersion)} · checker <code>${escapeHtml(v.checkerVersion)}</code>${v.a2aVersion ? ` · A2A ${escapeHtml(v.a2aVersion)}` : ''}</span></p>
  ${failing.length ? `<h3>Failing rules</h3><ul class="plain" id="failing-rules">${failing.map((r) => ruleItem(r, 'fail')).join('')}</ul>` : ''}
  ${other.length ? `<h3>Notes</h3><ul class="plain">${other.map((r) => `<li>${escapeHtml(r)}</li>`).join('')}</ul>` : ''}
  ${v.warnings.length ? `<h3>Warnings</h3><ul class="plain" id="warnings">${v.warnings.map((r) => ruleItem(r, 'warn')).join('')}</ul>` : ''}`
    : '<p class="muted">No verdict yet.</p>';
  return `<section class="card" id="latest">
  <h2>Latest check</h2>
  ${check}
  <p class="note">Last checked under any checker version: ${escapeHtml(when(a.lastCheckedAt))}. Every active agent is rechecked at least once every 7 days.</p>
  <h2>Latest verdict</h2>
  ${verdict}
</section>`;
}

function uptimeCard(a: AgentResponse, d: AgentPageData): string {
  const ms = (v: number | null) => (v === null ? '–' : `${Math.round(v)} ms`);
  const row = (label: string, w: UptimeWindow) =>
    `<tr><td class="nowrap">${escapeHtml(label)}</td><td class="r"><strong>${pct(w.uptime)}</strong></td><td class="r">${num(w.checks)}</td><td class="r">${ms(w.latencyP50Ms)}</td><td class="r">${ms(w.latencyP95Ms)}</td></tr>`;
  const history = d.days.map((r) => ({ day: r.day, checks: Number(r.checks), up: Number(r.up), judged: Number(r.judged) }));
  const latency = d.days.map((r) => ({ day: r.day, p50: finiteOrNull(r.latency_p50), p95: finiteOrNull(r.latency_p95) }));
  const [first] = dayRange(d.today, HISTORY_DAYS);
  return `<section class="card" id="uptime">
  <h2>Uptime</h2>
  <table id="uptime-windows"><thead><tr><th class="nowrap">window</th><th class="r">uptime</th><th class="r">checks</th><th class="r">p50 latency</th><th class="r">p95 latency</th></tr></thead>
  <tbody>${row('24 hours', a.uptime['24h'])}${row('7 days', a.uptime['7d'])}${row('30 days', a.uptime['30d'])}${row('90 days', a.uptime['90d'])}</tbody></table>
  <p class="note">Uptime is up / (up + down) of the agent's checks; unknown and skipped checks are left out. Latency is that of checks that were up.</p>
</section>
<section class="card wide" id="history">
  <h2>Last ${HISTORY_DAYS} days</h2>
  <figure class="chart-figure" data-chart="uptime-bar">${renderUptimeBar(history, { today: d.today, days: HISTORY_DAYS })}
  <figcaption class="note">${escapeHtml(first ?? '')} … ${escapeHtml(d.today)} (UTC). One cell a day: green at 99% up or more, yellow from 95%, orange from 80%, red below, grey without a judged check. Hover a day for its figures.</figcaption></figure>
  <figure class="chart-figure" data-chart="latency">${renderLatencyChart(latency, { today: d.today, days: HISTORY_DAYS })}
  <figcaption class="note">Latency per day, p50 (solid) and p95 (dashed), of the checks that were up.</figcaption></figure>
</section>`;
}

function changeRow(c: AgentChangeRow): string {
  const states =
    c.from_state !== null || c.to_state !== null ? `${escapeHtml(c.from_state ?? '–')} → ${escapeHtml(c.to_state ?? '–')}` : '';
  return `<tr data-kind="${escapeHtml(c.kind)}"><td>${escapeHtml(when(isoTime(c.observed_at)))}</td><td>${escapeHtml(c.kind)}</td><td>${states}</td>
  <td>${escapeHtml(c.summary)}${c.reasons.length ? `<ul class="plain">${c.reasons.map((r) => ruleItem(r, 'fail')).join('')}</ul>` : ''}</td></tr>`;
}

function changesCard(d: AgentPageData): string {
  const corrections = d.corrections
    .map(
      (c) =>
        `<li class="correction"><strong>${escapeHtml(when(isoTime(c.observed_at)))}</strong>: ${escapeHtml(c.summary)}${c.reasons.length ? `<ul class="plain">${c.reasons.map((r) => `<li>${escapeHtml(r)}</li>`).join('')}</ul>` : ''}</li>`,
    )
    .join('');
  return `<section class="card wide" id="changes">
  <h2>History of changes</h2>
  <p class="muted">Went down, came back up, verdict changed, listed, delisted: newest first${d.changes.length >= CHANGES_SHOWN ? `, the last ${CHANGES_SHOWN}` : ''}. Also as a feed: <a href="/agents/${escapeHtml(encodeURIComponent(d.agent.id))}/feed.atom">feed.atom</a>.</p>
  <table><thead><tr><th>when</th><th>change</th><th>from → to</th><th>what</th></tr></thead>
  <tbody>${d.changes.map(changeRow).join('\n') || '<tr><td colspan="4" class="muted">No changes recorded yet.</td></tr>'}</tbody></table>
  <h2 id="corrections">Corrections</h2>
  <p class="muted">Results an owner disputed (Methods §9): we re-probe and log the outcome here.</p>
  <ul class="plain">${corrections || '<li class="muted">No corrections.</li>'}</ul>
</section>`;
}

function followCard(d: AgentPageData): string {
  const id = encodeURIComponent(d.agent.id);
  const badge = (kind: string) => `${d.origin}/badge/${id}/${kind}.svg`;
  const page = `${d.origin}/agents/${id}`;
  const snippet = `[![uptime](${badge('uptime')})](${page}) [![conformance](${badge('conformance')})](${page})`;
  return `<section class="card" id="follow">
  <h2>Follow this agent</h2>
  <ul class="plain">
    <li>Uptime badge (30 days): <a href="/badge/${escapeHtml(id)}/uptime.svg">/badge/${escapeHtml(id)}/uptime.svg</a></li>
    <li>Conformance badge (latest verdict): <a href="/badge/${escapeHtml(id)}/conformance.svg">/badge/${escapeHtml(id)}/conformance.svg</a></li>
    <li>Atom feed of its changes: <a href="/agents/${escapeHtml(id)}/feed.atom">/agents/${escapeHtml(id)}/feed.atom</a></li>
    <li>JSON: <a href="/agents/${escapeHtml(id)}">/agents/${escapeHtml(id)}</a> (ask for <code>application/json</code>)</li>
  </ul>
  <h3>Badges for a README (Markdown)</h3>
  <pre id="badge-markdown">${escapeHtml(snippet)}</pre>
</section>`;
}

export function renderAgentPage(d: AgentPageData): string {
  const a = d.agent;
  return renderPage({
    title: `${a.name || a.id} — VeronikAI`,
    header: `<h1><a href="/">VeronikAI</a> / ${escapeHtml(a.name || a.id)}</h1><div class="muted">${escapeHtml(a.protocol.toUpperCase())} · <code>${escapeHtml(a.key)}</code> · checker <code>${escapeHtml(a.checkerVersion)}</code> · page generated ${escapeHtml(when(d.generatedAt))}</div>`,
    main: `${identityCard(a)}
${latestCard(a)}
${uptimeCard(a, d)}
${changesCard(d)}
${followCard(d)}`,
    footer: `<a href="/">Back to the dashboard</a> · JSON: <a href="/agents/${escapeHtml(encodeURIComponent(a.id))}">/agents/${escapeHtml(a.id)}</a>. Uptime counts the agent's own checks; ecosystem shares on the dashboard come from each run's uniform random sample.`,
  });
}
