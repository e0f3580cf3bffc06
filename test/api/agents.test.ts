import { describe, expect, it } from 'vitest';
import type { ApiErrorBody } from '../../src/api/errors.js';
import { encodeCursor } from '../../src/api/format.js';
import type { AgentsPageResponse } from '../../src/api/responses.js';
import { AGENTS, idOf, useFilledApi } from './fixture.js';

/**
 * GET /agents (paged by an opaque cursor, filtered, hidden agents never) and the one
 * error shape every error response has: `{ error: { code, message, requestId } }`.
 */

describe('agents API and error shape', () => {
  const { get } = useFilledApi('api-agents');

  it('pages active agents in key order by an opaque cursor, never the hidden one', async () => {
    const keys: string[] = [];
    let cursor: string | null = null;
    do {
      const { status, body }: Awaited<ReturnType<typeof get<AgentsPageResponse>>> = await get<AgentsPageResponse>(
        `/agents?limit=2${cursor ? `&cursor=${cursor}` : ''}`,
      );
      expect(status).toBe(200);
      expect(body.agents.length).toBeLessThanOrEqual(2);
      expect(body.more).toBe(body.nextCursor !== null);
      keys.push(...body.agents.map((a: { key: string }) => a.key));
      cursor = body.nextCursor;
    } while (cursor);
    const active = (['alpha', 'beta', 'hostile', 'unchecked'] as const).map((a) => AGENTS[a].key).sort();
    expect(keys).toEqual(active);
    expect((await get<AgentsPageResponse>('/agents?active=false')).body.agents.map((a: { key: string }) => a.key)).toEqual([
      AGENTS.gone.key,
    ]);
    // A filtered page reads a bounded stretch of keys; this index is well within one, so it is the last page.
    expect((await get('/agents?active=false')).body).toMatchObject({ more: false, nextCursor: null });
    expect((await get('/agents?source=no-such-source')).body).toEqual({ agents: [], more: false, nextCursor: null });
    expect((await get<AgentsPageResponse>('/agents?active=all&protocol=a2a')).body.agents.map((a: { key: string }) => a.key)).toEqual([
      AGENTS.beta.key,
    ]);
    expect((await get<AgentsPageResponse>('/agents?source=smithery')).body.agents.map((a: { key: string }) => a.key).sort()).toEqual(
      [AGENTS.alpha.key, AGENTS.hostile.key].sort(),
    );
  });

  it('serves an agent with ISO times and 0/1 flags, as it always has', async () => {
    const { body } = await get<AgentsPageResponse>('/agents?protocol=a2a');
    expect(body.agents[0]).toMatchObject({
      id: idOf('beta'),
      key: AGENTS.beta.key,
      protocol: 'a2a',
      name: 'Beta Agent',
      active: 1,
      hasServerJson: 0,
      inactiveSince: null,
      firstSeen: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
    });
  });

  it('answers every error as { error: { code, message, requestId } }, the request id also its x-request-id header', async () => {
    const cases: Array<[string, number, string]> = [
      [`/agents?cursor=${encodeCursor('')}x`, 400, 'invalid_cursor'],
      ['/agents?limit=0', 400, 'bad_request'],
      ['/agents?protocol=smtp', 400, 'bad_request'],
      [`/agents/${idOf('hidden')}`, 404, 'not_found'],
      ['/agents/not-an-id', 404, 'not_found'],
      ['/stats/runs/no-such-run', 404, 'not_found'],
      ['/stats/runs/bad%20id', 400, 'bad_request'],
      ['/stats/daily?days=0', 400, 'bad_request'],
      ['/no/such/route', 404, 'not_found'],
    ];
    for (const [url, status, code] of cases) {
      const res = await get<ApiErrorBody>(url);
      expect(res.status, url).toBe(status);
      expect(res.body, url).toEqual({ error: { code, message: expect.any(String), requestId: res.headers['x-request-id'] } });
      expect(res.body.error.requestId, url).toMatch(/^[0-9a-f-]{36}$/);
      expect(res.body.error.message.length, url).toBeGreaterThan(0);
    }
  });
});
