import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CanaryEvent } from '../../src/events/types.js';
import { Canary, type CanaryTimers } from '../../src/producers/canary.js';
import { REQUEST_TIMEOUT_MS } from '../../src/http/limits.js';
import { CANARY } from '../../src/http/politeness/constants.js';
import { ProbeEngine } from '../../src/producers/probe/probe-agent.js';
import { startHttpServer, startRawServer, type TestServer } from '../helpers/hostile-servers.js';
import { startMcpStreamableStateless, type Peer } from '../helpers/peers.js';

const contact = 'probes@veronikai.test';

async function deadUrl(): Promise<string> {
  const s = await startHttpServer(() => undefined);
  await s.close();
  return `${s.url}/`;
}

let good: TestServer;
let dead: string;
beforeAll(async () => {
  good = await startHttpServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end('ok');
  });
  dead = await deadUrl();
});
afterAll(async () => {
  await good.close();
});

/** Timers driven by hand. */
function fakeTimers(): CanaryTimers & { at: number; pending: Array<{ fn: () => void; due: number }>; advance: (ms: number) => void } {
  const t = {
    at: 0,
    pending: [] as Array<{ fn: () => void; due: number }>,
    now: () => t.at,
    setTimeout: (fn: () => void, ms: number) => {
      const entry = { fn, due: t.at + ms };
      t.pending.push(entry);
      return entry;
    },
    clearTimeout: (h: unknown) => {
      t.pending = t.pending.filter((p) => p !== h);
    },
    advance: (ms: number) => {
      t.at += ms;
      const due = t.pending.filter((p) => p.due <= t.at);
      t.pending = t.pending.filter((p) => p.due > t.at);
      for (const p of due) p.fn();
    },
  };
  return t;
}

describe('Canary', () => {
  it('is unknown before the first check and without targets', async () => {
    const none = new Canary({ targets: [], contact });
    expect(none.state).toBe('unknown');
    expect(await none.check()).toEqual([]);
    expect(none.state).toBe('unknown');
  });

  it('ok when a known-good target answers; one CanaryEvent per target', async () => {
    const events: CanaryEvent[] = [];
    const c = new Canary({
      targets: [`${good.url}/`, dead],
      contact,
      allowLoopback: true,
      maxRetries: 0,
      runId: 'run-1',
      onEvent: (e) => void events.push(e),
    });
    expect(c.state).toBe('unknown');
    await c.check();
    expect(c.state).toBe('ok');
    expect(events.map((e) => [e.target, e.ok, e.status, e.errorClass, e.runId])).toEqual([
      [`${good.url}/`, true, 200, null, 'run-1'],
      [dead, false, null, 'refused', 'run-1'],
    ]);
  });

  it('its limits are named: one exchange limit like any other, one quick retry (CANARY)', async () => {
    expect(CANARY.timeoutMs).toBe(REQUEST_TIMEOUT_MS);
    // A target that resets every connection is tried 1 + CANARY.maxRetries times per check.
    const resetting = await startRawServer((s) => s.destroy());
    try {
      const c = new Canary({ targets: [`${resetting.url}/`], contact, allowLoopback: true });
      const [e] = await c.check();
      expect(e).toMatchObject({ ok: false, errorClass: 'reset' });
      expect(resetting.connections()).toBe(1 + CANARY.maxRetries);
    } finally {
      await resetting.close();
    }
  });

  it('failed when no target answers', async () => {
    const c = new Canary({ targets: [dead], contact, allowLoopback: true, maxRetries: 0 });
    await c.check();
    expect(c.state).toBe('failed');
  });

  it('uses the address policy: a loopback target is refused unless allowed', async () => {
    const c = new Canary({ targets: [`${good.url}/`], contact, maxRetries: 0 });
    const [e] = await c.check();
    expect(e).toMatchObject({ ok: false, errorClass: 'blocked_address' });
  });

  it('re-checks periodically with an injectable timer, and stops', async () => {
    const timers = fakeTimers();
    let answers = true;
    const c = new Canary({
      targets: ['http://canary.test/'],
      contact,
      intervalMs: 60_000,
      timers,
      fetch: async (url) => {
        const ex = {
          url,
          method: 'GET' as const,
          requestHeaders: {},
          status: answers ? 204 : null,
          headers: {},
          body: Buffer.alloc(0),
          bodyTruncated: false,
          bodyBytes: 0,
          bodySha256: '',
          remoteAddress: null,
          startedAt: new Date(0).toISOString(),
          durationMs: 1,
          errorClass: answers ? null : ('timeout' as const),
          errorMessage: null,
          retries: 0,
        };
        return { exchanges: [ex], final: ex };
      },
    });
    await c.check();
    expect(c.state).toBe('ok');
    c.start();
    expect(timers.pending).toHaveLength(1);
    answers = false;
    timers.advance(59_999);
    expect(c.checks).toBe(1);
    timers.advance(1);
    await new Promise((r) => setTimeout(r, 10));
    expect(c.checks).toBe(2);
    expect(c.state).toBe('failed');
    expect(timers.pending).toHaveLength(1); // scheduled again
    answers = true;
    timers.advance(60_000);
    await new Promise((r) => setTimeout(r, 10));
    expect(c.state).toBe('ok');
    c.stop();
    expect(timers.pending).toHaveLength(0);
  });
});

describe('probe events carry the canary state', () => {
  let p: Peer;
  beforeAll(async () => {
    p = await startMcpStreamableStateless();
  });
  afterAll(async () => {
    await p.close();
  });

  it('a failing canary marks every probe event canary failed (our side), and no host is skipped for it', async () => {
    const canary = new Canary({ targets: [dead], contact, allowLoopback: true, maxRetries: 0 });
    const e = new ProbeEngine({ contact, allowLoopback: true, maxRetries: 0, timeoutMs: 1000, bodyWindowMs: 200, canary });
    await e.beforeRun('run-x');
    expect(canary.state).toBe('failed');
    const down = await deadUrl();
    const failures = [];
    for (let i = 0; i < 4; i++) failures.push(await e.probe({ protocol: 'mcp', url: `${down}mcp`, runId: 'run-x' }));
    expect(failures.map((f) => [f.canary, f.errorClass])).toEqual(Array(4).fill(['failed', 'robots_unreachable']));
    // Our failures do not count against the host.
    expect(e.trackerFor('run-x').skippedHosts()).toEqual([]);
    const answered = await e.probe({ protocol: 'mcp', url: p.url, runId: 'run-x' });
    expect(answered).toMatchObject({ canary: 'failed', errorClass: null });
  });

  it('a healthy canary: canary ok on the events', async () => {
    const canary = new Canary({ targets: [`${good.url}/`], contact, allowLoopback: true, maxRetries: 0 });
    const e = new ProbeEngine({ contact, allowLoopback: true, maxRetries: 0, bodyWindowMs: 200, canary });
    await e.beforeRun('run-y');
    const ev = await e.probe({ protocol: 'mcp', url: p.url, runId: 'run-y' });
    expect(ev.canary).toBe('ok');
  });

  it('a probe failure re-checks a stale canary, so the event reflects the moment of the failure', async () => {
    const flaky = await startHttpServer((_req, res) => {
      res.writeHead(200);
      res.end('ok');
    });
    const canary = new Canary({ targets: [`${flaky.url}/`], contact, allowLoopback: true, maxRetries: 0, failureRecheckMs: 0 });
    const e = new ProbeEngine({ contact, allowLoopback: true, maxRetries: 0, timeoutMs: 1000, canary });
    await e.beforeRun('run-z');
    expect(canary.state).toBe('ok');
    await flaky.close(); // our "connection" goes down
    const down = await deadUrl();
    const ev = await e.probe({ protocol: 'mcp', url: `${down}mcp`, runId: 'run-z' });
    expect(ev.canary).toBe('failed');
    expect(canary.checks).toBe(2);
  });

  it('the canary is checked once before each run', async () => {
    const canary = new Canary({ targets: [`${good.url}/`], contact, allowLoopback: true });
    const e = new ProbeEngine({ contact, allowLoopback: true, canary });
    await Promise.all([e.beforeRun('a'), e.beforeRun('a'), e.beforeRun('a')]);
    expect(canary.checks).toBe(1);
    await e.beforeRun('b');
    expect(canary.checks).toBe(2);
  });
});
