import { dayRange, dayTicks } from './days.js';
import { renderLineChart } from './line-chart.js';

/**
 * An agent's latency per day: the p50 and p95 (ms) of its checks that were up, one point per
 * UTC day of the window (a day without an up check is a gap), as two series of a line chart.
 */

export interface DayLatency {
  day: string;
  p50: number | null;
  p95: number | null;
}

export const LATENCY_COLOURS = { p50: '#0969da', p95: '#bf3989' } as const;

const ms = (v: number) => `${Math.round(v)} ms`;

export function renderLatencyChart(history: readonly DayLatency[], o: { today: string; days?: number }): string {
  const days = dayRange(o.today, o.days ?? 90);
  const byDay = new Map(history.map((h) => [h.day, h]));
  const series = (key: 'p50' | 'p95') => ({
    name: key,
    colour: LATENCY_COLOURS[key],
    dashed: key === 'p95',
    points: days.map((day, x) => {
      const v = byDay.get(day)?.[key] ?? null;
      return { x, y: v, title: v === null ? undefined : `${day}: ${key} ${ms(v)}` };
    }),
  });
  return renderLineChart({
    title: `Latency per day (p50 and p95 of checks that were up), last ${days.length} days`,
    slots: days.length,
    xTicks: dayTicks(days, 15),
    yDomain: 'auto',
    yFormat: ms,
    series: [series('p50'), series('p95')],
  });
}
