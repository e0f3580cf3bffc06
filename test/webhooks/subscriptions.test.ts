import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { UsageError } from '../../src/config.js';
import type { AgentChangeEvent } from '../../src/events/types.js';
import { agentId } from '../../src/identity/agent-key.js';
import { WEBHOOKS_FILE_MAX_BYTES } from '../../src/webhooks/limits.js';
import { loadWebhookSubscriptions } from '../../src/webhooks/index.js';
import { loadSubscriptionsFile, parseSubscriptions, subscriptionMatches, WebhooksFileError } from '../../src/webhooks/subscriptions.js';

const SECRET = 'sw0rdf1sh-sw0rdf1sh';
const sub = (extra: Record<string, unknown> = {}) => ({ id: 'ops', url: 'https://hooks.example.com/veronikai', secret: SECRET, ...extra });
const parse = (json: unknown) => parseSubscriptions(json, 'webhooks file');
const error = (json: unknown): string => {
  try {
    parse(json);
  } catch (err) {
    expect(err).toBeInstanceOf(WebhooksFileError);
    return (err as Error).message;
  }
  throw new Error('no error');
};

const KEY_A = 'https://weather.example.com/mcp';
const KEY_B = 'https://agent.example.org';
const change = (kind: AgentChangeEvent['kind'], key: string): AgentChangeEvent => ({
  id: 'c'.repeat(32),
  observedAt: Date.now(),
  kind,
  agentKey: key,
  agentId: agentId(key),
  protocol: 'mcp',
  name: 'x',
  checkerVersion: '',
  causeEventId: 'e',
  fromState: null,
  toState: null,
  summary: 's',
  reasons: [],
});

describe('the webhook subscriptions file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'veronikai-webhooks-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reads subscriptions; kinds and agents are optional (every kind, every agent)', () => {
    const [s] = parse({ subscriptions: [sub()] });
    expect(s).toMatchObject({ id: 'ops', url: 'https://hooks.example.com/veronikai', secret: SECRET, kinds: null, agents: null });
    expect(parse({ subscriptions: [] })).toEqual([]);
  });

  it('names the entry and the problem, never the secret', () => {
    expect(error({})).toBe('webhooks file: the file lacks the required key "subscriptions"');
    expect(error({ subscriptions: [sub({ url: undefined })] })).toBe(
      'webhooks file: subscriptions[0] (subscription "ops") lacks the required key "url"',
    );
    expect(error({ subscriptions: [sub({ kinds: ['down', 'sideways'] })] })).toBe(
      'webhooks file: subscriptions[0].kinds[1] (subscription "ops") must be one of down, up, verdict, listed, delisted, corrected',
    );
    expect(error({ subscriptions: [sub({ secrte: 'x' })] })).toMatch(
      /subscriptions\[0\] \(subscription "ops"\) has an unknown key "secrte"/,
    );
    expect(error({ subscriptions: [sub({ id: 'a b' })] })).toMatch(/subscriptions\[0\]\.id .*must be 1 to 64 letters/);
    const short = error({ subscriptions: [sub({ secret: 'hunter2' })] });
    expect(short).toBe('webhooks file: subscriptions[0].secret (subscription "ops") must be at least 16 characters long');
    expect(short).not.toContain('hunter2');
    expect(error({ subscriptions: [sub(), sub()] })).toMatch(/subscriptions\[1\] \(subscription "ops"\): the id is used twice/);
    expect(error({ subscriptions: [sub({ url: 'ftp://hooks.example.com/' })] })).toMatch(
      /subscriptions\[0\].*\.url .*unsupported scheme ftp:/,
    );
    // A URL with a password is refused, and the password is not repeated.
    const creds = error({ subscriptions: [sub({ url: 'https://user:pa55word-pa55word@hooks.example.com/' })] });
    expect(creds).toMatch(/carries credentials/);
    expect(creds).not.toContain('pa55word');
    expect(error({ subscriptions: [sub({ agents: ['not a url'] })] })).toMatch(/agents\[0\] "not a url" is neither an agent id/);
  });

  it('a file that is not JSON says where, without quoting the text (it may hold a secret)', () => {
    const f = join(dir, 'broken.json');
    writeFileSync(f, `{"subscriptions":[{"id":"ops","secret":"${SECRET}" "url":"x"}]}`);
    let message = '';
    try {
      loadSubscriptionsFile(f);
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(new RegExp(`^webhooks file ${f.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is not JSON`));
    expect(message).not.toContain(SECRET);
    expect(() => loadSubscriptionsFile(join(dir, 'missing.json'))).toThrow(/cannot be read/);
    const big = join(dir, 'big.json');
    writeFileSync(big, ' '.repeat(WEBHOOKS_FILE_MAX_BYTES + 1));
    expect(() => loadSubscriptionsFile(big)).toThrow(/over the 1048576-byte limit/);
  });

  it('at start, a bad file is a usage error naming the setting', () => {
    const f = join(dir, 'bad.json');
    writeFileSync(f, JSON.stringify({ subscriptions: [sub({ kinds: [] })] }));
    expect(() => loadWebhookSubscriptions(f)).toThrow(UsageError);
    expect(() => loadWebhookSubscriptions(f)).toThrow(
      /^VERONIKAI_WEBHOOKS_FILE \/ --webhooks-file: webhooks file .*subscriptions\[0\]\.kinds .*must NOT have fewer than 1 items/,
    );
    const good = join(dir, 'good.json');
    writeFileSync(good, `\ufeff${JSON.stringify({ subscriptions: [sub()] })}`);
    expect(loadWebhookSubscriptions(good)).toHaveLength(1);
  });

  it('filters by kind and by agent (its id, or any spelling of its URL)', () => {
    const [all, downs, byId, byUrl, byCard] = parse({
      subscriptions: [
        sub({ id: 'all' }),
        sub({ id: 'downs', kinds: ['down', 'up'] }),
        sub({ id: 'by-id', agents: [agentId(KEY_A)] }),
        sub({ id: 'by-url', agents: ['HTTPS://Weather.Example.com:443/mcp/'] }),
        // An A2A agent is keyed by its card URL without the well-known suffix.
        sub({ id: 'by-card', agents: ['https://agent.example.org/.well-known/agent-card.json'] }),
      ],
    });
    const m = (s: typeof all, c: AgentChangeEvent) => subscriptionMatches(s!, c);
    expect(m(all, change('verdict', KEY_A))).toBe(true);
    expect(m(downs, change('down', KEY_A))).toBe(true);
    expect(m(downs, change('verdict', KEY_A))).toBe(false);
    expect(m(byId, change('down', KEY_A))).toBe(true);
    expect(m(byId, change('down', KEY_B))).toBe(false);
    expect(m(byUrl, change('down', KEY_A))).toBe(true);
    expect(m(byUrl, change('down', KEY_B))).toBe(false);
    expect(m(byCard, change('listed', KEY_B))).toBe(true);
    expect(m(byCard, change('listed', KEY_A))).toBe(false);
  });
});
