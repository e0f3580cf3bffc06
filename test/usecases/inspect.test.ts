/**
 * The composition of one inspect (src/runtime/usecases/inspect.ts): the User-Agent names the tool, the
 * SSRF guard holds without --allow-loopback, and a whole inspect stops at its request budget
 * and its time limit (then it is incomplete, never a pass), on real peers.
 */
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inspectUserAgent, runInspect } from '../../src/runtime/usecases/inspect.js';
import { listenApp, type Listening } from '../helpers/inspect-peers.js';
import { startMcpStreamableStateful, type Peer } from '../helpers/peers.js';

let mcp: Peer;
let slow: Listening;
let seenUa: string[] = [];
beforeAll(async () => {
  mcp = await startMcpStreamableStateful();
  const app = express();
  app.use((req, _res, next) => {
    seenUa.push(String(req.headers['user-agent']));
    next();
  });
  // Answers nothing for a long time: the whole inspect's time limit must end it.
  app.all('/slow', (_req, res) => void setTimeout(() => res.status(404).end(), 20_000));
  slow = await listenApp(app);
});
afterAll(async () => {
  await Promise.all([mcp.close(), slow.close()]);
});

describe('runInspect', () => {
  it('names the tool and the contact in the User-Agent', async () => {
    expect(inspectUserAgent('owner@example.org')).toBe(
      'VeronikAI-inspect/0.1 (+mailto:owner@example.org; owner-run protocol inspect, veronikai inspect)',
    );
    const r = await runInspect(mcp.url, { protocol: 'mcp', contact: 'owner@example.org', allowLoopback: true });
    expect(r.tool.userAgent).toBe(inspectUserAgent('owner@example.org'));
    expect(r.checks.flatMap((c) => c.evidence).every((e) => e.request.headers['user-agent'] === r.tool.userAgent)).toBe(true);
  });

  it('never reaches loopback without allowLoopback: the inspect cannot complete (exit 2)', async () => {
    const r = await runInspect(mcp.url, { protocol: 'mcp', contact: 'owner@example.org' });
    expect(r.exitCode).toBe(2);
    expect(r.qualification).toMatch(/UNABLE TO COMPLETE: no request got an HTTP answer \(refused 127\.0\.0\.1/);
  });

  it('stops at the request budget: incomplete, exit 2', async () => {
    const r = await runInspect(mcp.url, { protocol: 'mcp', contact: 'owner@example.org', allowLoopback: true, requestBudget: 2 });
    expect(r.limits).toMatchObject({ requests: 2, requestBudget: 2, budgetExhausted: true });
    expect(r.result).toBe('unknown');
    expect(r.exitCode).toBe(2);
  });

  it('stops at the time limit of the whole inspect', async () => {
    seenUa = [];
    const t0 = Date.now();
    const r = await runInspect(`${slow.origin}/slow`, {
      protocol: 'auto',
      contact: 'owner@example.org',
      allowLoopback: true,
      timeLimitMs: 1500,
    });
    expect(Date.now() - t0).toBeLessThan(6000);
    expect(r.limits.timedOut).toBe(true);
    expect(r.exitCode).toBe(2);
    expect(seenUa.length).toBeGreaterThan(0);
  });
});
