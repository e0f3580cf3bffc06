import type { Proportion } from '../../stats/wilson.js';
import { dayRange, dayTicks } from './days.js';
import { PALETTE, renderLineChart } from './line-chart.js';

/**
 * A share per day (ecosystem uptime or pass rate) for several groups (all, each protocol, each
 * source), each a line of the day's sample share with its 95 % Wilson band. A day whose sample
 * judged nothing is a gap.
 */

export interface RateGroup {
  name: string;
  days: ReadonlyMap<string, Proportion>;
}

const pct = (v: number) => `${Math.round(v * 100)}%`;
const pct1 = (v: number | null) => (v === null ? '–' : `${(v * 100).toFixed(1)}%`);

export function renderRateChart(title: string, groups: readonly RateGroup[], o: { today: string; days: number }): string {
  const days = dayRange(o.today, o.days);
  return renderLineChart({
    title,
    slots: days.length,
    xTicks: dayTicks(days, o.days > 45 ? 15 : 7),
    yDomain: [0, 1],
    yFormat: pct,
    series: groups.map((g, i) => ({
      name: g.name,
      colour: PALETTE[i % PALETTE.length]!,
      band: true,
      points: days.map((day, x) => {
        const p = g.days.get(day);
        return p && p.share !== null
          ? {
              x,
              y: p.share,
              low: p.low,
              high: p.high,
              title: `${g.name}, ${day}: ${pct1(p.share)} (95% CI ${pct1(p.low)}–${pct1(p.high)}, ${p.successes} of ${p.trials})`,
            }
          : { x, y: null };
      }),
    })),
  });
}
