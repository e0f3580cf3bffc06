import { createHash } from 'node:crypto';
import type { FastifyReply } from 'fastify';

/**
 * What every server-rendered page shares: one escaper for every value taken from data (agent
 * names, URLs and reasons are untrusted), the formatters, one stylesheet, the strict
 * Content-Security-Policy (only the page's own style and script run, by hash; requests go to this
 * origin only), the page shell and how a page is sent. The dashboard, the agent pages and the
 * HTML 404 are built from it; charts are inline SVG (src/api/svg), styled by attributes and the
 * classes below, so they need nothing the policy forbids.
 */

export function escapeHtml(value: unknown): string {
  return String(value ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

export const pct = (x: number | null | undefined) =>
  x === null || x === undefined || !Number.isFinite(x) ? '–' : `${(x * 100).toFixed(1)}%`;
export const num = (n: number) => n.toLocaleString('en-US');
/** '2026-11-30T10:04:05.123Z' → '2026-11-30 10:04 UTC'. */
export const when = (iso: string | null) => (iso ? `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC` : 'never');

export const PAGE_STYLE = `
:root{color-scheme:light dark;--bg:#f6f7f9;--fg:#1b1f24;--muted:#5b6470;--card:#fff;--line:#dde1e6;--ok:#1a7f37;--warn:#9a6700;--bad:#cf222e}
@media (prefers-color-scheme:dark){:root{--bg:#0f1216;--fg:#e6e9ed;--muted:#9aa4af;--card:#171b21;--line:#2a3038;--ok:#3fb950;--warn:#d29922;--bad:#f85149}}
*{box-sizing:border-box}body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:var(--bg);color:var(--fg)}
header{padding:16px 24px;border-bottom:1px solid var(--line);background:var(--card)}header h1{margin:0;font-size:20px}
main{display:grid;grid-template-columns:repeat(auto-fit,minmax(380px,1fr));gap:16px;padding:16px 24px;max-width:1400px;margin:0 auto}
.card{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:14px 18px;min-width:0}.wide{grid-column:1/-1}
h2{font-size:16px;margin:0 0 6px}.muted{color:var(--muted)}.ci{color:var(--muted);font-size:12px}.note{color:var(--muted);font-size:12px}
.badge{font-size:11px;font-weight:600;padding:2px 8px;border-radius:10px;vertical-align:middle;border:1px solid currentColor}.badge.ok{color:var(--ok)}.badge.warn{color:var(--warn)}.badge.bad{color:var(--bad)}
.warnbox{border-left:3px solid var(--warn);padding:6px 10px;background:color-mix(in srgb,var(--warn) 10%,transparent)}
dl.figures{display:grid;grid-template-columns:max-content 1fr;gap:6px 14px;margin:8px 0}dt{color:var(--muted)}dd{margin:0}dd strong{font-size:18px}dd .ci{display:block}
h3{font-size:12px;font-weight:600;color:var(--muted);margin:10px 0 4px;text-transform:uppercase;letter-spacing:.04em}
.stats{display:grid;grid-template-columns:repeat(4,minmax(0,1fr));gap:8px}.stat{border:1px solid var(--line);border-radius:6px;padding:6px 10px}
.stat .n{display:block;font-size:18px;font-weight:600}.stat .l{color:var(--muted);font-size:12px}
table{border-collapse:collapse;width:100%;margin-top:8px}th,td{text-align:left;padding:5px 8px;border-bottom:1px solid var(--line);vertical-align:top;overflow-wrap:anywhere}
th{font-size:12px;color:var(--muted);font-weight:600}.r{text-align:right;white-space:nowrap}th.nowrap,td.nowrap{white-space:nowrap;overflow-wrap:normal}
table+h2,table+h3{margin-top:18px}
td.up,.up{color:var(--ok)}td.down,.down,.fail{color:var(--bad)}td.unknown,td.skipped{color:var(--warn)}.pass{color:var(--ok)}
a{color:inherit}input[type=search]{width:min(420px,100%);padding:6px 8px;border:1px solid var(--line);border-radius:6px;background:var(--bg);color:var(--fg)}
select{padding:6px 8px;border:1px solid var(--line);border-radius:6px;background:var(--bg);color:var(--fg)}
button{padding:6px 12px;border:1px solid var(--line);border-radius:6px;background:var(--bg);color:var(--fg)}code{font-size:12px}
pre{white-space:pre-wrap;overflow-wrap:anywhere;background:var(--bg);border:1px solid var(--line);border-radius:6px;padding:6px 8px;font-size:12px}
footer{padding:8px 24px 24px;color:var(--muted);font-size:12px;max-width:1400px;margin:0 auto}
.charts{display:grid;grid-template-columns:repeat(auto-fit,minmax(460px,1fr));gap:12px}
svg.chart{display:block;width:100%;height:auto;max-width:900px;font-size:11px}svg.chart text{fill:currentColor}
svg.chart .grid{stroke:var(--line)}svg.chart .axis{stroke:var(--muted)}
svg.uptime-bar{display:block;width:100%;height:auto;max-width:900px}
ul.plain{list-style:none;padding:0;margin:6px 0}ul.plain li{margin:4px 0}
mark{background:color-mix(in srgb,var(--warn) 30%,transparent);color:inherit;border-radius:2px;padding:0 1px}
.facets{display:flex;flex-wrap:wrap;gap:4px 16px;margin:8px 0}.facets a{margin-right:8px;text-decoration:none}.facets a.on{font-weight:600;text-decoration:underline}
`;

const sha256 = (s: string) => `'sha256-${createHash('sha256').update(s, 'utf8').digest('base64')}'`;

/** Only the page's own style (and script, if it has one) run; it may fetch from its own origin and nothing else. */
export function contentSecurityPolicy(o: { style: string; script?: string }): string {
  return [
    "default-src 'none'",
    `style-src ${sha256(o.style)}`,
    `script-src ${o.script === undefined ? "'none'" : sha256(o.script)}`,
    "connect-src 'self'",
    "img-src 'self' data:",
    "form-action 'self'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** The policy of a page without a script (agent pages, the 404 page). */
export const PAGE_CSP = contentSecurityPolicy({ style: PAGE_STYLE });

export interface PageParts {
  title: string;
  /** Inner HTML of the header (escaped by the caller). */
  header: string;
  /** Inner HTML of <main>. */
  main: string;
  footer?: string;
  script?: string;
}

export function renderPage(p: PageParts): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>${escapeHtml(p.title)}</title>
<style>${PAGE_STYLE}</style>
</head>
<body>
<header>${p.header}</header>
<main>
${p.main}
</main>
${p.footer ? `<footer>${p.footer}</footer>\n` : ''}${p.script === undefined ? '' : `<script>${p.script}</script>\n`}</body>
</html>
`;
}

/** Sends a page with its policy; pages are never cached (they show the latest state). */
export function sendPage(reply: FastifyReply, html: string, csp: string, status = 200): FastifyReply {
  return reply
    .code(status)
    .header('content-type', 'text/html; charset=utf-8')
    .header('content-security-policy', csp)
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'no-referrer')
    .header('cache-control', 'no-store')
    .send(html);
}

/** The HTML 404 page (an unknown or hidden agent, asked for as a page). */
export function notFoundPage(what: string, requestId: string): string {
  return renderPage({
    title: 'Not found — VeronikAI',
    header: '<h1><a href="/">VeronikAI</a></h1>',
    main: `<section class="card wide"><h2>Not found</h2><p>${escapeHtml(what)}</p><p class="muted">request <code>${escapeHtml(requestId)}</code> · <a href="/">back to the dashboard</a></p></section>`,
  });
}

/**
 * Whether the client prefers HTML to JSON, by its Accept header (RFC 9110 §12.5.1): each type's
 * weight is that of the most specific range matching it; HTML wins on a higher weight, or on an
 * equal one when text/html is named before application/json. No header, `*\/*`, or a tie between
 * wildcards stays JSON, the API's default. A browser's navigation (`text/html,…,*\/*;q=0.8`) is HTML.
 */
export function prefersHtml(accept: string | undefined): boolean {
  if (!accept) return false;
  const ranges = accept
    .slice(0, 1024)
    .split(',')
    .slice(0, 32)
    .map((part, index) => {
      const [type = '', ...params] = part.split(';').map((s) => s.trim().toLowerCase());
      const q = params.find((p) => p.startsWith('q='));
      const weight = q === undefined ? 1 : Number(q.slice(2));
      return { type, weight: Number.isFinite(weight) ? Math.min(1, Math.max(0, weight)) : 0, index };
    });
  const match = (mime: string) => {
    const [major] = mime.split('/');
    const specificity = (t: string) => (t === mime ? 2 : t === `${major}/*` ? 1 : t === '*/*' ? 0 : -1);
    let best: { weight: number; specificity: number; index: number } | null = null;
    for (const r of ranges) {
      const s = specificity(r.type);
      if (s >= 0 && (!best || s > best.specificity)) best = { weight: r.weight, specificity: s, index: r.index };
    }
    return best;
  };
  const html = match('text/html');
  const json = match('application/json');
  if (!html || html.weight === 0) return false;
  if (!json || html.weight > json.weight) return true;
  if (html.weight < json.weight) return false;
  // Equal weights: the one named explicitly, and earlier, wins; wildcards alone leave JSON.
  if (html.specificity !== json.specificity) return html.specificity > json.specificity;
  return html.specificity === 2 && html.index < json.index;
}
