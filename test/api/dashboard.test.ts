import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { escapeHtml } from '../../src/api/dashboard.js';
import { buildApi } from '../../src/api/server.js';
import type { EmbeddedWarehouse } from '../../src/warehouse/embedded.js';
import { HOSTILE_NAME, openFilledWarehouse } from './fixture.js';

/**
 * GET /: one self-contained page rendered from the same queries as /stats, with the
 * latest run (in progress, saying so) beside the last complete one, the census, the daily
 * table and the agent list; hostile names escaped, hidden agents absent, nothing external.
 */

describe('dashboard page', () => {
  let wh: EmbeddedWarehouse;
  let close: () => Promise<void>;
  let app: ReturnType<typeof buildApi>;
  let html: string;
  let headers: Record<string, unknown>;

  beforeAll(async () => {
    ({ wh, close } = await openFilledWarehouse('api-dashboard'));
    app = buildApi({ warehouse: wh });
    const res = await app.inject({ method: 'GET', url: '/' });
    expect(res.statusCode).toBe(200);
    html = res.body;
    headers = res.headers;
  });
  afterAll(async () => {
    await app?.close();
    await close?.();
  });

  it('is one HTML page with nothing external, locked down by its Content-Security-Policy', () => {
    expect(headers['content-type']).toBe('text/html; charset=utf-8');
    expect(html).toMatch(/^<!doctype html>/);
    expect(html).not.toMatch(/<(?:iframe|object|embed)\b/i);
    expect(html.match(/<link\b[^>]*>/gi)).toEqual(['<link rel="icon" href="data:,">']); // no favicon request
    expect(html).not.toMatch(/\bsrc\s*=\s*["']?(?:https?:)?\/\//i); // no external script or image
    expect(html.match(/<script\b/g)).toHaveLength(1);
    expect(html.match(/<style\b/g)).toHaveLength(1);
    // The CSP allows exactly this page's script and style, by hash.
    const csp = String(headers['content-security-policy']);
    const hash = (s: string) => `'sha256-${createHash('sha256').update(s, 'utf8').digest('base64')}'`;
    const script = /<script>([\s\S]*?)<\/script>/.exec(html)![1]!;
    const style = /<style>([\s\S]*?)<\/style>/.exec(html)![1]!;
    expect(csp).toContain(`script-src ${hash(script)}`);
    expect(csp).toContain(`style-src ${hash(style)}`);
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("connect-src 'self'");
    // The live search builds rows with textContent, never by parsing HTML.
    expect(script).not.toMatch(/innerHTML|outerHTML|insertAdjacentHTML|document\.write/);
    expect(script).toContain('/stats/agents');
  });

  it('shows the latest run as in progress, with partial figures, beside the last complete run with its intervals', () => {
    expect(html).toContain('Latest daily run <span class="badge warn">in progress</span>');
    expect(html).toMatch(
      /In progress: 2 of 10 sampled checks are in\. These are partial figures of this run's sample, not the whole index\./,
    );
    expect(html).toContain('Last complete run <span class="badge ok">complete</span>');
    // 2 of 3 up and 1 of 2 passing (the hidden agent's sampled check, up and passing, is not counted); Wilson 95% intervals
    expect(html).toMatch(/Agents up \(sample\)<\/dt><dd><strong>66\.7%<\/strong> <span class="ci">95% CI 20\.8%–93\.9% · 2 of 3<\/span>/);
    expect(html).toMatch(
      /Passing conformance \(sample\)<\/dt><dd><strong>50\.0%<\/strong> <span class="ci">95% CI 9\.5%–90\.5% · 1 of 2<\/span>/,
    );
  });

  it('shows the census apart from the sample figures', () => {
    expect(html).toContain('Census of latest states');
    // the hidden agent counted nowhere
    expect(html).toMatch(/<span class="n">4<\/span><span class="l">active<\/span>/);
    expect(html).toMatch(/<span class="n">1<\/span><span class="l">never checked<\/span>/);
    expect(html).toMatch(/<span class="n">2<\/span><span class="l">up<\/span>/);
  });

  it('has the daily table for the last 30 days', () => {
    expect(html).toContain('Daily uptime and conformance, last 30 days');
    expect(html.match(/<tr><td>\d{4}-\d{2}-\d{2}<\/td>/g)!.length).toBeGreaterThanOrEqual(2);
  });

  it('escapes a hostile agent name and keeps hidden agents out', () => {
    expect(html).toContain(escapeHtml(HOSTILE_NAME));
    expect(escapeHtml(HOSTILE_NAME)).toBe(
      '&lt;img src=x onerror=alert(1)&gt;&quot;&#39;&amp;&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;',
    );
    expect(html).not.toContain('<img');
    expect(html).not.toContain('alert("x")</script>');
    expect(html).not.toContain('Hidden One');
    expect(html).not.toContain('Gone Server');
    expect(html).toContain('Alpha MCP');
    expect(html).toContain('not checked (opted out)');
  });

  it('searches on the server too (the page works without JavaScript), escaping the query it echoes', async () => {
    const res = await app.inject({ method: 'GET', url: `/?q=${encodeURIComponent('beta')}` });
    const agents = /<tbody id="agents">([\s\S]*?)<\/tbody>/.exec(res.body)![1]!;
    // The ranked search marks the words it matched, and shows its facets as links.
    expect(agents).toContain('<mark>Beta</mark> Agent');
    expect(agents).not.toContain('Alpha MCP');
    expect(res.body).toMatch(
      /<nav class="facets" aria-label="filters">.*<a href="\/\?q=beta&amp;protocol=a2a">a2a <span class="muted">1<\/span><\/a>/,
    );
    const filtered = await app.inject({ method: 'GET', url: '/?q=beta&protocol=mcp' });
    expect(/<tbody id="agents">([\s\S]*?)<\/tbody>/.exec(filtered.body)![1]).toContain('No agents match.');
    // A hidden agent is not found by its own name.
    const hidden = await app.inject({ method: 'GET', url: `/?q=${encodeURIComponent('Hidden One')}` });
    expect(hidden.body).not.toContain('Hidden</mark>');
    const hostileQuery = await app.inject({ method: 'GET', url: `/?q=${encodeURIComponent('"><script>x()</script>')}` });
    expect(hostileQuery.statusCode).toBe(200);
    expect(hostileQuery.body).toContain('value="&quot;&gt;&lt;script&gt;x()&lt;/script&gt;"');
    expect(hostileQuery.body.match(/<script\b/g)).toHaveLength(1);
  });

  it('pages its agent list by a cursor (a bad one is a 400)', async () => {
    expect(/<p id="more" class="muted">(.*?)<\/p>/.exec(html)![1]).toBe(''); // four agents fit on the first page
    const bad = await app.inject({ method: 'GET', url: '/?cursor=nope' });
    expect(bad.statusCode).toBe(400);
  });
});
