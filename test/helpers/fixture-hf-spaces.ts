import { createHash } from 'node:crypto';
import { opaque, startFixture, type FixtureBase } from './fixture-common.js';

/**
 * A local Hugging Face Hub `GET /api/spaces`: a bare JSON array per page, the next page only
 * in the `Link: <…>; rel="next"` header (a full URL with an opaque cursor), `expand=`
 * (repeatable) choosing the fields beyond `_id` and `id`, a silently capped `limit`, and an
 * ETag per response: a matching If-None-Match gets 304 with no body and no Link header.
 */
export interface HfSpacesFixture extends FixtureBase {
  spaces: Array<Record<string, unknown>>;
  maxLimit: number;
  /** When set, the Link header points here instead of the fixture's own origin. */
  linkOrigin: string | null;
  /** 304 answers given. */
  notModified: number;
}

export function space(
  id: string,
  opts: {
    sdk?: string;
    stage?: string;
    subdomain?: string | null;
    tags?: string[];
    lastModified?: string;
    extra?: Record<string, unknown>;
  } = {},
): Record<string, unknown> {
  const subdomain = opts.subdomain === undefined ? id.toLowerCase().replace(/[^a-z0-9]+/g, '-') : opts.subdomain;
  return {
    _id: createHash('sha1').update(id).digest('hex').slice(0, 24),
    id,
    author: id.split('/')[0],
    sha: createHash('sha1').update(`${id}@1`).digest('hex'),
    createdAt: '2025-06-02T10:00:00.000Z',
    lastModified: opts.lastModified ?? '2025-09-10T08:21:00.000Z',
    private: false,
    disabled: false,
    likes: 14,
    sdk: opts.sdk ?? 'gradio',
    tags: opts.tags ?? ['gradio', 'mcp-server', 'region:us'],
    cardData: { title: `Space ${id}`, short_description: `Fixture Space ${id}`, sdk: opts.sdk ?? 'gradio' },
    ...(subdomain === null ? {} : { subdomain }),
    runtime: { stage: opts.stage ?? 'RUNNING', hardware: { current: 'cpu-basic', requested: 'cpu-basic' }, gcTimeout: 172800 },
    ...opts.extra,
  };
}

export function startFixtureHfSpaces(spaces: Array<Record<string, unknown>> = [], opts: { maxLimit?: number } = {}) {
  return startFixture<Omit<HfSpacesFixture, keyof FixtureBase>>(
    { spaces, maxLimit: opts.maxLimit ?? 1000, linkOrigin: null, notModified: 0 },
    (url, req, res, self) => {
      if (url.pathname !== '/api/spaces') {
        res.writeHead(404, { 'content-type': 'application/json' });
        return void res.end('{"error":"Sorry, we can\'t find the page you are looking for."}');
      }
      const q = url.searchParams;
      const filter = q.get('filter');
      const limit = Math.min(Number(q.get('limit') ?? 1000) || 1000, self.maxLimit);
      const expand = new Set([...q.getAll('expand'), ...q.getAll('expand[]')]);
      if (q.has('full') && expand.size > 0) {
        res.writeHead(400, { 'content-type': 'application/json' });
        return void res.end('{"error":"expand and full cannot be combined"}');
      }
      let rows = [...self.spaces].filter((s) => !filter || (Array.isArray(s.tags) && s.tags.includes(filter)));
      rows.sort((a, b) => String(a._id).localeCompare(String(b._id)));
      const cursor = q.get('cursor');
      if (cursor) {
        const c = opaque.decode<{ after: string }>(cursor);
        if (!c) {
          res.writeHead(400, { 'content-type': 'application/json' });
          return void res.end('{"error":"Invalid cursor"}');
        }
        rows = rows.filter((s) => String(s._id) > c.after);
      }
      const page = rows.slice(0, limit).map((s) => {
        const out: Record<string, unknown> = { _id: s._id, id: s.id };
        for (const k of expand) if (k in s) out[k] = s[k];
        return out;
      });
      const headers: Record<string, string> = { 'content-type': 'application/json; charset=utf-8' };
      if (rows.length > limit) {
        const next = new URLSearchParams(q);
        next.set('cursor', opaque.encode({ after: String(page[page.length - 1]!._id) }));
        headers.link = `<${self.linkOrigin ?? `http://${req.headers.host}`}/api/spaces?${next.toString()}>; rel="next"`;
      }
      const body = JSON.stringify(page);
      const etag = `W/"${createHash('sha1')
        .update(body)
        .update(headers.link ?? '')
        .digest('hex')
        .slice(0, 20)}"`;
      if (req.headers['if-none-match'] === etag) {
        self.notModified += 1;
        res.writeHead(304, { etag });
        return void res.end();
      }
      res.writeHead(200, { ...headers, etag, 'content-length': String(Buffer.byteLength(body)) });
      res.end(body);
    },
  );
}
