/**
 * Listing pages as the services send them: every file of the shared corpus
 * (../shared/corpus/sources, README there: where each came from and how it differs from
 * ../shared/sources.md) is served from a loopback fixture, read through the real reader, the
 * real runner and the real bounded fetcher, and the agents it holds are checked one by one.
 * The files are read in place, never copied; a test whose file is absent skips and says why.
 *
 * Where a file is not a list page (a Space's runtime object, a Smithery server detail) the
 * test wraps it in the smallest list page that carries it, and says how.
 */
import { describe, expect, it } from 'vitest';
import { agentKey } from '../../../src/identity/agent-key.js';
import { createA2aRegistryOrgSource } from '../../../src/producers/sources/a2aregistry-org.js';
import { createHfSpacesSource, spaceEndpoint } from '../../../src/producers/sources/hf-spaces.js';
import { createMcpRegistrySource, toListing } from '../../../src/producers/sources/mcp-registry.js';
import { createSmitherySource } from '../../../src/producers/sources/smithery.js';
import { corpusAbsent, corpusBytes, corpusJson, startCorpusFixture, type CorpusAnswer } from '../../helpers/fixture-corpus.js';
import { sourceHarness } from './harness.js';

/** A test of one corpus file, or a skip that names the file and why it cannot run. */
function corpusIt(file: string, title: string, body: () => Promise<void>): void {
  const absent = corpusAbsent(file);
  if (absent) it.skip(`${file}: ${absent}`, () => undefined);
  else it(`${file}: ${title}`, body);
}

/** Serves `answer`, runs `source` over it once, and hands back the harness and the fixture's request log. */
async function readThrough(
  source: Parameters<ReturnType<typeof sourceHarness>['run']>[0],
  answer: (url: URL) => CorpusAnswer | null,
  opts: Parameters<ReturnType<typeof sourceHarness>['run']>[2] = {},
) {
  const fx = await startCorpusFixture(answer);
  try {
    const h = sourceHarness();
    const summary = await h.run(source, fx.url, opts);
    return { h, summary, requests: [...fx.requests], listed: h.listed() };
  } finally {
    await fx.close();
  }
}

const byId = <T extends { itemId: string }>(rows: T[]) => new Map(rows.map((r) => [r.itemId, r]));
const ids = (rows: Array<{ itemId: string }>) => rows.map((r) => r.itemId).sort();

describe('mcp-registry: the official MCP Registry', () => {
  const EMPTY_LAST_PAGE = { servers: [], metadata: { count: 0 } };

  corpusIt(
    'mcp-registry/v0-servers-page-limit2-2025-09.json',
    'a real page of two, "nextCursor" followed verbatim, repository {"url":"","source":""}',
    async () => {
      const page = corpusBytes('mcp-registry/v0-servers-page-limit2-2025-09.json');
      // The file is page 1; the page its cursor names is the (empty) last one.
      const { summary, requests, listed, h } = await readThrough(createMcpRegistrySource(), (u) =>
        u.searchParams.get('cursor') === null ? { body: page } : { body: EMPTY_LAST_PAGE },
      );
      expect(summary).toMatchObject({ complete: true, pages: 2, errors: 0, items: 2 });
      expect(new URL(requests[1]!, 'http://x').searchParams.get('cursor')).toBe('ai.explorium/mcp-explorium:1.0.0');
      expect(ids(listed)).toEqual(['ai.alpic.test/test-mcp-server', 'ai.explorium/mcp-explorium']);
      const m = byId(listed);
      expect(m.get('ai.alpic.test/test-mcp-server')).toMatchObject({
        status: 'active',
        version: '0.0.1',
        endpointUrl: 'https://test.alpic.ai/',
        endpointTransport: 'streamable-http',
        updatedAt: '2025-09-10T13:57:43.256739Z',
      });
      expect(m.get('ai.explorium/mcp-explorium')).toMatchObject({
        endpointUrl: 'https://mcp-github-registry.explorium.ai/sse',
        endpointTransport: 'sse',
      });
      // The server.json is kept as sent: the empty repository and the 2025-09-29 $schema included.
      expect(JSON.parse(m.get('ai.alpic.test/test-mcp-server')!.serverJson!)).toMatchObject({ repository: { url: '', source: '' } });
      // Six fractional digits read as a time: the watermark is the newest updatedAt.
      expect((await h.state.load('mcp-registry')).watermark).toBe('2025-09-16T21:06:15.352Z');
    },
  );

  corpusIt(
    'mcp-registry/v0-servers-page-limit2-2025-09.json',
    'every $schema and repository variant the README reports reads alike',
    async () => {
      const [item] = corpusJson<{ servers: Array<{ server: Record<string, unknown>; _meta: unknown }> }>(
        'mcp-registry/v0-servers-page-limit2-2025-09.json',
      ).servers;
      const schemas = ['2025-07-09', '2025-09-16', '2025-09-29', '2025-10-17', '2025-12-11']
        .map((d) => `https://static.modelcontextprotocol.io/schemas/${d}/server.schema.json`)
        .concat([
          'https://static.modelcontextprotocol.io/schemas/2025-10-17/server.schema.json#/definitions/ServerDetail',
          '',
          undefined as unknown as string,
        ]);
      const repositories: unknown[] = [{ url: '', source: '' }, {}, undefined];
      for (const $schema of schemas) {
        for (const repository of repositories) {
          const server: Record<string, unknown> = { ...item!.server, $schema, repository };
          if ($schema === undefined) delete server.$schema;
          if (repository === undefined) delete server.repository;
          expect(
            toListing({ server, _meta: item!._meta }),
            `$schema ${String($schema)}, repository ${JSON.stringify(repository)}`,
          ).toMatchObject({
            itemId: 'ai.alpic.test/test-mcp-server',
            status: 'active',
            endpointUrl: 'https://test.alpic.ai/',
          });
        }
      }
    },
  );

  corpusIt(
    'mcp-registry/v0-servers-mirror-dump-first50-2025-12-12.json',
    '50 version rows of 17 servers (repository {} or absent, header templates): each server once, at its latest version',
    async () => {
      const page = corpusBytes('mcp-registry/v0-servers-mirror-dump-first50-2025-12-12.json');
      const { summary, requests, listed } = await readThrough(createMcpRegistrySource(), () => ({ body: page }));
      // metadata is {count: 2628} with no cursor: one page.
      expect(summary).toMatchObject({ complete: true, pages: 1, errors: 0, invalid: 0 });
      expect(requests).toHaveLength(1);
      const expected: Record<string, [string, string | null]> = {
        'ai.aliengiraffe/spotdb': ['0.1.0', null],
        'ai.alpic.test/test-mcp-server': ['0.0.1', 'https://test.alpic.ai/'],
        'ai.exa/exa': ['3.1.3', 'https://mcp.exa.ai/mcp'],
        'ai.explorium/mcp-explorium': ['1.0.1', 'https://mcp-github-registry.explorium.ai/mcp'],
        'ai.gomarble/mcp-api': ['1.0.0', 'https://apps.gomarble.ai/mcp-api/sse'],
        'ai.klavis/strata': ['1.0.0', 'https://strata.klavis.ai/mcp/'],
        'ai.kubit/mcp-server': ['1.0.0', 'https://mcp.kubit.ai/mcp'],
        'ai.mcpanalytics/analytics': ['1.0.3', 'https://api.mcpanalytics.ai/auth0'],
        'ai.mcpcap/mcpcap': ['0.6.0', null],
        'ai.meminal/meminal': ['1.0.0', 'https://meminal.ai/mcp'],
        'ai.packmind/mcp-server': ['1.0.0', 'https://app.packmind.ai/mcp'],
        'ai.seltz/seltz-ai-seltz-mcp': ['1.0.0', 'https://mcp.seltz.ai/mcp'],
        'ai.shawndurrani/mcp-merchant': ['0.1.3', 'https://mcp.shawndurrani.ai/sse'],
        'ai.shawndurrani/mcp-registry': ['0.1.3', 'https://mcp-registry.shawndurrani.ai/sse'],
        'ai.smithery/222wcnm-bilistalkermcp': ['1.15.0', 'https://server.smithery.ai/@222wcnm/bilistalkermcp/mcp'],
        'ai.smithery/Aman-Amith-Shastry-scientific_computation_mcp': [
          '1.13.1',
          'https://server.smithery.ai/@Aman-Amith-Shastry/scientific_computation_mcp/mcp',
        ],
        'ai.smithery/Artin0123-gemini-image-mcp-server': ['1.4.3', 'https://server.smithery.ai/@Artin0123/gemini-image-mcp-server/mcp'],
      };
      // Every server of the file is listed exactly once (the 33 isLatest:false rows are older versions of these).
      expect(listed).toHaveLength(17);
      expect(ids(listed)).toEqual(Object.keys(expected).sort());
      for (const l of listed) {
        const [version, endpoint] = expected[l.itemId]!;
        expect({ id: l.itemId, version: l.version, endpoint: l.endpointUrl, status: l.status }).toEqual({
          id: l.itemId,
          version,
          endpoint,
          status: 'active',
        });
      }
    },
  );

  corpusIt(
    'mcp-registry/generic-registry-api-doc-example.json',
    'the documented example: "metadata.next_cursor" (snake_case) is followed, no updatedAt',
    async () => {
      const page = corpusBytes('mcp-registry/generic-registry-api-doc-example.json');
      const { summary, requests, listed } = await readThrough(createMcpRegistrySource(), (u) =>
        u.searchParams.get('cursor') === null ? { body: page } : { body: EMPTY_LAST_PAGE },
      );
      // A reader of `nextCursor` only would stop after page 1 and call the pass complete.
      expect(requests).toHaveLength(2);
      expect(new URL(requests[1]!, 'http://x').searchParams.get('cursor')).toBe('eyJ...');
      expect(summary).toMatchObject({ complete: true, pages: 2, errors: 0, items: 1 });
      expect(ids(listed)).toEqual(['io.modelcontextprotocol/filesystem']);
      expect(listed[0]).toMatchObject({
        status: 'active',
        version: '1.0.2',
        updatedAt: null,
        endpointUrl: null,
        description: 'Filesystem operations server',
      });
    },
  );

  corpusIt(
    'pulsemcp/subregistry-v0.1-list-test-fixture.json',
    'PulseMCP Sub-Registry (official-registry shaped, its own _meta): both servers through the mcp-registry reader',
    async () => {
      const page = corpusBytes('pulsemcp/subregistry-v0.1-list-test-fixture.json');
      const { summary, requests, listed } = await readThrough(createMcpRegistrySource(), () => ({ body: page }));
      expect(requests[0]).toMatch(/^\/v0\.1\/servers\?/);
      expect(summary).toMatchObject({ complete: true, pages: 1, errors: 0, items: 2 });
      expect(ids(listed)).toEqual(['io.github.example/test-server-1', 'io.github.example/test-server-2']);
      // No io.modelcontextprotocol.registry/official block: read as active and latest; the title names it.
      expect(byId(listed).get('io.github.example/test-server-1')).toMatchObject({
        name: 'Test Server 1',
        status: 'active',
        version: '1.0.0',
        endpointUrl: null,
      });
      expect(byId(listed).get('io.github.example/test-server-2')).toMatchObject({ name: 'Test Server 2', version: '2.0.0' });
    },
  );
});

describe('a2aregistry-org', () => {
  corpusIt(
    'a2aregistry-org/website-sample-registry-fallback.json',
    '{agents} with no total, slug ids, skills of only name and tags: all six',
    async () => {
      const page = corpusBytes('a2aregistry-org/website-sample-registry-fallback.json');
      // The static document ignores limit and offset: every request gets the same six.
      const { summary, requests, listed } = await readThrough(createA2aRegistryOrgSource(), () => ({ body: page }));
      expect(summary).toMatchObject({ complete: true, pages: 1, errors: 0, items: 6, delisted: 0 });
      expect(requests).toEqual(['/agents?limit=100&offset=0']);
      expect(ids(listed)).toEqual([
        'sample-claim-verification',
        'sample-compliance-monitor',
        'sample-conversation-router',
        'sample-finance-brief',
        'sample-market-research',
        'sample-security-triage',
      ]);
      for (const l of listed) {
        expect(l).toMatchObject({
          protocol: 'a2a',
          status: 'active',
          cardUrl: 'https://www.a2aregistry.org/.well-known/agent-card.json',
          endpointUrl: 'https://www.a2aregistry.org',
        });
      }
      expect(byId(listed).get('sample-finance-brief')).toMatchObject({ name: 'Finance Brief Generator', version: '0.8.7' });
      // The six samples all name the registry's own card: the dedupe makes them one agent.
      expect(new Set(listed.map((l) => agentKey('a2a', l))).size).toBe(1);
    },
  );

  corpusIt(
    'a2aregistry-org/registry-agent.schema.json',
    'the entry schema is no list page: a failed page, never an empty listing',
    async () => {
      const page = corpusBytes('a2aregistry-org/registry-agent.schema.json');
      const { summary, listed, h } = await readThrough(createA2aRegistryOrgSource(), () => ({ body: page }));
      expect(summary).toMatchObject({ complete: false, errors: 1, delisted: 0 });
      expect(summary.failure).toMatch(/^invalid_shape: expected an object with an "agents" array/);
      expect(listed).toEqual([]);
      expect(h.sink.fetches[0]).toMatchObject({ ok: false, errorClass: 'invalid_shape' });
    },
  );
});

describe('hf-spaces: Hugging Face Spaces', () => {
  const spacesPage = (items: unknown[]): CorpusAnswer => ({ body: items, headers: { etag: 'W/"corpus"' } });

  corpusIt(
    'hf-spaces/runtime-building-2025-03-07.json',
    'a BUILDING runtime with replicas, domains and null hardware: listed, no endpoint yet',
    async () => {
      // The file is the `runtime` of user/tmp_test_space (its cassette's request path); the list item carries it.
      const runtime = corpusJson<Record<string, unknown>>('hf-spaces/runtime-building-2025-03-07.json');
      const { summary, listed } = await readThrough(createHfSpacesSource(), () =>
        spacesPage([{ id: 'user/tmp_test_space', sdk: 'gradio', runtime }]),
      );
      expect(summary).toMatchObject({ complete: true, pages: 1, errors: 0, items: 1 });
      expect(ids(listed)).toEqual(['user/tmp_test_space']);
      expect(listed[0]).toMatchObject({ status: 'active', endpointUrl: null, name: 'user/tmp_test_space' });
      // Once it runs, its host comes from `domains` (no `subdomain` in the item).
      expect(spaceEndpoint({ id: 'user/tmp_test_space', sdk: 'gradio', runtime: { ...runtime, stage: 'RUNNING' } })).toBe(
        'https://user-tmp-test-space.hf.space/gradio_api/mcp/',
      );
      expect(
        spaceEndpoint({ sdk: 'gradio', runtime: { ...runtime, stage: 'RUNNING', domains: [{ domain: 'evil.example', stage: 'READY' }] } }),
      ).toBeNull();
    },
  );

  corpusIt(
    'hf-spaces/runtime-static-running-2025-03-07.json',
    'a RUNNING static Space, hardware {current: null, requested: null}, storage null, no gcTimeout: listed, no MCP endpoint',
    async () => {
      const runtime = corpusJson<Record<string, unknown>>('hf-spaces/runtime-static-running-2025-03-07.json');
      const { summary, listed } = await readThrough(createHfSpacesSource(), () =>
        spacesPage([{ id: 'victor/static-space', sdk: 'static', runtime }]),
      );
      expect(summary).toMatchObject({ complete: true, pages: 1, errors: 0, items: 1 });
      expect(ids(listed)).toEqual(['victor/static-space']);
      expect(listed[0]).toMatchObject({ status: 'active', endpointUrl: null, endpointTransport: null });
    },
  );

  corpusIt(
    'hf-spaces/space-info-expand-xetEnabled-2025-03-07.json',
    'an expanded item of only _id, id and the expanded field: listed under its id',
    async () => {
      const item = corpusJson('hf-spaces/space-info-expand-xetEnabled-2025-03-07.json');
      const { summary, listed } = await readThrough(createHfSpacesSource(), () => spacesPage([item]));
      expect(summary).toMatchObject({ complete: true, pages: 1, errors: 0, items: 1 });
      expect(ids(listed)).toEqual(['user/tmp_test_space']);
      expect(listed[0]).toMatchObject({
        status: 'active',
        name: 'user/tmp_test_space',
        description: '',
        version: null,
        endpointUrl: null,
        updatedAt: null,
      });
    },
  );
});

describe('smithery', () => {
  /** A one-server list page in the documented shape, for a detail file (no isDeployed, no deploymentUrl: the reader must ask). */
  const listOf = (d: Record<string, unknown>) => ({
    servers: [
      {
        qualifiedName: d.qualifiedName,
        displayName: d.displayName ?? null,
        description: d.description ?? null,
        iconUrl: d.iconUrl ?? null,
        remote: d.remote ?? null,
      },
    ],
    pagination: { currentPage: 1, pageSize: 100, totalPages: 1, totalCount: 1 },
  });

  corpusIt(
    'smithery/servers-list-sdk-doc-example.json',
    'useCount a number, iconUrl, verified, remote, isDeployed: the server is listed after its detail call',
    async () => {
      const list = corpusBytes('smithery/servers-list-sdk-doc-example.json');
      const item = corpusJson<{ servers: Array<Record<string, unknown>> }>('smithery/servers-list-sdk-doc-example.json').servers[0]!;
      // The file is page 1 of the 5 it announces: read as a one-page window. Its detail (the file
      // is the list) is the list item itself, with no connections.
      const { summary, requests, listed } = await readThrough(
        createSmitherySource(),
        (u) => (u.pathname === '/servers' ? { body: list } : u.pathname === '/servers/smithery/hello-world' ? { body: item } : null),
        { limits: { maxPages: 1 } },
      );
      expect(requests).toEqual(['/servers?page=1&pageSize=100', '/servers/smithery/hello-world']);
      expect(summary).toMatchObject({ complete: true, pages: 1, details: 1, errors: 0, items: 1 });
      expect(ids(listed)).toEqual(['smithery/hello-world']);
      expect(listed[0]).toMatchObject({ name: 'Hello World', description: 'A simple hello world server', endpointUrl: null });
    },
  );

  corpusIt(
    'smithery/server-detail-sdk-doc-example.json',
    'a detail with connections [] and no description or deploymentUrl: listed without an endpoint',
    async () => {
      const detail = corpusBytes('smithery/server-detail-sdk-doc-example.json');
      const d = corpusJson<Record<string, unknown>>('smithery/server-detail-sdk-doc-example.json');
      const { summary, listed } = await readThrough(createSmitherySource(), (u) =>
        u.pathname === '/servers' ? { body: listOf(d) } : u.pathname === '/servers/smithery-ai/fetch' ? { body: detail } : null,
      );
      expect(summary).toMatchObject({ complete: true, pages: 1, details: 1, errors: 0, items: 1 });
      expect(ids(listed)).toEqual(['smithery-ai/fetch']);
      expect(listed[0]).toMatchObject({ name: 'Fetch', description: '', endpointUrl: null, endpointTransport: null });
    },
  );

  corpusIt(
    'smithery/server-detail-cli-test-fixture-http.json',
    'an http connection with deploymentUrl, and security, tools, prompts, resources, iconUrl null: the endpoint',
    async () => {
      const detail = corpusBytes('smithery/server-detail-cli-test-fixture-http.json');
      const d = corpusJson<Record<string, unknown>>('smithery/server-detail-cli-test-fixture-http.json');
      const { summary, listed } = await readThrough(createSmitherySource(), (u) =>
        u.pathname === '/servers' ? { body: listOf(d) } : u.pathname === '/servers/test/required-only-server' ? { body: detail } : null,
      );
      expect(summary).toMatchObject({ complete: true, pages: 1, details: 1, errors: 0, items: 1 });
      expect(ids(listed)).toEqual(['test/required-only-server']);
      expect(listed[0]).toMatchObject({
        name: 'Required Only Server',
        description: 'A test server with required only config',
        endpointUrl: 'https://server.smithery.ai',
        endpointTransport: 'streamable-http',
      });
    },
  );
});
