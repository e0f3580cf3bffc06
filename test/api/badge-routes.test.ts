import { xml2js, type Element } from 'xml-js';
import { describe, expect, it } from 'vitest';
import { COLORS, formatUptime } from '../../src/api/badge.js';
import type { AgentResponse } from '../../src/api/responses.js';
import { idOf, useFilledApi } from './fixture.js';

/**
 * The badge routes over the filled fixture warehouse: the 30-day uptime the agent's JSON shows,
 * the latest verdict of the served checker version, a grey "unknown" (200, never an error page)
 * for anything else, and the caching headers.
 */

const parse = (svg: string): Element => xml2js(svg, { compact: false }) as Element;
const all = (e: Element, name: string): Element[] => [...(e.name === name ? [e] : []), ...(e.elements ?? []).flatMap((c) => all(c, name))];
const textOf = (e: Element): string => (e.elements ?? []).map((c) => (c.type === 'text' ? String(c.text) : textOf(c))).join('');

/** What a badge says: its title ("label: value") and the value box's colour. */
function read(svg: string): { title: string; color: string } {
  const doc = parse(svg);
  return { title: textOf(all(doc, 'title')[0]!), color: String(all(doc, 'rect')[2]!.attributes!.fill) };
}

describe('badges', () => {
  const api = useFilledApi('api-badges');
  const get = (url: string, headers: Record<string, string> = {}) => api.app().inject({ method: 'GET', url, headers });

  it("uptime: the agent's 30-day uptime, coloured as shields does", async () => {
    for (const agent of ['alpha', 'beta', 'hostile'] as const) {
      const json = (await api.get<AgentResponse>(`/agents/${idOf(agent)}`)).body;
      const share = json.uptime['30d'].uptime as number;
      expect(share, agent).not.toBeNull();
      const res = await get(`/badge/${idOf(agent)}/uptime.svg`);
      expect(res.statusCode, agent).toBe(200);
      const badge = read(res.body);
      expect(badge.title, agent).toBe(`uptime 30d: ${formatUptime(share)}`);
      expect(badge.color, agent).toBe(share >= 0.99 ? COLORS.brightgreen : share < 0.9 ? COLORS.red : expect.any(String));
    }
    // The fixture's figures: alpha up 2 of 3, beta never up, hostile always up.
    expect(read((await get(`/badge/${idOf('alpha')}/uptime.svg`)).body).title).toBe('uptime 30d: 66.66%');
    expect(read((await get(`/badge/${idOf('beta')}/uptime.svg`)).body)).toEqual({ title: 'uptime 30d: 0.00%', color: COLORS.red });
    expect(read((await get(`/badge/${idOf('hostile')}/uptime.svg`)).body)).toEqual({
      title: 'uptime 30d: 100%',
      color: COLORS.brightgreen,
    });
  });

  it('conformance: the latest verdict of the served checker version', async () => {
    expect(read((await get(`/badge/${idOf('alpha')}/conformance.svg`)).body)).toEqual({
      title: 'conformance: pass',
      color: COLORS.brightgreen,
    });
    expect(read((await get(`/badge/${idOf('hostile')}/conformance.svg`)).body)).toEqual({ title: 'conformance: fail', color: COLORS.red });
    expect(read((await get(`/badge/${idOf('beta')}/conformance.svg`)).body)).toEqual({
      title: 'conformance: unknown',
      color: COLORS.lightgrey,
    });
  });

  it('unknown, hidden, never-checked and malformed ids get a grey "unknown" badge with 200', async () => {
    for (const id of [idOf('hidden'), idOf('unchecked'), '0123456789abcdef', 'not-an-id', '%3Cscript%3E', 'A'.repeat(90)]) {
      for (const kind of ['uptime', 'conformance'] as const) {
        const res = await get(`/badge/${id}/${kind}.svg`);
        expect(res.statusCode, `${id} ${kind}`).toBe(200);
        expect(res.headers['content-type']).toBe('image/svg+xml; charset=utf-8');
        expect(read(res.body), `${id} ${kind}`).toEqual({
          title: `${kind === 'uptime' ? 'uptime 30d' : 'conformance'}: unknown`,
          color: COLORS.lightgrey,
        });
      }
    }
    // A hidden agent's badge is byte for byte an unknown agent's: it does not tell that the agent exists.
    expect((await get(`/badge/${idOf('hidden')}/uptime.svg`)).body).toBe((await get('/badge/0123456789abcdef/uptime.svg')).body);
  });

  it('caches for five minutes, with a strong ETag, 304 on If-None-Match, nosniff and a CSP without scripts', async () => {
    const url = `/badge/${idOf('alpha')}/uptime.svg`;
    const res = await get(url);
    expect(res.headers['cache-control']).toBe('public, max-age=300');
    expect(res.headers.etag).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['content-security-policy']).toMatch(/default-src 'none'/);
    expect(res.headers['content-security-policy']).not.toMatch(/script-src/);
    const again = await get(url, { 'if-none-match': String(res.headers.etag) });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    expect(again.headers.etag).toBe(res.headers.etag);
    expect(again.headers['cache-control']).toBe('public, max-age=300');
    expect((await get(url, { 'if-none-match': '"stale"' })).statusCode).toBe(200);
    // Another badge has other bytes, so another ETag.
    expect((await get(`/badge/${idOf('beta')}/uptime.svg`)).headers.etag).not.toBe(res.headers.etag);
  });

  it('refuses unknown query parameters like every route', async () => {
    const res = await get(`/badge/${idOf('alpha')}/uptime.svg?style=flat`);
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('bad_request');
  });
});
