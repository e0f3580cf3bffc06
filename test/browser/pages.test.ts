import type { Browser } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentId } from '../../src/identity/agent-key.js';
import type { AgentChangeRow } from '../../src/warehouse/rows.js';
import { addSyntheticAgents, finishSyntheticIndex, syntheticKey } from '../api/synthetic-index.js';
import { browseApi, HAVE_CHROMIUM, recordedPage, warnNoChromium, type BrowsedApi, type RecordedPage } from '../helpers/browser.js';
import { withWarehouse, type TestWarehouse } from '../helpers/warehouse.js';
import { agentChangeRow } from '../helpers/warehouse-rows.js';

/**
 * The dashboard and an agent page in a real browser (Debian's chromium, headless, driven by
 * puppeteer-core) over the real API and an embedded warehouse of synthetic rows: the SVG charts
 * are in the rendered document, nothing is requested from any origin but the test server's, and
 * the page logs no console error and no Content-Security-Policy violation (a positive control
 * shows the violation listener does hear one). One browser for the file.
 */

warnNoChromium('test/browser/pages.test.ts');

const CV = 'browser-test-checker';
const AGENTS = 300;
const DAYS = 90;
/** Agent 1: checked every day of the window (synthetic-index.ts: every 20th agent is never checked). */
const AGENT = agentId(syntheticKey(1));

type Visit = RecordedPage;

describe.skipIf(!HAVE_CHROMIUM)('pages in a real browser', () => {
  let t: TestWarehouse;
  let api: BrowsedApi | undefined;
  let origin = '';
  let browser: Browser;

  beforeAll(async () => {
    t = await withWarehouse('browser-pages');
    await addSyntheticAgents(t.wh, { from: 0, to: AGENTS, days: DAYS, checkerVersion: CV });
    await finishSyntheticIndex(t.wh, { agents: AGENTS, days: DAYS, checkerVersion: CV });
    const key = syntheticKey(1);
    const change = (
      id: string,
      kind: AgentChangeRow['kind'],
      minutesAgo: number,
      from: string | null,
      to: string | null,
      summary: string,
    ) =>
      agentChangeRow({
        observed_at: new Date(Date.now() - minutesAgo * 60_000),
        change_id: id,
        kind,
        agent_key: key,
        agent_id: AGENT,
        protocol: 'mcp',
        name: 'Maps Agent 1',
        checker_version: kind === 'verdict' || kind === 'corrected' ? CV : '',
        cause_event_id: `cause-${id}`,
        from_state: from,
        to_state: to,
        summary,
        reasons: [],
      });
    await t.wh.insert('agent_changes', [
      change('b1', 'down', 300, 'up', 'down', 'went down'),
      change('b2', 'up', 200, 'down', 'up', 'came back up'),
      change('b3', 'corrected', 100, null, null, 'disputed: re-probed, unchanged'),
    ]);
    api = await browseApi(t.wh);
    ({ origin, browser } = api);
  }, 120_000);
  afterAll(async () => {
    await api?.close();
    await t?.close();
  });

  /** Opens a URL with every request recorded (any other origin's is refused) and every console error and CSP violation kept. */
  async function visit(path: string): Promise<Visit> {
    const v = await recordedPage(browser, origin);
    const res = await v.page.goto(`${origin}${path}`, { waitUntil: 'networkidle0' });
    expect(res?.status(), path).toBe(200);
    return v;
  }

  async function expectClean(v: Visit): Promise<void> {
    expect(v.requests.length).toBeGreaterThan(0);
    for (const url of v.requests) expect(url.startsWith('data:') || new URL(url).origin === origin, url).toBe(true);
    expect(v.errors).toEqual([]);
    expect(await v.violations()).toEqual([]);
  }

  it("renders the dashboard's charts with their Wilson bands, and requests nothing from elsewhere", async () => {
    const v = await visit('/');
    const charts = await v.page.$$eval('figure[data-chart] svg.chart', (svgs) =>
      svgs.map((svg) => ({
        chart: svg.closest('figure')!.getAttribute('data-chart'),
        width: svg.getBoundingClientRect().width,
        series: [...svg.querySelectorAll('g.series')].map((g) => g.getAttribute('data-series')),
        allBands: svg.querySelectorAll('g.series[data-series="all"] .band').length,
        allPoints: svg.querySelectorAll('g.series[data-series="all"] circle').length,
      })),
    );
    expect(charts.map((c) => c.chart)).toEqual(['up-by-protocol', 'pass-by-protocol', 'up-by-source', 'pass-by-source']);
    for (const c of charts) {
      expect(c.width, c.chart!).toBeGreaterThan(100);
      expect(c.allBands, c.chart!).toBeGreaterThan(0);
      expect(c.allPoints, c.chart!).toBe(DAYS); // the synthetic rollups have a sample every day
    }
    expect(charts[0]!.series).toEqual(['all', 'a2a', 'mcp']);
    expect(charts[2]!.series).toEqual(['all', 'mcp-registry']);
    // the agent list, in natural order, links to the agent pages
    const names = await v.page.$$eval('#agents a', (as) => as.map((a) => a.textContent));
    expect(names.length).toBeGreaterThan(10);
    await expectClean(v);
    // Positive control: an inline style attribute is refused, and the listener hears it.
    await v.page.evaluate(() => document.body.appendChild(document.createElement('div')).setAttribute('style', 'color:red'));
    await new Promise((r) => setTimeout(r, 200));
    expect((await v.violations()).some((x) => x.startsWith('style-src'))).toBe(true);
    await v.page.close();
  }, 60_000);

  it('renders an agent page (a browser navigation asks for HTML) with its uptime bar and latency chart', async () => {
    const v = await visit(`/agents/${AGENT}`);
    expect(await v.page.title()).toContain('Maps Agent 1');
    const bar = await v.page.$$eval('svg.uptime-bar rect', (rects) => rects.map((r) => r.getAttribute('fill')));
    expect(bar).toHaveLength(90);
    expect(new Set(bar).size).toBeGreaterThan(1); // days of different uptime
    const latency = await v.page.$eval('figure[data-chart="latency"] svg.chart', (svg) => ({
      width: svg.getBoundingClientRect().width,
      series: [...svg.querySelectorAll('g.series')].map((g) => ({
        name: g.getAttribute('data-series'),
        lines: g.querySelectorAll('path.line').length,
        points: g.querySelectorAll('circle').length,
      })),
    }));
    expect(latency.width).toBeGreaterThan(100);
    expect(latency.series.map((s) => s.name)).toEqual(['p50', 'p95']);
    for (const s of latency.series) {
      expect(s.lines, s.name!).toBeGreaterThan(0);
      expect(s.points, s.name!).toBe(DAYS);
    }
    const history = await v.page.$$eval('#changes tr[data-kind]', (rows) => rows.map((r) => r.getAttribute('data-kind')));
    expect(history).toEqual(['up', 'down']);
    expect(await v.page.$eval('#changes li.correction', (li) => li.textContent)).toContain('disputed: re-probed, unchanged');
    // On a narrow screen the uptime windows' names stay on one line each ("24 hours", not "24 ho / urs"),
    // and "Corrections" stands apart from the table of changes above it.
    await v.page.setViewport({ width: 360, height: 800 });
    const layout = await v.page.evaluate(() => {
      const cell = document.querySelector('#uptime-windows tbody td')!;
      const gap =
        document.querySelector('#corrections')!.getBoundingClientRect().top -
        document.querySelector('#changes table')!.getBoundingClientRect().bottom;
      const cs = getComputedStyle(cell);
      const content = cell.getBoundingClientRect().height - parseFloat(cs.paddingTop) - parseFloat(cs.paddingBottom);
      return { text: cell.textContent, lines: Math.round(content / parseFloat(cs.lineHeight)), gap };
    });
    expect(layout.text).toBe('24 hours');
    expect(layout.lines).toBeLessThanOrEqual(1);
    expect(layout.gap).toBeGreaterThanOrEqual(12);
    await expectClean(v);
    await v.page.close();
  }, 60_000);
});
