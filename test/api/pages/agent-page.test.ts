import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PAGE_CSP } from '../../../src/api/pages/html.js';
import { currentCheckerVersion } from '../../../src/api/responses.js';
import { buildApi } from '../../../src/api/server.js';
import { UPTIME_COLOURS } from '../../../src/api/svg/uptime-bar.js';
import { getRule } from '../../../src/conformance/catalogue.js';
import type { EmbeddedWarehouse } from '../../../src/warehouse/embedded.js';
import type { AgentChangeRow } from '../../../src/warehouse/rows.js';
import { agentChangeRow, DAY_MS, type RowOverrides } from '../../helpers/warehouse-rows.js';
import { AGENTS, HOSTILE_NAME, idOf, NOW, OLD_CHECKER, openFilledWarehouse, T, type AgentName } from '../fixture.js';

/**
 * GET /agents/:id as a page (Accept: text/html) over the filled fixture: identity and listings,
 * the latest verdict's failing rules linked to their specification, the uptime windows, the
 * 90-day bar and latency chart from agent_status, the changes and corrections from agent_changes
 * (rows inserted directly), the badges and feed; JSON unchanged for every other Accept; hostile
 * text escaped; hidden and unknown agents a 404 page.
 */

const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';
const HOSTILE_REASON = `A2A-CARD-006 #/description: <img src=x onerror=alert(2)> is not text`;
const BAD_RULE = 'A2A-CARD-005';
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

let cv = '';
const change = (agent: AgentName, id: string, kind: AgentChangeRow['kind'], at: number, extra: RowOverrides<'agent_changes'> = {}) =>
  agentChangeRow({
    observed_at: new Date(at),
    change_id: id,
    kind,
    agent_key: AGENTS[agent].key,
    agent_id: idOf(agent),
    protocol: AGENTS[agent].protocol,
    name: AGENTS[agent].name,
    checker_version: kind === 'verdict' || kind === 'corrected' ? cv : '',
    cause_event_id: `cause-${id}`,
    from_state: null,
    to_state: null,
    summary: `${kind} of ${agent}`,
    reasons: [],
    written_at: new Date(NOW),
    ...extra,
  });

describe('agent page', () => {
  let wh: EmbeddedWarehouse;
  let close: () => Promise<void>;
  let app: ReturnType<typeof buildApi>;
  const page = async (agent: AgentName | string, accept = BROWSER) => {
    const id = agent in AGENTS ? idOf(agent as AgentName) : agent;
    return app.inject({ method: 'GET', url: `/agents/${id}`, headers: { accept } });
  };

  beforeAll(async () => {
    ({ wh, close } = await openFilledWarehouse('api-agent-page'));
    cv = await currentCheckerVersion(wh);
    // A newer latest state for beta: failing rules (one from the catalogue, one with a hostile
    // message, one no longer catalogued), an unknown note and a warning.
    await wh.insert('agent_latest', [
      {
        checker_version: cv,
        agent_key: AGENTS.beta.key,
        agent_id: idOf('beta'),
        protocol: 'a2a',
        source: 'a2a-registry',
        event_id: 'b-new',
        observed_at: new Date(NOW - 60_000),
        uptime: 'up',
        reason: '',
        http_status: 200,
        latency_ms: 90,
        in_sample: 0,
        our_side: 0,
        suite_id: 'veronikai-a2a-get-card',
        suite_version: '1',
        result: 'fail',
        reasons: [
          `${BAD_RULE} #/name: name must be a non-empty string.`,
          HOSTILE_REASON,
          'ZZ-GONE-001 #/x: retired rule',
          'unknown: a skill could not be read',
        ],
        warnings: ['warn: A2A-CARD-013 #/skills/0: skill id missing'],
        a2a_version: '0.3.0',
        a2a_route: 'well-known',
        signature: 'sig',
      },
    ]);
    await wh.insert('agent_changes', [
      change('alpha', 'ch-down', 'down', T.older, { from_state: 'up', to_state: 'down', summary: 'went down (http_5xx)' }),
      change('alpha', 'ch-up', 'up', T.completeChecks, { from_state: 'down', to_state: 'up', summary: 'came back up' }),
      change('alpha', 'ch-verdict', 'verdict', T.p1, {
        from_state: 'pass',
        to_state: 'fail',
        summary: '<b>now fails</b>',
        reasons: [`${BAD_RULE} #/name: name must be a non-empty string.`],
      }),
      change('alpha', 'ch-corr', 'corrected', T.p1 + 1000, {
        summary: 'disputed by the owner: re-probed, verdict unchanged',
        reasons: ['re-probe p9: pass'],
      }),
      // another checker version's verdict change, and another agent's change: not on alpha's page
      change('alpha', 'ch-old', 'verdict', T.p1, { checker_version: OLD_CHECKER, summary: 'old checker change' }),
      change('beta', 'ch-beta', 'down', T.p2, { summary: 'beta went down' }),
    ]);
    app = buildApi({ warehouse: wh });
  });
  afterAll(async () => {
    await app?.close();
    await close?.();
  });

  it('answers HTML to a browser, under the strict policy, and JSON otherwise, the JSON unchanged', async () => {
    const res = await page('alpha');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['content-security-policy']).toBe(PAGE_CSP);
    // Host too: without a public URL the badge snippet's links follow the request's Host.
    expect(res.headers.vary).toBe('Accept, Host');
    const style = /<style>([\s\S]*?)<\/style>/.exec(res.body)![1]!;
    expect(PAGE_CSP).toContain(`style-src 'sha256-${createHash('sha256').update(style, 'utf8').digest('base64')}'`);
    expect(res.body).not.toMatch(/<script\b/);
    expect(res.body).not.toMatch(/\bstyle\s*=/); // no inline style attribute (the policy would block it)
    expect(res.body).not.toMatch(/\bsrc\s*=/);

    const plain = await app.inject({ method: 'GET', url: `/agents/${idOf('alpha')}` });
    expect(plain.headers['content-type']).toMatch(/^application\/json/);
    const body = plain.json();
    expect(body).toMatchObject({ id: idOf('alpha'), name: 'Alpha MCP', latestVerdict: { result: 'pass' } });
    for (const accept of ['application/json', '*/*', 'application/json, text/html']) {
      const r = await page('alpha', accept);
      expect(r.headers['content-type'], accept).toMatch(/^application\/json/);
      expect(r.json(), accept).toEqual(body);
    }
  });

  it('shows identity, sources with first seen, uptime windows and links back', async () => {
    const html = (await page('alpha')).body;
    expect(html).toContain('<h2>Alpha MCP <span class="badge ok">active</span></h2>');
    expect(html).toContain(`<code>${AGENTS.alpha.key}</code>`);
    expect(html).toContain(`<a href="${AGENTS.alpha.key}" rel="nofollow noopener noreferrer">`);
    for (const s of AGENTS.alpha.sources) expect(html).toContain(`<code>${s}</code>`);
    const windows = /<table id="uptime-windows">([\s\S]*?)<\/table>/.exec(html)![1]!;
    expect(windows).toMatch(
      /<td class="nowrap">24 hours<\/td><td class="r"><strong>100\.0%<\/strong><\/td><td class="r">1<\/td><td class="r">120 ms<\/td>/,
    );
    expect(windows).toMatch(/<td class="nowrap">7 days<\/td><td class="r"><strong>66\.7%<\/strong><\/td><td class="r">3<\/td>/);
    expect(html).toContain('<a href="/">Back to the dashboard</a>');
    expect(html).toContain(`<a href="/agents/${idOf('alpha')}">/agents/${idOf('alpha')}</a>`);
  });

  it("draws the 90-day uptime bar and the latency chart from the agent's days", async () => {
    const html = (await page('alpha')).body;
    const bar = /<svg class="uptime-bar"[\s\S]*?<\/svg>/.exec(html)![0];
    expect(bar.match(/<rect /g)).toHaveLength(90);
    const fill = (d: string) => new RegExp(`fill="(#[0-9a-f]{6})" data-day="${d}"`).exec(bar)?.[1];
    expect(fill(day(T.p1))).toBe(UPTIME_COLOURS.ok);
    expect(fill(day(T.completeChecks))).toBe(UPTIME_COLOURS.ok);
    expect(fill(day(T.older))).toBe(UPTIME_COLOURS.bad); // the one check that day was down
    expect(fill(day(NOW - 40 * DAY_MS))).toBe(UPTIME_COLOURS.none);
    expect(bar).toContain(`<title>${day(T.older)}: 0.0% up (0 of 1 judged, 1 check)</title>`);
    const chart = /<figure class="chart-figure" data-chart="latency">([\s\S]*?)<\/figure>/.exec(html)![1]!;
    for (const s of ['p50', 'p95']) {
      const series = new RegExp(`<g class="series" data-series="${s}">([\\s\\S]*?)</g>`).exec(chart)![1]!;
      expect(series.match(/<circle /g), s).toHaveLength(2); // two days with an up check
      expect(series).toContain(`<title>${day(T.p1)}: ${s} 120 ms</title>`);
    }
  });

  it('lists each failing rule with its message and its specification link, escaped', async () => {
    const html = (await page('beta')).body;
    expect(html).toContain('<strong class="fail" id="verdict-result">fail</strong>');
    const rules = /<ul class="plain" id="failing-rules">([\s\S]*?)<\/ul>/.exec(html)![1]!;
    const rule = getRule(BAD_RULE)!;
    expect(rules).toContain(
      `<li class="rule fail" data-rule="${BAD_RULE}"><code>${BAD_RULE}</code> <strong>${rule.title}</strong>: name must be a non-empty string.`,
    );
    expect(rules).toContain(`<a href="${rule.link}" rel="noopener noreferrer">${rule.section}</a>`);
    expect(rules).toContain('&lt;img src=x onerror=alert(2)&gt; is not text');
    expect(rules).toContain("not in this build's rule catalogue");
    expect(rules.match(/<li /g)).toHaveLength(3);
    expect(html).toContain('<li>unknown: a skill could not be read</li>');
    expect(/<ul class="plain" id="warnings">([\s\S]*?)<\/ul>/.exec(html)![1]).toContain('data-rule="A2A-CARD-013"');
    expect(html).not.toContain('<img');
  });

  it('shows the history of changes newest first and the corrections apart, of this checker version only', async () => {
    const html = (await page('alpha')).body;
    const history = /<h2>History of changes<\/h2>([\s\S]*?)<h2 id="corrections">/.exec(html)![1]!;
    expect([...history.matchAll(/<tr data-kind="(\w+)">/g)].map((m) => m[1])).toEqual(['verdict', 'up', 'down']);
    expect(history).toContain('&lt;b&gt;now fails&lt;/b&gt;');
    expect(history).toContain('down → up');
    expect(history).toContain(`data-rule="${BAD_RULE}"`);
    expect(history).not.toContain('old checker change');
    expect(history).not.toContain('beta went down');
    const corrections = /<h2 id="corrections">([\s\S]*?)<\/section>/.exec(html)![1]!;
    expect(corrections).toContain('disputed by the owner: re-probed, verdict unchanged');
    expect(corrections).toContain('<li>re-probe p9: pass</li>');
    expect((await page('gone', BROWSER)).statusCode).toBe(200); // inactive agents keep their page
  });

  it('links the badges and the feed, with a Markdown snippet', async () => {
    const id = idOf('alpha');
    const html = (await page('alpha')).body;
    expect(html).toContain(`<a href="/badge/${id}/uptime.svg">`);
    expect(html).toContain(`<a href="/badge/${id}/conformance.svg">`);
    expect(html).toContain(`<a href="/agents/${id}/feed.atom">`);
    const md = /<pre id="badge-markdown">([\s\S]*?)<\/pre>/.exec(html)![1]!;
    expect(md).toBe(
      `[![uptime](http://localhost:80/badge/${id}/uptime.svg)](http://localhost:80/agents/${id}) [![conformance](http://localhost:80/badge/${id}/conformance.svg)](http://localhost:80/agents/${id})`,
    );
  });

  it('escapes a hostile agent name', async () => {
    const html = (await page('hostile')).body;
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(html).not.toContain(HOSTILE_NAME);
    expect(html).not.toMatch(/<(img|script)\b/);
  });

  it('answers a hidden or unknown agent with the 404 page, or the JSON error', async () => {
    for (const id of [idOf('hidden'), '0000000000000000', 'not-an-id']) {
      const res = await page(id);
      expect(res.statusCode, id).toBe(404);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.headers['content-security-policy']).toBe(PAGE_CSP);
      expect(res.body).toContain('<h2>Not found</h2>');
      expect(res.body).not.toContain('Hidden One');
      const json = await page(id, 'application/json');
      expect(json.statusCode).toBe(404);
      expect(json.json()).toMatchObject({ error: { code: 'not_found' } });
    }
  });
});
