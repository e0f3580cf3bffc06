import { createHash } from 'node:crypto';
import { xmlChars } from '../core/xml.js';

/**
 * Status badges as shields.io draws them ("flat" style): a grey label and a coloured value, two
 * rectangles under a rounded clip, white Verdana 11 px text with a shadow. Pure: a badge is a
 * function of its label, value and colour, so the same state gives the same bytes (and ETag).
 *
 * Widths come from a table of Verdana 11 px advance widths (ASCII; anything else counts as the
 * widest letter), never from the font the viewer happens to have: each text carries
 * `textLength`, so a viewer with DejaVu or Geneva instead stretches or squeezes it to the same
 * box, and the badge looks the same everywhere. Every value is XML-escaped and stripped of the
 * characters XML 1.0 does not allow, so data can neither break the markup nor the parse.
 */

/** Verdana 11 px advance widths (px) of ASCII 32..126, as shields measures them. */
// prettier-ignore
const VERDANA_11: readonly number[] = [
  3.87, 4.33, 5.05, 9.0, 6.99, 11.84, 7.99, 2.95, 5.0, 5.0, 6.99, 9.0, 4.0, 5.0, 4.0, 5.0, // space ! " # $ % & ' ( ) * + , - . /
  6.99, 6.99, 6.99, 6.99, 6.99, 6.99, 6.99, 6.99, 6.99, 6.99, 5.0, 5.0, 9.0, 9.0, 9.0, 6.0, // 0-9 : ; < = > ?
  11.0, 7.52, 7.54, 7.68, 8.48, 6.96, 6.32, 8.53, 8.27, 4.63, 5.0, 7.62, 6.12, 9.27, 8.23, 8.66, // @ A-O
  6.63, 8.66, 7.65, 7.52, 6.78, 8.05, 7.52, 10.88, 7.54, 6.77, 7.54, 5.0, 5.0, 5.0, 9.0, 6.99, // P-Z [ \ ] ^ _
  6.99, 6.61, 6.85, 5.73, 6.85, 6.55, 3.87, 6.85, 6.96, 3.02, 3.79, 6.51, 3.02, 10.7, 6.96, 6.68, // ` a-o
  6.85, 6.85, 4.69, 5.73, 4.33, 6.96, 6.51, 9.0, 6.51, 6.51, 5.78, 6.98, 5.0, 6.98, 9.0, // p-z { | } ~
];
/** A character outside the table (or a combining one): as wide as the widest letter, so text never overflows its box. */
const FALLBACK_WIDTH = 11.0;
/** Space on each side of a text, px. */
const PADDING = 5;
export const BADGE_HEIGHT = 20;
/** Longest label or value drawn; a longer one is cut with an ellipsis (a badge is a word or two). */
export const BADGE_TEXT_MAX = 64;

/** Shields' named colours. */
export const COLORS = {
  brightgreen: '#4c1',
  green: '#97ca00',
  yellow: '#dfb317',
  orange: '#fe7d37',
  red: '#e05d44',
  lightgrey: '#9f9f9f',
  grey: '#555',
} as const;
export type BadgeColor = keyof typeof COLORS;

/** Text safe in XML character data and in a quoted attribute value. */
export function escapeXml(value: unknown): string {
  return xmlChars(String(value ?? '')).replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c]!,
  );
}

/** The width of a text in Verdana 11 px (unrounded), from the table. */
export function textWidth(text: string): number {
  let w = 0;
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    w += code >= 32 && code <= 126 ? VERDANA_11[code - 32]! : FALLBACK_WIDTH;
  }
  return w;
}

/** Rounded up to an odd number of pixels (as shields does), so a centred text starts on a whole pixel. */
function preferredWidth(text: string): number {
  const w = Math.ceil(textWidth(text));
  return w % 2 === 0 ? w + 1 : w;
}

function clip(text: string): string {
  const clean = xmlChars(text).replace(/\s+/g, ' ').trim();
  const chars = [...clean];
  return chars.length > BADGE_TEXT_MAX ? `${chars.slice(0, BADGE_TEXT_MAX - 1).join('')}…` : clean;
}

export interface Badge {
  label: string;
  value: string;
  color: BadgeColor;
}

/** The badge as an SVG document (UTF-8 text). */
export function renderBadge(badge: Badge): string {
  const label = clip(badge.label);
  const value = clip(badge.value);
  const labelText = preferredWidth(label);
  const valueText = preferredWidth(value);
  const labelWidth = labelText + 2 * PADDING;
  const valueWidth = valueText + 2 * PADDING;
  const width = labelWidth + valueWidth;
  const title = escapeXml(`${label}: ${value}`);
  // Ids of this badge's gradient and clip, distinct per badge, so that badges inlined into one page do not borrow each other's.
  const uid = createHash('sha256').update(`${label}\n${value}\n${badge.color}`).digest('hex').slice(0, 8);
  // Text is drawn at 10× and scaled down, as shields does, so positions keep a tenth of a pixel.
  const text = (x: number, length: number, content: string) =>
    `<text aria-hidden="true" x="${x * 10}" y="150" fill="#010101" fill-opacity=".3" transform="scale(.1)" textLength="${length * 10}">${content}</text>` +
    `<text x="${x * 10}" y="140" transform="scale(.1)" fill="#fff" textLength="${length * 10}">${content}</text>`;
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${BADGE_HEIGHT}" role="img" aria-label="${title}">` +
    `<title>${title}</title>` +
    `<linearGradient id="s${uid}" x2="0" y2="100%"><stop offset="0" stop-color="#bbb" stop-opacity=".1"/><stop offset="1" stop-opacity=".1"/></linearGradient>` +
    `<clipPath id="r${uid}"><rect width="${width}" height="${BADGE_HEIGHT}" rx="3" fill="#fff"/></clipPath>` +
    `<g clip-path="url(#r${uid})"><rect width="${labelWidth}" height="${BADGE_HEIGHT}" fill="${COLORS.grey}"/>` +
    `<rect x="${labelWidth}" width="${valueWidth}" height="${BADGE_HEIGHT}" fill="${COLORS[badge.color]}"/>` +
    `<rect width="${width}" height="${BADGE_HEIGHT}" fill="url(#s${uid})"/></g>` +
    '<g fill="#fff" text-anchor="middle" font-family="Verdana,Geneva,DejaVu Sans,sans-serif" text-rendering="geometricPrecision" font-size="110">' +
    text(labelWidth / 2, labelText, escapeXml(label)) +
    text(labelWidth + valueWidth / 2, valueText, escapeXml(value)) +
    '</g></svg>'
  );
}

export const UPTIME_LABEL = 'uptime 30d';
export const CONFORMANCE_LABEL = 'conformance';

/** What a badge says when there is nothing to show: an unknown or hidden agent, or one never judged. */
export const unknownBadge = (label: string): Badge => ({ label, value: 'unknown', color: 'lightgrey' });

/** Shields' uptime colours: brightgreen from 99 %, green from 97 %, yellow from 95 %, orange from 90 %, red below. */
export function uptimeColor(share: number): BadgeColor {
  const pct = share * 100;
  if (pct >= 99) return 'brightgreen';
  if (pct >= 97) return 'green';
  if (pct >= 95) return 'yellow';
  if (pct >= 90) return 'orange';
  return 'red';
}

/**
 * A share as a percentage with two decimals, cut (not rounded) so that 99.996 % never reads as
 * 100 %: only an agent that was never down shows 100 %.
 */
export function formatUptime(share: number): string {
  if (share >= 1) return '100%';
  const hundredths = Math.floor(Math.max(0, share) * 10_000 + 1e-9);
  return `${(hundredths / 100).toFixed(2)}%`;
}

/** The 30-day uptime badge; null (nothing judged up or down in 30 days) is unknown. */
export function uptimeBadge(share: number | null): Badge {
  if (share === null || !Number.isFinite(share)) return unknownBadge(UPTIME_LABEL);
  return { label: UPTIME_LABEL, value: formatUptime(share), color: uptimeColor(share) };
}

/** The conformance badge of a verdict result (pass / fail / unknown / n/a); none is unknown. */
export function conformanceBadge(result: string | null): Badge {
  switch (result) {
    case 'pass':
      return { label: CONFORMANCE_LABEL, value: 'pass', color: 'brightgreen' };
    case 'fail':
      return { label: CONFORMANCE_LABEL, value: 'fail', color: 'red' };
    case 'n/a':
    case 'na':
      return { label: CONFORMANCE_LABEL, value: 'n/a', color: 'lightgrey' };
    default:
      return unknownBadge(CONFORMANCE_LABEL);
  }
}

/** A strong entity tag of a body: its SHA-256, so equal bytes (and only those) share it. */
export function strongEtag(body: string): string {
  return `"${createHash('sha256').update(body, 'utf8').digest('base64url')}"`;
}

/**
 * Whether an If-None-Match header matches an entity tag (RFC 9110 §13.1.2: weak comparison, so
 * `W/"x"` matches `"x"`; `*` matches any current representation).
 */
export function etagMatches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, '');
  const want = opaque(etag);
  return ifNoneMatch.split(',').some((t) => t.trim() === '*' || opaque(t) === want);
}
