import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { censusOfFrame, readFrameHosts } from '../../src/runtime/usecases/census-frame.js';
import { recipeCard } from '../conformance/helpers.js';
import { runCli } from '../helpers/cli.js';

// A frame of four local hosts probed at both card paths: one serves both, one only the legacy
// path, one neither, and one whose robots.txt forbids everything (never asked for a card).

type Site = Record<string, unknown>;
const SITES: Site[] = [
  {
    '/.well-known/agent-card.json': recipeCard({ protocolVersion: '0.3.0' }),
    '/.well-known/agent.json': recipeCard({ protocolVersion: '0.2.5' }),
  },
  { '/.well-known/agent.json': recipeCard() },
  {},
  { '/robots.txt': 'User-agent: *\nDisallow: /\n', '/.well-known/agent-card.json': recipeCard({ protocolVersion: '0.3.0' }) },
];

describe('census --frame', () => {
  const servers: Server[] = [];
  const hits: string[][] = [];
  let dir: string;
  let frame: string;

  beforeAll(async () => {
    for (const [i, site] of SITES.entries()) {
      hits.push([]);
      const server = createServer((req, res) => {
        hits[i]!.push(req.url ?? '');
        const body = site[req.url ?? ''];
        if (body === undefined) return res.writeHead(404).end('not found');
        res
          .writeHead(200, { 'content-type': typeof body === 'string' ? 'text/plain' : 'application/json' })
          .end(typeof body === 'string' ? body : JSON.stringify(body));
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      servers.push(server);
    }
    dir = mkdtempSync(join(tmpdir(), 'veronikai-frame-'));
    frame = join(dir, 'hosts.txt');
    const ports = servers.map((s) => (s.address() as { port: number }).port);
    writeFileSync(
      frame,
      `# the frame\n${ports.map((p) => `127.0.0.1:${p}`).join('\n')}\nhttp://127.0.0.1:${ports[0]}/ignored/path\n`
        .replace(/127\.0\.0\.1:/g, 'http://127.0.0.1:')
        .replace(/http:\/\/http:\/\//g, 'http://'),
    );
  });

  afterAll(async () => {
    for (const s of servers) await new Promise((r) => s.close(r));
    rmSync(dir, { recursive: true, force: true });
  });

  it('asks every host for both paths, politely, and counts hosts serving each and both', async () => {
    const hosts = readFrameHosts(frame);
    expect(hosts).toHaveLength(4);
    const c = await censusOfFrame(loadConfig({}, {}), hosts, { allowLoopback: true });
    expect(c).toMatchObject({ hosts: 4, servingCurrent: 1, servingLegacy: 2, servingBoth: 1, serving: 2 });
    expect(c.requests).toHaveLength(8);
    expect(c.requests.filter((r) => r.card)).toHaveLength(3);
    expect(c.requests.filter((r) => r.errorClass === 'robots_disallowed')).toHaveLength(2);
    // robots.txt once per origin; the forbidding host is never asked for a card.
    for (const h of hits.slice(0, 3)) expect(h.filter((u) => u === '/robots.txt')).toHaveLength(1);
    expect(hits[3]).toEqual(['/robots.txt']);
    // The judged cards: host 1's current-path card (declared 0.3.0, valid), host 2's legacy card
    // (inferred 0.3.0 from its url, invalid: protocolVersion missing, valid when tolerant).
    const r = c.report;
    expect(r.totals).toMatchObject({ cards: 2, valid: 1, invalid: 1 });
    expect(Object.fromEntries(r.byRoute.map((g) => [g.key, [g.cards, g.invalid]]))).toEqual({
      declared: [1, 0],
      conflict: [0, 0],
      inferred: [1, 1],
    });
    expect(r.tolerant).toMatchObject({ strictInvalid: 1, validWhenTolerant: 1 });
    expect(r.defects.find((d) => d.id === 'protocolVersion-missing-inferred')!.cards).toBe(1);
  });

  it('runs as a command with the frame written beside the report', async () => {
    const out = join(dir, 'frame.csv');
    const r = await runCli(['census', '--frame', frame, '--allow-loopback', '--frame-out', out]);
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(r.stdout).toMatch(
      /^2 of 4 host\(s\) serve a card: 1 at \/\.well-known\/agent-card\.json, 2 at \/\.well-known\/agent\.json, 1 at both/,
    );
    expect(r.stdout).toContain('## By attribution route');
    const { readFileSync } = await import('node:fs');
    expect(readFileSync(out, 'utf8').trim().split('\n')).toHaveLength(9);
  });
});
