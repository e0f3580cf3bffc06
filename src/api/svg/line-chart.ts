import { escapeHtml } from '../pages/html.js';

/**
 * A small line chart in SVG: x is a slot index (a day of the window), y a value; each series is a
 * polyline (a path, broken where a value is missing) with an optional band (a filled area between
 * low and high, e.g. a 95 % Wilson interval) and a marker per point with a <title> tooltip. Axes,
 * grid lines, tick labels and a legend are drawn too. Colours are attributes and text takes the
 * page's colour (currentColor), so the chart needs no inline style and passes a strict CSP. Pure.
 */

export interface ChartPoint {
  x: number;
  y: number | null;
  /** The band at this point (both or neither). */
  low?: number | null;
  high?: number | null;
  /** The marker's tooltip. */
  title?: string;
}

export interface ChartSeries {
  name: string;
  colour: string;
  points: readonly ChartPoint[];
  /** Draw the band from the points' low/high. */
  band?: boolean;
  dashed?: boolean;
}

export interface LineChartOptions {
  /** The chart's accessible name (its <title>). */
  title: string;
  /** Slots 0 … slots-1 along x. */
  slots: number;
  xTicks: ReadonlyArray<{ x: number; label: string }>;
  /** [min, max] of y, or 'auto' (0 up to a round number above the largest value). */
  yDomain: readonly [number, number] | 'auto';
  yFormat: (v: number) => string;
  yLabel?: string;
  series: readonly ChartSeries[];
  width?: number;
  /** Height above the x labels and legend (the plot and its top margin). */
  height?: number;
}

/** Series colours that read on light and dark backgrounds. */
export const PALETTE = ['#0969da', '#bf3989', '#1a7f37', '#9a6700', '#8250df', '#1b7c83', '#cf222e', '#6e7781'] as const;

const M = { top: 12, right: 12, left: 52 };
/** Room under the plot for the x labels, then one legend row per LEGEND_PER_ROW series. */
const X_LABELS = 26;
const LEGEND_ROW = 16;
const LEGEND_ITEM = 110;
const r2 = (v: number) => Math.round(v * 100) / 100;

/** A round upper bound (1, 2, 2.5, 5 × 10^k) at or above `max`. */
export function niceMax(max: number): number {
  if (!(max > 0) || !Number.isFinite(max)) return 1;
  const p = 10 ** Math.floor(Math.log10(max));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * p >= max) return m * p;
  return 10 * p;
}

/** The runs of consecutive points that have a value (a missing value breaks the line). */
function runs<T>(points: readonly T[], has: (p: T) => boolean): T[][] {
  const out: T[][] = [];
  let cur: T[] = [];
  for (const p of points) {
    if (has(p)) cur.push(p);
    else if (cur.length) {
      out.push(cur);
      cur = [];
    }
  }
  if (cur.length) out.push(cur);
  return out;
}

export function renderLineChart(o: LineChartOptions): string {
  const W = o.width ?? 640;
  const plotW = W - M.left - M.right;
  const perRow = Math.max(1, Math.floor(plotW / LEGEND_ITEM));
  const bottom = X_LABELS + Math.ceil(o.series.length / perRow) * LEGEND_ROW;
  const H = (o.height ?? 200) + bottom;
  const plotH = H - M.top - bottom;
  const finite = (v: number | null | undefined): v is number => typeof v === 'number' && Number.isFinite(v);
  const values = o.series.flatMap((s) => s.points.flatMap((p) => [p.y, s.band ? p.high : null].filter(finite)));
  const [y0, y1] = o.yDomain === 'auto' ? [0, niceMax(Math.max(0, ...values))] : o.yDomain;
  const span = y1 - y0 || 1;
  const sx = (x: number) => r2(M.left + (o.slots <= 1 ? plotW / 2 : (x / (o.slots - 1)) * plotW));
  const sy = (y: number) => r2(M.top + plotH - ((Math.min(y1, Math.max(y0, y)) - y0) / span) * plotH);

  const yTicks = [0, 0.25, 0.5, 0.75, 1].map((f) => y0 + f * span);
  const grid = yTicks
    .map(
      (v) =>
        `<line class="grid" x1="${M.left}" x2="${M.left + plotW}" y1="${sy(v)}" y2="${sy(v)}" stroke-width="1"/>` +
        `<text x="${M.left - 6}" y="${sy(v) + 4}" text-anchor="end">${escapeHtml(o.yFormat(v))}</text>`,
    )
    .join('');
  const xTicks = o.xTicks
    .map(
      (t) =>
        `<line class="axis" x1="${sx(t.x)}" x2="${sx(t.x)}" y1="${M.top + plotH}" y2="${M.top + plotH + 4}"/>` +
        `<text x="${sx(t.x)}" y="${M.top + plotH + 16}" text-anchor="middle">${escapeHtml(t.label)}</text>`,
    )
    .join('');
  const axes =
    `<g class="axes"><line class="axis" x1="${M.left}" x2="${M.left}" y1="${M.top}" y2="${M.top + plotH}"/>` +
    `<line class="axis" x1="${M.left}" x2="${M.left + plotW}" y1="${M.top + plotH}" y2="${M.top + plotH}"/>${grid}${xTicks}` +
    (o.yLabel
      ? `<text x="12" y="${M.top + plotH / 2}" text-anchor="middle" transform="rotate(-90 12 ${M.top + plotH / 2})">${escapeHtml(o.yLabel)}</text>`
      : '') +
    '</g>';

  const series = o.series.map((s) => {
    const name = escapeHtml(s.name);
    const band = s.band
      ? runs(s.points, (p) => finite(p.low) && finite(p.high))
          .map((run) => {
            const upper = run.map((p, i) => `${i === 0 ? 'M' : 'L'}${sx(p.x)} ${sy(p.high!)}`).join(' ');
            // A one-point run is a short bar, so the interval of a lone day still shows.
            const lower = [...run]
              .reverse()
              .map((p) => `L${sx(p.x)} ${sy(p.low!)}`)
              .join(' ');
            return run.length === 1
              ? `<line class="band" x1="${sx(run[0]!.x)}" x2="${sx(run[0]!.x)}" y1="${sy(run[0]!.high!)}" y2="${sy(run[0]!.low!)}" stroke="${s.colour}" stroke-opacity="0.35" stroke-width="6"/>`
              : `<path class="band" d="${upper} ${lower} Z" fill="${s.colour}" fill-opacity="0.15" stroke="none"/>`;
          })
          .join('')
      : '';
    const line = runs(s.points, (p) => finite(p.y))
      .map(
        (run) =>
          `<path class="line" d="${run.map((p, i) => `${i === 0 ? 'M' : 'L'}${sx(p.x)} ${sy(p.y!)}`).join(' ')}" fill="none" stroke="${s.colour}" stroke-width="2"${s.dashed ? ' stroke-dasharray="5 3"' : ''} stroke-linejoin="round"/>`,
      )
      .join('');
    const marks = s.points
      .filter((p) => finite(p.y))
      .map(
        (p) =>
          `<circle cx="${sx(p.x)}" cy="${sy(p.y!)}" r="2.5" fill="${s.colour}"><title>${escapeHtml(p.title ?? `${s.name}: ${o.yFormat(p.y!)}`)}</title></circle>`,
      )
      .join('');
    return `<g class="series" data-series="${name}">${band}${line}${marks}</g>`;
  });
  const legend = o.series
    .map((s, i) => {
      const x = M.left + (i % perRow) * LEGEND_ITEM;
      const y = M.top + plotH + X_LABELS + Math.floor(i / perRow) * LEGEND_ROW + 10;
      return `<g class="legend-item"><rect x="${x}" y="${y - 5}" width="12" height="4" fill="${s.colour}"/><text x="${x + 16}" y="${y}">${escapeHtml(s.name)}</text></g>`;
    })
    .join('');
  const hasData = o.series.some((s) => s.points.some((p) => finite(p.y)));
  const empty = hasData ? '' : `<text class="empty" x="${M.left + plotW / 2}" y="${M.top + plotH / 2}" text-anchor="middle">no data</text>`;
  return `<svg class="chart" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="${escapeHtml(o.title)}">
<title>${escapeHtml(o.title)}</title>
${axes}
${series.join('\n')}
<g class="legend">${legend}</g>${empty}
</svg>`;
}
