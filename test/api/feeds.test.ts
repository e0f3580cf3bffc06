import { xml2js, type Element } from 'xml-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { atomFeed, FEED_LIMIT, FEED_TAG, jsonFeed } from '../../src/api/feeds.js';
import type { AgentChangeRow } from '../../src/warehouse/rows.js';
import { currentCheckerVersion } from '../../src/api/responses.js';
import { buildApi } from '../../src/api/server.js';
import type { EmbeddedWarehouse } from '../../src/warehouse/embedded.js';
import { AGENTS, idOf, NOW, OLD_CHECKER, openFilledWarehouse, type AgentName } from './fixture.js';

/**
 * The change feeds over the filled fixture warehouse, with agent_changes rows inserted directly
 * (the processor that derives them is tested on its own): order, one entry per change id, hidden
 * agents and other checker versions left out, well-formed Atom (parsed back strictly), JSON Feed
 * 1.1's required fields, hostile text kept as text, ETag and 304.
 */

const MIN = 60_000;
const HOSTILE_SUMMARY = `<script>alert("t")</script> ]]> & ]]> &amp; now fails`;
const HOSTILE_REASON = `<img src=x onerror=alert(1)> ]]>`;

interface Change {
  id: string;
  agent: AgentName;
  kind: 'down' | 'up' | 'verdict' | 'listed' | 'delisted' | 'corrected';
  at: number;
  cv?: string;
  from: string | null;
  to: string | null;
  summary: string;
  reasons?: string[];
  name?: string;
}

let cv = '';
let changes: Change[] = [];

const row = (c: Change, writtenAt = NOW) => ({
  observed_at: new Date(c.at),
  change_id: c.id,
  kind: c.kind,
  agent_key: AGENTS[c.agent].key,
  agent_id: idOf(c.agent),
  protocol: AGENTS[c.agent].protocol,
  name: c.name ?? AGENTS[c.agent].name,
  checker_version: c.cv ?? '',
  cause_event_id: `cause-${c.id}`,
  from_state: c.from,
  to_state: c.to,
  summary: c.summary,
  reasons: c.reasons ?? [],
  written_at: new Date(writtenAt),
});

/** Parsed strictly (sax): a malformed document throws. */
const parseXml = (xml: string): Element => xml2js(xml, { compact: false }) as Element;
const kids = (e: Element | undefined, name: string): Element[] => (e?.elements ?? []).filter((c) => c.name === name);
const kid = (e: Element | undefined, name: string): Element | undefined => kids(e, name)[0];
const text = (e: Element | undefined): string =>
  (e?.elements ?? []).map((c) => (c.type === 'text' || c.type === 'cdata' ? String(c.text ?? c.cdata) : text(c))).join('');
const unescapeHtml = (s: string) =>
  s
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');

function atomOf(body: string) {
  const feed = kid(parseXml(body), 'feed')!;
  const entries = kids(feed, 'entry').map((e) => ({
    id: text(kid(e, 'id')),
    title: text(kid(e, 'title')),
    titleType: kid(e, 'title')?.attributes?.type,
    updated: text(kid(e, 'updated')),
    published: text(kid(e, 'published')),
    link: kid(e, 'link')?.attributes?.href,
    content: text(kid(e, 'content')),
    category: kid(e, 'category')?.attributes?.term,
  }));
  return { feed, entries, updated: text(kid(feed, 'updated')), links: kids(feed, 'link').map((l) => l.attributes) };
}

describe('change feeds', () => {
  let wh: EmbeddedWarehouse;
  let close: () => Promise<void>;
  let app: ReturnType<typeof buildApi>;
  const get = (url: string, headers: Record<string, string> = {}) =>
    app.inject({ method: 'GET', url, headers: { host: 'index.example:8787', ...headers } });

  beforeAll(async () => {
    ({ wh, close } = await openFilledWarehouse('feeds'));
    cv = await currentCheckerVersion(wh);
    expect(cv).not.toBe(OLD_CHECKER);
    changes = [
      { id: 'c01', agent: 'alpha', kind: 'listed', at: NOW - 90 * MIN, from: null, to: 'listed', summary: 'Alpha MCP was listed' },
      {
        id: 'c02',
        agent: 'alpha',
        kind: 'down',
        at: NOW - 80 * MIN,
        from: 'up',
        to: 'down',
        summary: 'Alpha MCP went down',
        reasons: ['timeout'],
      },
      { id: 'c03', agent: 'alpha', kind: 'up', at: NOW - 70 * MIN, from: 'down', to: 'up', summary: 'Alpha MCP came back up' },
      {
        id: 'c04',
        agent: 'alpha',
        kind: 'verdict',
        at: NOW - 60 * MIN,
        cv,
        from: 'pass',
        to: 'fail',
        summary: 'Alpha MCP now fails',
        reasons: ['MCP-003'],
      },
      // the same probe judged by another checker version: not this feed's history
      {
        id: 'c05',
        agent: 'alpha',
        kind: 'verdict',
        at: NOW - 55 * MIN,
        cv: OLD_CHECKER,
        from: 'fail',
        to: 'pass',
        summary: 'old checker says pass',
      },
      {
        id: 'c06',
        agent: 'alpha',
        kind: 'corrected',
        at: NOW - 50 * MIN,
        cv,
        from: 'fail',
        to: 'pass',
        summary: 'Alpha MCP: dispute answered, verdict corrected',
        reasons: ['re-probe passed: the card is served again'],
      },
      { id: 'c07', agent: 'hidden', kind: 'down', at: NOW - 40 * MIN, from: 'up', to: 'down', summary: 'Hidden One went down' },
      {
        id: 'c08',
        agent: 'hostile',
        kind: 'verdict',
        at: NOW - 30 * MIN,
        cv,
        from: 'pass',
        to: 'fail',
        summary: HOSTILE_SUMMARY,
        reasons: [HOSTILE_REASON],
      },
      {
        id: 'c09',
        agent: 'beta',
        kind: 'delisted',
        at: NOW - 20 * MIN,
        from: 'listed',
        to: 'delisted',
        summary: 'Beta Agent was delisted',
      },
    ];
    await wh.insert(
      'agent_changes',
      changes.map((c) => row(c)),
    );
    // The up change delivered again (a crash between write and commit): one entry, not two.
    await wh.insert('agent_changes', [
      row(
        changes.find((c) => c.id === 'c03')!,
        NOW + 1000,
      ),
    ]);
    app = buildApi({ warehouse: wh });
    await app.ready();
  });
  afterAll(async () => {
    await app?.close();
    await close?.();
  });

  const shown = () => changes.filter((c) => c.agent !== 'hidden' && (!c.cv || c.cv === cv)).sort((a, b) => b.at - a.at);

  it('/feed.atom: well-formed Atom, newest first, one entry per change, hidden agents and other checker versions left out', async () => {
    const res = await get('/feed.atom');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/atom+xml; charset=utf-8');
    // No public URL here: the links come from Host, so no shared cache may keep the feed.
    expect(res.headers['cache-control']).toMatch(/^private, max-age=\d+$/);
    expect(res.headers.etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    const atom = atomOf(res.body);
    expect(atom.feed.attributes?.xmlns).toBe('http://www.w3.org/2005/Atom');
    expect(atom.entries.map((e) => e.id)).toEqual(shown().map((c) => `${FEED_TAG}change:${c.id}`));
    expect(new Set(atom.entries.map((e) => e.id)).size).toBe(atom.entries.length);
    expect(res.body).not.toContain('Hidden One');
    expect(res.body).not.toContain('old checker');
    // The feed was updated when its newest entry was observed.
    expect(atom.updated).toBe(new Date(shown()[0]!.at).toISOString());
    expect(atom.links).toContainEqual({ rel: 'self', href: 'http://index.example:8787/feed.atom' });
    expect(text(kid(atom.feed, 'id'))).toBe(`${FEED_TAG}changes`);
    expect(text(kid(kid(atom.feed, 'author'), 'name'))).toBe('VeronikAI');
    for (const [i, e] of atom.entries.entries()) {
      const c = shown()[i]!;
      expect(e.updated).toBe(new Date(c.at).toISOString());
      expect(e.published).toBe(e.updated);
      expect(e.link).toBe(`http://index.example:8787/agents/${idOf(c.agent)}`);
      expect(e.titleType).toBe('html');
      expect(unescapeHtml(e.title)).toBe(c.summary);
      expect(e.category).toBe(c.kind);
      expect(e.content).toContain(`<strong>${c.from ?? 'none'}</strong> → <strong>${c.to ?? 'none'}</strong>`);
    }
    const down = atom.entries.find((e) => e.id.endsWith(':c02'))!;
    expect(down.content).toContain('<li>timeout</li>');
    const corrected = atom.entries.find((e) => e.id.endsWith(':c06'))!;
    expect(corrected.content).toContain('Outcome of the dispute');
    expect(corrected.content).toContain('<li>re-probe passed: the card is served again</li>');
    expect(corrected.content).toContain('(changed)');
  });

  it('keeps hostile names and summaries as text in both feeds', async () => {
    const atom = await get('/feed.atom');
    // No markup from data anywhere in the document; ']]>' never ends a CDATA section early.
    expect(atom.body).not.toMatch(/<script|<img/i);
    expect(atom.body.split(']]>').length).toBe(atom.body.split('<![CDATA[').length);
    const entry = atomOf(atom.body).entries.find((e) => e.id.endsWith(':c08'))!;
    expect(unescapeHtml(entry.title)).toBe(HOSTILE_SUMMARY);
    expect(entry.content).not.toMatch(/<script|<img/i);
    expect(entry.content).toContain(HOSTILE_REASON.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;'));

    const json = (await get('/feed.json')).json();
    const item = json.items.find((i: { id: string }) => i.id.endsWith(':c08'));
    expect(item.title).toBe(HOSTILE_SUMMARY);
    expect(item.content_html).not.toMatch(/<script|<img/i);
    expect(item._veronikai.reasons).toEqual([HOSTILE_REASON]);

    // The hostile agent's own feed carries its name in the feed title, escaped.
    const own = await get(`/agents/${idOf('hostile')}/feed.atom`);
    expect(own.statusCode).toBe(200);
    expect(own.body).not.toMatch(/<script|<img/i);
    expect(text(kid(atomOf(own.body).feed, 'title'))).toBe(`VeronikAI: changes of ${AGENTS.hostile.name}`);
  });

  it('/feed.json: JSON Feed 1.1 with its required fields, the same entries in the same order', async () => {
    const res = await get('/feed.json');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/feed+json; charset=utf-8');
    const feed = res.json();
    expect(feed.version).toBe('https://jsonfeed.org/version/1.1');
    expect(feed.title).toEqual(expect.any(String));
    expect(feed.feed_url).toBe('http://index.example:8787/feed.json');
    expect(feed.home_page_url).toBe('http://index.example:8787/');
    expect(feed.authors).toEqual([{ name: 'VeronikAI', url: 'http://index.example:8787/' }]);
    expect(feed.items.map((i: { id: string }) => i.id)).toEqual(shown().map((c) => `${FEED_TAG}change:${c.id}`));
    for (const [i, item] of (feed.items as Array<Record<string, unknown>>).entries()) {
      const c = shown()[i]!;
      expect(typeof item.id).toBe('string');
      expect(typeof item.content_html).toBe('string');
      expect(item.date_published).toBe(new Date(c.at).toISOString());
      expect(item.url).toBe(`http://index.example:8787/agents/${idOf(c.agent)}`);
      expect(item.tags).toEqual([c.kind]);
      expect(item._veronikai).toMatchObject({ kind: c.kind, change_id: c.id, agent_id: idOf(c.agent), from: c.from, to: c.to });
    }
  });

  it("/agents/:id/feed.atom: that agent's changes only; unknown, hidden or malformed ids are 404 in the one error shape", async () => {
    const res = await get(`/agents/${idOf('alpha')}/feed.atom`);
    expect(res.statusCode).toBe(200);
    const atom = atomOf(res.body);
    expect(atom.entries.map((e) => e.id)).toEqual(
      shown()
        .filter((c) => c.agent === 'alpha')
        .map((c) => `${FEED_TAG}change:${c.id}`),
    );
    expect(atom.links).toContainEqual({ rel: 'self', href: `http://index.example:8787/agents/${idOf('alpha')}/feed.atom` });
    expect(atom.links).toContainEqual({ rel: 'alternate', href: `http://index.example:8787/agents/${idOf('alpha')}` });

    for (const id of [idOf('hidden'), '0123456789abcdef', 'not-an-id', '<script>']) {
      const r = await get(`/agents/${encodeURIComponent(id)}/feed.atom`);
      expect(r.statusCode, id).toBe(404);
      expect(r.json(), id).toEqual({ error: { code: 'not_found', message: 'agent not found', requestId: r.headers['x-request-id'] } });
    }
  });

  it('an agent without changes has an empty feed, updated at the epoch, with a stable ETag', async () => {
    const a = await get(`/agents/${idOf('unchecked')}/feed.atom`);
    const b = await get(`/agents/${idOf('unchecked')}/feed.atom`);
    expect(a.statusCode).toBe(200);
    expect(atomOf(a.body).entries).toEqual([]);
    expect(atomOf(a.body).updated).toBe('1970-01-01T00:00:00.000Z');
    expect(b.headers.etag).toBe(a.headers.etag);
  });

  it('answers 304 to If-None-Match with the current ETag, 200 to another', async () => {
    for (const url of ['/feed.atom', '/feed.json', `/agents/${idOf('alpha')}/feed.atom`]) {
      const first = await get(url);
      const etag = String(first.headers.etag);
      const again = await get(url, { 'if-none-match': etag });
      expect(again.statusCode, url).toBe(304);
      expect(again.body, url).toBe('');
      expect(again.headers.etag, url).toBe(etag);
      expect((await get(url, { 'if-none-match': `W/${etag}` })).statusCode, url).toBe(304);
      expect((await get(url, { 'if-none-match': '"something-else"' })).statusCode, url).toBe(200);
      // Another host gives other links, so other bytes and another ETag.
      expect((await get(url, { host: 'mirror.example' })).headers.etag, url).not.toBe(etag);
    }
  });

  it('links under the configured public URL, and never echoes a Host that is not a host', async () => {
    const hostile = await get('/feed.json', { host: 'evil.example/"><script>' });
    expect(hostile.json().feed_url).toBe('http://localhost/feed.json');
    const pub = buildApi({ warehouse: wh, publicUrl: 'https://veronikai.example/' });
    try {
      const res = await pub.inject({ method: 'GET', url: '/feed.atom', headers: { host: 'internal:8787' } });
      expect(atomOf(res.body).links).toContainEqual({ rel: 'self', href: 'https://veronikai.example/feed.atom' });
      expect(atomOf(res.body).entries[0]!.link).toMatch(/^https:\/\/veronikai\.example\/agents\/[0-9a-f]{16}$/);
    } finally {
      await pub.close();
    }
  });

  // A shared cache in front of the API keys a response by its URL, not by Host: a feed whose links
  // follow the Host header must say so and must not be shared, or one forged request poisons it.
  const hostDependent = ['/feed.atom', '/feed.json', `/agents/${idOf('alpha')}/feed.atom`];

  it('with a public URL, a forged Host appears in no feed or agent page, and feeds stay public without Vary: Host', async () => {
    const pub = buildApi({ warehouse: wh, publicUrl: 'https://veronikai.example' });
    try {
      const evil = (url: string, headers: Record<string, string> = {}) =>
        pub.inject({ method: 'GET', url, headers: { host: 'evil.example', ...headers } });
      for (const url of hostDependent) {
        const res = await evil(url);
        expect(res.statusCode, url).toBe(200);
        expect(res.body, url).not.toContain('evil.example');
        expect(res.body, url).toContain('https://veronikai.example/');
        expect(res.headers['cache-control'], url).toMatch(/^public, max-age=\d+$/);
        expect(String(res.headers.vary ?? ''), url).not.toMatch(/host/i);
        // The bytes (so the ETag) do not depend on the Host either.
        expect((await evil(url, { host: 'index.example:8787' })).headers.etag, url).toBe(res.headers.etag);
      }
      const page = await evil(`/agents/${idOf('alpha')}`, { accept: 'text/html' });
      expect(page.statusCode).toBe(200);
      expect(page.body).not.toContain('evil.example');
      expect(page.body).toContain(`https://veronikai.example/badge/${idOf('alpha')}/uptime.svg`);
    } finally {
      await pub.close();
    }
  });

  it('without a public URL, Host-made links come with Vary: Host and private caching, on 200 and 304 alike', async () => {
    for (const url of hostDependent) {
      const res = await get(url, { host: 'evil.example' });
      expect(res.statusCode, url).toBe(200);
      expect(res.body, url).toContain('http://evil.example/');
      expect(res.headers.vary, url).toMatch(/(^|,\s*)Host(\s*,|$)/);
      expect(res.headers['cache-control'], url).toMatch(/^private, max-age=\d+$/);
      expect(res.headers['cache-control'], url).not.toMatch(/public/);
      const again = await get(url, { host: 'evil.example', 'if-none-match': String(res.headers.etag) });
      expect(again.statusCode, url).toBe(304);
      expect(again.headers.vary, url).toMatch(/(^|,\s*)Host(\s*,|$)/);
      expect(again.headers['cache-control'], url).toMatch(/^private, /);
    }
    // The agent page's badge snippet is Host-made too: never stored, and it varies by Host as by Accept.
    const page = await get(`/agents/${idOf('alpha')}`, { host: 'evil.example', accept: 'text/html' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['cache-control']).toBe('no-store');
    expect(String(page.headers.vary).split(/,\s*/)).toEqual(['Accept', 'Host']);
  });

  it(`keeps at most ${FEED_LIMIT} entries, the newest`, async () => {
    const many: Change[] = Array.from({ length: FEED_LIMIT + 5 }, (_, i) => ({
      id: `m${String(i).padStart(3, '0')}`,
      agent: 'beta',
      kind: i % 2 ? 'up' : 'down',
      at: NOW - 10 * MIN + i * 1000,
      from: null,
      to: null,
      summary: `bulk ${i}`,
    }));
    await wh.insert(
      'agent_changes',
      many.map((c) => row(c)),
    );
    const feed = (await get('/feed.json')).json();
    expect(feed.items).toHaveLength(FEED_LIMIT);
    expect(feed.items[0].id).toBe(`${FEED_TAG}change:m${String(FEED_LIMIT + 4).padStart(3, '0')}`);
    expect(feed.items.at(-1).id).toBe(`${FEED_TAG}change:m005`);
  });
});

describe('feed documents (pure)', () => {
  const name = 'Tom &amp; Jerry <b>]]> \u0001\uFFFF';
  const read = 'Tom &amp; Jerry <b>]]> ';
  const change: AgentChangeRow = {
    observed_at: '2026-11-30 10:04:05.123',
    change_id: 'ab'.repeat(16),
    kind: 'listed',
    agent_key: 'https://x.example/mcp',
    agent_id: '0123456789abcdef',
    protocol: 'mcp',
    name,
    checker_version: '',
    cause_event_id: 'e1',
    from_state: null,
    to_state: 'listed',
    summary: `${name} was listed`,
    reasons: [],
  };
  const ctx = { baseUrl: 'https://h.example', scope: { kind: 'agent', id: '0123456789abcdef', name } } as const;

  it('reads every text back exactly, less the characters XML cannot carry', () => {
    const atom = atomOf(atomFeed([change], ctx));
    expect(text(kid(atom.feed, 'title'))).toBe(`VeronikAI: changes of ${read}`);
    expect(unescapeHtml(atom.entries[0]!.title)).toBe(`${read} was listed`);
    expect(atom.entries[0]!.updated).toBe('2026-11-30T10:04:05.123Z');
    expect(atom.updated).toBe('2026-11-30T10:04:05.123Z');
    const json = jsonFeed([change], ctx);
    expect(json.items[0]!.title).toBe(`${read} was listed`);
    expect(json.items[0]!._veronikai.name).toBe(read);
  });

  it('is the same bytes for the same rows, and empty feeds date from the epoch', () => {
    expect(atomFeed([change], ctx)).toBe(atomFeed([change], ctx));
    expect(atomOf(atomFeed([], { baseUrl: 'https://h.example', scope: { kind: 'ecosystem' } })).updated).toBe('1970-01-01T00:00:00.000Z');
    expect(jsonFeed([], { baseUrl: 'https://h.example', scope: { kind: 'ecosystem' } }).items).toEqual([]);
  });
});
