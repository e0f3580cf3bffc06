import { escapeHtml } from '../pages/html.js';
import { dayRange } from './days.js';

/**
 * The 90-day uptime bar of an agent page, as status pages draw it: one cell (an SVG rect) per
 * UTC day, oldest on the left, coloured by that day's uptime = up / (up + down), grey for a
 * day without a judged check, each with a <title> tooltip (day, uptime, checks). Pure: the
 * same days give the same SVG.
 */

export interface DayUptime {
  day: string;
  checks: number;
  up: number;
  /** up + down: the checks that judged the agent up or down. */
  judged: number;
}

export const UPTIME_COLOURS = {
  ok: '#2da44e',
  minor: '#d4a72c',
  major: '#e16f24',
  bad: '#cf222e',
  none: '#8c959f',
} as const;

/** A day's colour: green at 99 % and above, yellow at 95 %, orange at 80 %, red below, grey without data. */
export function uptimeColour(uptime: number | null): string {
  if (uptime === null || !Number.isFinite(uptime)) return UPTIME_COLOURS.none;
  if (uptime >= 0.99) return UPTIME_COLOURS.ok;
  if (uptime >= 0.95) return UPTIME_COLOURS.minor;
  if (uptime >= 0.8) return UPTIME_COLOURS.major;
  return UPTIME_COLOURS.bad;
}

const CELL = 8;
const GAP = 2;
const HEIGHT = 34;

export function renderUptimeBar(history: readonly DayUptime[], o: { today: string; days?: number; label?: string }): string {
  const days = dayRange(o.today, o.days ?? 90);
  const byDay = new Map(history.map((h) => [h.day, h]));
  const width = days.length * (CELL + GAP) - GAP;
  const cells = days.map((day, i) => {
    const h = byDay.get(day);
    const uptime = h && h.judged > 0 ? h.up / h.judged : null;
    const tip =
      !h || h.checks === 0
        ? `${day}: no data`
        : uptime === null
          ? `${day}: no judged checks (${h.checks} check${h.checks === 1 ? '' : 's'}, none up or down)`
          : `${day}: ${(uptime * 100).toFixed(uptime === 1 ? 0 : 1)}% up (${h.up} of ${h.judged} judged, ${h.checks} check${h.checks === 1 ? '' : 's'})`;
    return `<rect x="${i * (CELL + GAP)}" y="0" width="${CELL}" height="${HEIGHT}" rx="1.5" fill="${uptimeColour(uptime)}" data-day="${escapeHtml(day)}"><title>${escapeHtml(tip)}</title></rect>`;
  });
  const label = o.label ?? `Uptime per day, last ${days.length} days`;
  return `<svg class="uptime-bar" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${HEIGHT}" width="${width}" height="${HEIGHT}" role="img" aria-label="${escapeHtml(label)}" preserveAspectRatio="none">
<title>${escapeHtml(label)}</title>
${cells.join('\n')}
</svg>`;
}
