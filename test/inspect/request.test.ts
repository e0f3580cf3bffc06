/**
 * The bounded request as the inspect makes it (src/http/client.ts, event-stream.ts): the SSRF guard
 * refuses loopback unless allowed, the body cap holds, credentials are never recorded and are
 * dropped on a redirect to another origin, and an event stream is read as it comes.
 */
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestBounded } from '../../src/http/client.js';
import { openEventStream } from '../../src/http/event-stream.js';
import { listenApp, type Listening } from '../helpers/inspect-peers.js';

let a: Listening;
let b: Listening;
beforeAll(async () => {
  b = await listenApp(express().get('/seen', (_req, res) => void res.json({ ok: true })));
  const app = express();
  app.post('/echo', express.text({ type: '*/*' }), (req, res) => void res.type('text/plain').send(`got ${String(req.body)}`));
  app.get('/big', (_req, res) => void res.type('text/plain').send('x'.repeat(100_000)));
  app.get('/away', (_req, res) => void res.redirect(302, `${b.origin}/seen`));
  app.get('/stream', (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write('event: endpoint\ndata: /messages\n\n');
    setTimeout(() => res.write('event: message\ndata: {"n":1}\n\n'), 100);
  });
  a = await listenApp(app);
});
afterAll(async () => {
  await Promise.all([a.close(), b.close()]);
});

const base = { userAgent: 'VeronikAI-inspect/test', timeoutMs: 5000, maxBytes: 4096 };

describe('requestBounded', () => {
  it('refuses loopback without allowLoopback: nothing is sent', async () => {
    const before = a.paths.length;
    const r = await requestBounded(`${a.origin}/echo`, { ...base, method: 'POST', body: 'hi' });
    expect(r.final.errorClass).toBe('blocked_address');
    expect(a.paths.length).toBe(before);
  });

  it("POSTs a body with the caller's User-Agent; a credential header is sent but recorded redacted", async () => {
    const r = await requestBounded(`${a.origin}/echo`, {
      ...base,
      method: 'POST',
      body: '{"x":1}',
      allowLoopback: true,
      headers: { Authorization: 'Bearer s3cr3t-value-xyz' },
      secretHeaders: ['authorization'],
    });
    expect(r.final.status).toBe(200);
    expect(r.final.body.toString()).toBe('got {"x":1}');
    expect(r.final.requestHeaders.authorization).toBe('[redacted]');
    expect(a.headers.at(-1)!.authorization).toBe('Bearer s3cr3t-value-xyz');
    expect(a.headers.at(-1)!['user-agent']).toBe('VeronikAI-inspect/test');
  });

  it('caps the decoded body', async () => {
    const r = await requestBounded(`${a.origin}/big`, { ...base, method: 'GET', allowLoopback: true });
    expect(r.final.errorClass).toBe('body_too_large');
    expect(r.final.body.length).toBeLessThanOrEqual(4096);
  });

  it('follows a GET redirect to another origin without the credential', async () => {
    const r = await requestBounded(`${a.origin}/away`, {
      ...base,
      method: 'GET',
      allowLoopback: true,
      followRedirects: true,
      headers: { authorization: 'Bearer s3cr3t-value-xyz' },
      secretHeaders: ['authorization'],
    });
    expect(r.exchanges.map((e) => e.status)).toEqual([302, 200]);
    expect(b.headers.at(-1)!.authorization).toBeUndefined();
  });
});

describe('openEventStream', () => {
  it('hands out events as they come and closes on demand', async () => {
    const s = await openEventStream(`${a.origin}/stream`, { ...base, allowLoopback: true, limitMs: 5000 });
    expect(s.open).toBe(true);
    expect(await s.waitFor((t) => t.includes('endpoint'), 2000)).toContain('data: /messages');
    expect(await s.waitFor((t) => t.includes('"n":1'), 2000)).toContain('event: message');
    s.close();
    expect(s.open).toBe(false);
    expect(s.exchange.body.toString()).toContain('"n":1');
  });
});
