import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHART_DAYS, NO_FILTERS, rateGroups, renderDashboard, type DashboardData } from '../../src/api/dashboard.js';
import type { DailyRow } from '../../src/api/responses.js';
import { buildApi } from '../../src/api/server.js';
import { wilson } from '../../src/stats/wilson.js';
import type { EmbeddedWarehouse } from '../../src/warehouse/embedded.js';
import { agentRow, DAY_MS } from '../helpers/warehouse-rows.js';
import { NOW, openFilledWarehouse } from './fixture.js';

/**
 * The dashboard's charts (ecosystem uptime and pass rate per day with their Wilson bands, by
 * protocol and by source) and its agent list's natural order and filters (protocol, source,
 * state) in a form that works without JavaScript; unknown parameters stay a 400.
 */

const agentsIn = (html: string) =>
  [.../<tbody id="agents">([\s\S]*?)<\/tbody>/.exec(html)![1]!.matchAll(/<a href="\/agents\/[0-9a-f]+">([^<]*)<\/a>/g)].map((m) => m[1]);
const figure = (html: string, chart: string) =>
  new RegExp(`<figure class="chart-figure" data-chart="${chart}">([\\s\\S]*?)</figure>`).exec(html)![1]!;

describe('dashboard charts and agent list filters', () => {
  let wh: EmbeddedWarehouse;
  let close: () => Promise<void>;
  let app: ReturnType<typeof buildApi>;
  const get = (url: string) => app.inject({ method: 'GET', url });

  beforeAll(async () => {
    ({ wh, close } = await openFilledWarehouse('api-dashboard-charts'));
    // Two agents whose names sort differently as text and naturally.
    const holdout = (n: number) =>
      agentRow({
        agent_key: `https://holdout${n}.example.dev/mcp`,
        name: `Holdout ${n}`,
        sources: ['neuronto'],
        first_seen: new Date(NOW - DAY_MS),
        last_seen: new Date(NOW),
        version: NOW,
      });
    await wh.insert('agents', [holdout(10), holdout(2)]);
    app = buildApi({ warehouse: wh });
  });
  afterAll(async () => {
    await app?.close();
    await close?.();
  });

  it('draws uptime and pass rate per day, by protocol and by source, each line with its Wilson band', async () => {
    const html = (await get('/')).body;
    expect(html).toContain(`Ecosystem uptime and conformance per day, last ${CHART_DAYS} days`);
    const series = (svg: string) => [...svg.matchAll(/<g class="series" data-series="([^"]+)">/g)].map((m) => m[1]);
    expect(series(figure(html, 'up-by-protocol'))).toEqual(['all', 'a2a', 'mcp']);
    expect(series(figure(html, 'pass-by-protocol'))).toEqual(['all', 'a2a', 'mcp']);
    // the fixture's checks are attributed to their agents' first sources
    expect(series(figure(html, 'up-by-source'))).toEqual(['all', 'a2a-registry', 'mcp-registry', 'smithery']);
    const all = /<g class="series" data-series="all">([\s\S]*?)<\/g>/.exec(figure(html, 'up-by-protocol'))![1]!;
    // the sample days (the complete run's and the run in progress's) each have an interval
    expect((all.match(/class="band"/g) ?? []).length).toBeGreaterThanOrEqual(1);
    expect(all).toMatch(/<title>all, \d{4}-\d{2}-\d{2}: 66\.7% \(95% CI 20\.8%–93\.9%, 2 of 3\)<\/title>/);
  });

  it("sums each group's sample per day before its interval", () => {
    const row = (day: string, protocol: string, source: string, up: number, down: number) =>
      ({ day, protocol, source, sampleUp: up, sampleDown: down, samplePass: 0, sampleFail: 0 }) as unknown as DailyRow;
    const groups = rateGroups(
      [row('2026-01-02', 'mcp', 's1', 3, 1), row('2026-01-02', 'mcp', 's2', 5, 1), row('2026-01-02', 'a2a', 's1', 0, 2)],
      'protocol',
      'up',
    );
    expect(groups.map((g) => g.name)).toEqual(['a2a', 'mcp']);
    expect(groups[1]!.days.get('2026-01-02')).toEqual(wilson(8, 10));
    expect(groups[0]!.days.get('2026-01-02')).toEqual(wilson(0, 2));
  });

  it('lists agents in natural name order', async () => {
    const names = agentsIn((await get('/')).body);
    expect(names.indexOf('Holdout 2')).toBeGreaterThanOrEqual(0);
    expect(names.indexOf('Holdout 2')).toBeLessThan(names.indexOf('Holdout 10'));
  });

  it('filters by protocol, source and state with a plain GET form', async () => {
    const html = (await get('/')).body;
    expect(html).toMatch(/<form method="get" action="\/" role="search">/);
    for (const name of ['q', 'protocol', 'source', 'state']) expect(html).toContain(`name="${name}"`);
    expect(agentsIn((await get('/?protocol=a2a')).body)).toEqual(['Beta Agent']);
    expect(agentsIn((await get('/?source=neuronto')).body)).toEqual(['Holdout 2', 'Holdout 10']);
    expect(agentsIn((await get('/?source=smithery&protocol=mcp')).body).sort()).toEqual(
      ['Alpha MCP', '&lt;img src=x onerror=alert(1)&gt;&quot;&#39;&amp;&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;'].sort(),
    );
    expect(agentsIn((await get('/?state=down')).body)).toEqual(['Beta Agent']);
    expect(agentsIn((await get('/?state=pass')).body)).toEqual(['Alpha MCP']);
    expect(agentsIn((await get('/?state=fail&source=smithery')).body)).toHaveLength(1);
    expect(agentsIn((await get('/?state=unknown')).body)).toEqual([]);
    expect(agentsIn((await get('/?q=holdout&state=up')).body)).toEqual([]); // never checked
    // an empty select is "any"; the chosen one stays selected
    const chosen = (await get('/?protocol=&source=neuronto&state=')).body;
    expect(agentsIn(chosen)).toEqual(['Holdout 2', 'Holdout 10']);
    expect(chosen).toContain('<option value="neuronto" selected>neuronto</option>');
  });

  it('keeps its querystring closed', async () => {
    for (const q of ['foo=1', 'state=sideways', 'source=nowhere', 'protocol=smtp']) expect((await get(`/?${q}`)).statusCode, q).toBe(400);
  });

  it('carries the filters into the next page link', () => {
    const d = {
      checkerVersion: 'cv',
      latestRun: null,
      lastCompleteRun: null,
      census: {
        kind: 'census',
        checkerVersion: 'cv',
        agents: { active: 0, inactive: 0 },
        latest: { up: 0, down: 0, unknown: 0, skipped: 0, pass: 0, fail: 0, unknownVerdict: 0, notApplicable: 0, neverChecked: 0 },
        asOf: null,
        computedAt: null,
        note: '',
      },
      daily: [],
      chartTotals: [],
      chartRows: [],
      agents: [],
      nextCursor: 'CUR',
      q: 'a&b',
      filters: { ...NO_FILTERS, source: 'smithery', state: 'fail' },
      generatedAt: new Date(NOW).toISOString(),
    } as DashboardData;
    const html = renderDashboard(d);
    expect(html).toContain('<a href="/?q=a%26b&amp;source=smithery&amp;state=fail&amp;cursor=CUR">Next page</a>');
    expect(html).toContain('No matches in this stretch of the list; the next page goes on.');
  });
});
