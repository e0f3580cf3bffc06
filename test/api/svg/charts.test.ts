import { describe, expect, it } from 'vitest';
import { dayRange, dayTicks } from '../../../src/api/svg/days.js';
import { LATENCY_COLOURS, renderLatencyChart } from '../../../src/api/svg/latency-chart.js';
import { niceMax, renderLineChart } from '../../../src/api/svg/line-chart.js';
import { renderRateChart } from '../../../src/api/svg/rate-chart.js';
import { renderUptimeBar, UPTIME_COLOURS, uptimeColour } from '../../../src/api/svg/uptime-bar.js';
import { wilson } from '../../../src/stats/wilson.js';

/** The chart modules are pure: their SVG is checked by element counts, colours and escaping. */

const TODAY = '2026-03-02';
const count = (svg: string, re: RegExp) => svg.match(re)?.length ?? 0;
const attrOf = (svg: string, day: string, attr: string) =>
  new RegExp(`<rect[^>]*\\s${attr}="([^"]+)"[^>]*data-day="${day}"`).exec(svg)?.[1];

describe('day axis', () => {
  it('lists the window oldest first, across a month end, ending today', () => {
    const days = dayRange(TODAY, 90);
    expect(days).toHaveLength(90);
    expect(days.at(-1)).toBe(TODAY);
    expect(days.at(-2)).toBe('2026-03-01');
    expect(days.at(-3)).toBe('2026-02-28');
    expect(days[0]).toBe('2025-12-03');
    expect(dayTicks(days, 15).map((t) => t.x)).toEqual([14, 29, 44, 59, 74, 89]);
  });
});

describe('uptime bar', () => {
  it('colours a day by its uptime as status pages do', () => {
    expect(uptimeColour(1)).toBe(UPTIME_COLOURS.ok);
    expect(uptimeColour(0.99)).toBe(UPTIME_COLOURS.ok);
    expect(uptimeColour(0.985)).toBe(UPTIME_COLOURS.minor);
    expect(uptimeColour(0.95)).toBe(UPTIME_COLOURS.minor);
    expect(uptimeColour(0.9)).toBe(UPTIME_COLOURS.major);
    expect(uptimeColour(0.5)).toBe(UPTIME_COLOURS.bad);
    expect(uptimeColour(null)).toBe(UPTIME_COLOURS.none);
    expect(new Set(Object.values(UPTIME_COLOURS)).size).toBe(5);
  });

  it('draws one cell per day, each with its tooltip, grey where there is no data', () => {
    const svg = renderUptimeBar(
      [
        { day: TODAY, checks: 4, up: 4, judged: 4 },
        { day: '2026-03-01', checks: 10, up: 9, judged: 10 },
        { day: '2026-02-20', checks: 2, up: 0, judged: 2 },
        { day: '2026-02-19', checks: 3, up: 0, judged: 0 },
        { day: '2025-01-01', checks: 1, up: 1, judged: 1 }, // outside the window: not drawn
      ],
      { today: TODAY },
    );
    expect(count(svg, /<rect /g)).toBe(90);
    expect(count(svg, /<title>/g)).toBe(91); // one per cell and the chart's own
    expect(attrOf(svg, TODAY, 'fill')).toBe(UPTIME_COLOURS.ok);
    expect(attrOf(svg, '2026-03-01', 'fill')).toBe(UPTIME_COLOURS.major); // 90 %
    expect(attrOf(svg, '2026-02-20', 'fill')).toBe(UPTIME_COLOURS.bad);
    expect(attrOf(svg, '2026-02-19', 'fill')).toBe(UPTIME_COLOURS.none); // checked, none up or down
    expect(count(svg, new RegExp(`fill="${UPTIME_COLOURS.none}"`, 'g'))).toBe(87);
    expect(svg).toContain('<title>2026-03-01: 90.0% up (9 of 10 judged, 10 checks)</title>');
    expect(svg).toContain('<title>2026-02-19: no judged checks (3 checks, none up or down)</title>');
    expect(svg).toContain('<title>2026-02-18: no data</title>');
    // cells run left to right, oldest first
    expect(Number(attrOf(svg, TODAY, 'x'))).toBeGreaterThan(Number(attrOf(svg, '2026-03-01', 'x')));
  });

  it('escapes its label', () => {
    const svg = renderUptimeBar([], { today: TODAY, days: 3, label: '<script>x</script>"' });
    expect(svg).not.toContain('<script>');
    expect(svg).toContain('&lt;script&gt;x&lt;/script&gt;&quot;');
    expect(count(svg, /<rect /g)).toBe(3);
  });
});

describe('line chart', () => {
  const points = (ys: Array<number | null>) =>
    ys.map((y, x) => ({ x, y, low: y === null ? null : y - 0.1, high: y === null ? null : y + 0.1 }));

  it('breaks a line at a missing value and draws a band per run of values', () => {
    const svg = renderLineChart({
      title: 't',
      slots: 5,
      xTicks: [{ x: 4, label: 'today' }],
      yDomain: [0, 1],
      yFormat: String,
      series: [{ name: 'a', colour: '#111111', band: true, points: points([0.5, 0.6, null, 0.7, 0.8]) }],
    });
    expect(count(svg, /<path class="line"/g)).toBe(2);
    expect(count(svg, /<path class="band"/g)).toBe(2);
    expect(count(svg, /<circle /g)).toBe(4);
    expect(svg).toContain('stroke="#111111"');
    expect(svg).toContain('>today</text>');
  });

  it("shows a lone day's interval as a bar, and says so when there is no data", () => {
    const lone = renderLineChart({
      title: 't',
      slots: 3,
      xTicks: [],
      yDomain: [0, 1],
      yFormat: String,
      series: [{ name: 'a', colour: '#000', band: true, points: points([null, 0.5, null]) }],
    });
    expect(count(lone, /<line class="band"/g)).toBe(1);
    const none = renderLineChart({
      title: 't',
      slots: 3,
      xTicks: [],
      yDomain: 'auto',
      yFormat: String,
      series: [{ name: 'a', colour: '#000', points: points([null, null, null]) }],
    });
    expect(none).toContain('>no data</text>');
    expect(count(none, /<path /g)).toBe(0);
  });

  it('escapes series names, titles and labels', () => {
    const svg = renderLineChart({
      title: '<b>"t"</b>',
      slots: 2,
      xTicks: [{ x: 0, label: '<i>' }],
      yDomain: 'auto',
      yFormat: (v) => `<${v}>`,
      series: [
        {
          name: '<script>alert(1)</script>',
          colour: '#000',
          points: [
            { x: 0, y: 1, title: '<img src=x>' },
            { x: 1, y: 2 },
          ],
        },
      ],
    });
    expect(svg).not.toMatch(/<(script|b|i|img)\b/);
    expect(svg).toContain('data-series="&lt;script&gt;alert(1)&lt;/script&gt;"');
    expect(svg).toContain('<title>&lt;img src=x&gt;</title>');
  });

  it('rounds an automatic y axis up', () => {
    expect([niceMax(0), niceMax(0.7), niceMax(130), niceMax(210), niceMax(4_100)]).toEqual([1, 1, 200, 250, 5_000]);
  });
});

describe('latency chart', () => {
  it('has a p50 and a p95 series with a point per day that has a value', () => {
    const svg = renderLatencyChart(
      [
        { day: TODAY, p50: 120, p95: 300 },
        { day: '2026-02-27', p50: 80, p95: 95 },
        { day: '2026-02-26', p50: null, p95: null },
      ],
      { today: TODAY },
    );
    const series = (name: string) => new RegExp(`<g class="series" data-series="${name}">([\\s\\S]*?)</g>`).exec(svg)![1]!;
    expect(count(series('p50'), /<circle /g)).toBe(2);
    expect(count(series('p95'), /<circle /g)).toBe(2);
    expect(series('p50')).toContain(`stroke="${LATENCY_COLOURS.p50}"`);
    expect(series('p95')).toContain('stroke-dasharray');
    expect(svg).toContain(`<title>${TODAY}: p95 300 ms</title>`);
    expect(svg).toContain('>500 ms</text>'); // the axis tops out at a round value above 300
  });
});

describe('rate chart', () => {
  it('draws each group with its Wilson band', () => {
    const groups = [
      {
        name: 'all',
        days: new Map([
          [TODAY, wilson(80, 100)],
          ['2026-03-01', wilson(70, 100)],
        ]),
      },
      { name: 'a2a', days: new Map([[TODAY, wilson(1, 2)]]) },
    ];
    const svg = renderRateChart('Uptime', groups, { today: TODAY, days: 30 });
    expect(count(svg, /<g class="series"/g)).toBe(2);
    expect(count(svg, /<path class="band"/g)).toBe(1); // all: two days in a row
    expect(count(svg, /<line class="band"/g)).toBe(1); // a2a: one day
    const w = wilson(80, 100);
    expect(svg).toContain(`all, ${TODAY}: 80.0% (95% CI ${(w.low! * 100).toFixed(1)}%–${(w.high! * 100).toFixed(1)}%, 80 of 100)`);
  });
});
