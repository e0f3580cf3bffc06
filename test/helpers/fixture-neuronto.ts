import { opaque, sendJson, startFixture, type FixtureBase } from './fixture-common.js';

/**
 * A local Neuronto open feed (ARD): `GET /agents?pageSize=&pageToken=` → `{ items, total,
 * pageToken }`, pageSize default 20 and capped at 100, the page token opaque (base64 JSON),
 * absent on the last page. Entries are ARD catalogEntry objects whose `type` is a media type
 * in one of several spellings, and not every entry is an agent (skills, APIs). Tokens carry
 * an epoch: after `expireTokens()` an old token is refused with 400.
 *
 * `{ real: true }` answers as Neuronto's own code does (app/main.py `agents_endpoint`, see
 * ../shared/corpus/sources/README.md): `{ items, totalSize, nextPageToken }`, the token the
 * next offset as a decimal string (a token that is not a number reads as offset 0), pageSize
 * 1..100 (else 422), `orderBy` `created_at` = the order entries were added, anything else = by
 * `displayName` (its default), keys whose value is null dropped.
 */
export interface NeurontoFixture extends FixtureBase {
  entries: Array<Record<string, unknown>>;
  epoch: number;
  real: boolean;
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

/** An entry as Neuronto's `row_to_entry` returns it: its keys only, nulls dropped, no `updatedAt` and no `data`. */
export function neurontoEntry(
  identifier: string,
  type: string,
  url: string | null,
  extra: { displayName?: string | null; description?: string | null; version?: string | null; capabilities?: string[] } = {},
): Record<string, unknown> {
  const full: Record<string, unknown> = {
    identifier,
    displayName: extra.displayName === undefined ? identifier.split(':').pop() : extra.displayName,
    type,
    url,
    description: extra.description === undefined ? `Entry ${identifier}` : extra.description,
    tags: ['fixture'],
    capabilities: extra.capabilities ?? [],
    representativeQueries: [`find ${identifier}`],
    trustManifest: { identity: `did:web:${identifier.split(':')[2] ?? 'example.org'}` },
    version: extra.version ?? null,
  };
  return Object.fromEntries(Object.entries(full).filter(([, v]) => v !== null));
}

export function startFixtureNeuronto(entries: Array<Record<string, unknown>> = [], opts: { real?: boolean } = {}) {
  return startFixture<Omit<NeurontoFixture, keyof FixtureBase>>(
    {
      entries,
      epoch: 1,
      real: opts.real ?? false,
      expireTokens() {
        this.epoch += 1;
      },
    },
    (url, _req, res, self) => {
      if (url.pathname !== '/agents') return sendJson(res, 404, { error: 'not found' });
      const q = url.searchParams;
      if (self.real) return answerAsNeuronto(q, self, res);
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

function answerAsNeuronto(q: URLSearchParams, self: NeurontoFixture, res: Parameters<typeof sendJson>[0]): void {
  const pageSize = q.has('pageSize') ? Number(q.get('pageSize')) : 20;
  if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > 100) {
    return sendJson(res, 422, {
      detail: [{ loc: ['query', 'pageSize'], msg: 'Input should be less than or equal to 100', type: 'less_than_equal' }],
    });
  }
  const token = q.get('pageToken');
  const parsed = token ? Number.parseInt(token, 10) : 0;
  const offset = Number.isNaN(parsed) ? 0 : Math.max(0, parsed);
  const rows =
    (q.get('orderBy') ?? '').trim() === 'created_at'
      ? [...self.entries]
      : [...self.entries].sort((a, b) => String(a.displayName ?? '').localeCompare(String(b.displayName ?? '')));
  const body: Record<string, unknown> = { items: rows.slice(offset, offset + pageSize), totalSize: rows.length };
  if (offset + pageSize < rows.length) body.nextPageToken = String(offset + pageSize);
  sendJson(res, 200, body);
}
