import { opaque, sendJson, startFixture, type FixtureBase } from './fixture-common.js';

/**
 * A local Neuronto open feed (ARD): `GET /agents?pageSize=&pageToken=` → `{ items, total,
 * pageToken }`, pageSize default 20 and capped at 100, the page token opaque (base64 JSON),
 * absent on the last page. Entries are ARD catalogEntry objects whose `type` is a media type
 * in one of several spellings, and not every entry is an agent (skills, APIs). Tokens carry
 * an epoch: after `expireTokens()` an old token is refused with 400.
 */
export interface NeurontoFixture extends FixtureBase {
  entries: Array<Record<string, unknown>>;
  epoch: number;
  expireTokens(): void;
}

export function ardEntry(
  identifier: string,
  type: string,
  url: string | null,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    identifier,
    displayName: `Entry ${identifier.split(':').pop()}`,
    type,
    ...(url ? { url } : {}),
    description: `Fixture ARD entry ${identifier}`,
    tags: ['fixture'],
    version: '1.0.0',
    updatedAt: '2026-08-01T00:00:00Z',
    ...extra,
  };
}

export function startFixtureNeuronto(entries: Array<Record<string, unknown>> = []) {
  return startFixture<Omit<NeurontoFixture, keyof FixtureBase>>(
    {
      entries,
      epoch: 1,
      expireTokens() {
        this.epoch += 1;
      },
    },
    (url, _req, res, self) => {
      if (url.pathname !== '/agents') return sendJson(res, 404, { error: 'not found' });
      const q = url.searchParams;
      const pageSize = Math.min(Math.max(Number(q.get('pageSize') ?? 20) || 20, 1), 100);
      let offset = 0;
      const token = q.get('pageToken');
      if (token) {
        const t = opaque.decode<{ page: number; o: number; e: number }>(token);
        if (!t || t.e !== self.epoch) return sendJson(res, 400, { error: 'invalid pageToken' });
        offset = t.o;
      }
      const items = self.entries.slice(offset, offset + pageSize);
      const body: Record<string, unknown> = { items, total: self.entries.length };
      if (offset + pageSize < self.entries.length) {
        body.pageToken = opaque.encode({ page: Math.floor(offset / pageSize) + 2, o: offset + pageSize, e: self.epoch });
      }
      sendJson(res, 200, body, { 'x-ratelimit-limit': '1000', 'x-ratelimit-remaining': '999' });
    },
  );
}
