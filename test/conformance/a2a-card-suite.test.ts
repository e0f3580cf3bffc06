import { describe, expect, it } from 'vitest';
import { checkA2ACard, judgeA2AObservation, type A2AObservation, type HttpExchange } from '../../src/conformance/index.js';
import { ctxOf, recipeCard, ruleIds } from './helpers.js';

const ctx = ctxOf('t');
const good = recipeCard();
const card = (over: Record<string, unknown>) => checkA2ACard({ value: recipeCard(over) }, ctx).card;
const ex = (status: number | null, extra: Partial<HttpExchange> = {}): HttpExchange => ({
  url: 'https://agent.acme-recipes.dev/x',
  status,
  headers: {},
  ...extra,
});
const obs = (exchanges: HttpExchange[], extra: Partial<A2AObservation> = {}): A2AObservation => ({
  exchanges,
  robots: 'allowed',
  canary: 'ok',
  ...extra,
});

describe('suite veronikai-a2a-get-card v1 (seed 000)', () => {
  it('passes a complete card; an empty tags list is still a tags list', () => {
    const v = card({});
    expect(v.result).toBe('pass');
    expect(v.suite).toEqual({ id: 'veronikai-a2a-get-card', version: 1 });
    expect(v.checker).toBe('VeronikAI/0.1+attestations.3');
  });

  it.each([
    [{ name: '' }, 'A2A-CARD-005'],
    [{ name: '   ' }, 'A2A-CARD-005'],
    [{ description: null }, 'A2A-CARD-006'],
    [{ version: '' }, 'A2A-CARD-007'],
    [{ url: 'http://agent.acme-recipes.dev' }, 'A2A-CARD-008'],
    [{ url: 'https://' }, 'A2A-CARD-008'],
    [{ url: undefined, supportedInterfaces: [] }, 'A2A-CARD-008'],
    [{ url: undefined, additionalInterfaces: [{ url: 'https://a' }, { transport: 'GRPC' }] }, 'A2A-CARD-008'],
    [{ capabilities: null }, 'A2A-CARD-009'],
    [{ defaultInputModes: 'text' }, 'A2A-CARD-010'],
    [{ defaultOutputModes: [] }, 'A2A-CARD-011'],
    [{ skills: {} }, 'A2A-CARD-012'],
    [{ skills: ['s'] }, 'A2A-CARD-013'],
    [{ skills: [{ id: 's', name: 'S', description: 7, tags: [] }] }, 'A2A-CARD-013'],
    [{ skills: [{ id: 's', description: 'd', tags: [] }] }, 'A2A-CARD-013'],
    [{ skills: [{ id: 's', name: 'S', description: 'd' }] }, 'A2A-CARD-014'],
  ])('%j fails %s', (over, rule) => {
    const v = card(over);
    expect(v.result).toBe('fail');
    expect(ruleIds(v)).toEqual([rule]);
  });

  it('a skill needs id, name and description present as strings; only the top level needs non-empty text (seed 000)', () => {
    expect(card({ skills: [{ id: '', name: '', description: '', tags: [] }] }).result).toBe('pass');
    expect(card({ skills: [{ id: ' ', name: 'S', description: '\t', tags: [] }] }).result).toBe('pass');
    expect(card({ skills: [{ id: null, name: 'S', description: 'd', tags: [] }] }).findings.map((f) => f.message)).toEqual([
      'skill 0 id must be a string, found null',
    ]);
    expect(ruleIds(card({ skills: [{ id: '', name: '', description: '', tags: 'x' }] }))).toEqual(['A2A-CARD-014']);
    expect(ruleIds(card({ name: '', skills: [{ id: '', name: '', description: '', tags: [] }] }))).toEqual(['A2A-CARD-005']);
  });

  it('accepts v1.0-style interface lists whose items have URLs instead of an https url', () => {
    expect(card({ url: undefined, supportedInterfaces: [{ url: 'https://a/x', protocolBinding: 'JSONRPC' }] }).result).toBe('pass');
    expect(card({ url: 'http://insecure', additionalInterfaces: [{ url: 'https://a', transport: 'GRPC' }] }).result).toBe('pass');
  });

  it('a card that is not valid JSON fails, and a non-object fails', () => {
    expect(ruleIds(checkA2ACard({ text: '{"name":' }, ctx).card)).toEqual(['A2A-CARD-003']);
    expect(ruleIds(checkA2ACard({ text: '"card"' }, ctx).card)).toEqual(['A2A-CARD-004']);
    expect(checkA2ACard({ text: '\ufeff' + JSON.stringify(good) }, ctx).card.result).toBe('pass');
  });
});

describe('the card chain', () => {
  const body = JSON.stringify(good);
  it('judges the first 200 whose body is a JSON object', () => {
    const r = judgeA2AObservation(obs([ex(200, { body: '<html>' }), ex(200, { body })]), ctx);
    expect(r.card.result).toBe('pass');
    expect(r.card.scope).toBe('observation');
    expect(r.uptime.state).toBe('up');
  });
  it('HTTP 401/403 fails with "agent card not public" and is up', () => {
    for (const status of [401, 403]) {
      const r = judgeA2AObservation(obs([ex(404), ex(status)]), ctx);
      expect(r.card.result).toBe('fail');
      expect(r.card.reasons[0]).toContain('agent card not public');
      expect(ruleIds(r.card)).toEqual(['A2A-CARD-001']);
      expect(r.uptime.state).toBe('up');
    }
  });
  it('HTTP 402 is not judged: conformance unknown, uptime up', () => {
    const r = judgeA2AObservation(obs([ex(402)]), ctx);
    expect(r.card.result).toBe('unknown');
    expect(r.card.reasons.join()).toContain('402');
    expect(r.structure.result).toBe('unknown');
    expect(r.uptime.state).toBe('up');
  });
  it('no card anywhere fails (down + fail)', () => {
    const r = judgeA2AObservation(obs([ex(404), ex(404), ex(500)]), ctx);
    expect(ruleIds(r.card)).toEqual(['A2A-CARD-002']);
    expect(r.uptime.state).toBe('down');
  });
  it('no answer, 429, robots and a failed canary are unknown, never a failure', () => {
    expect(judgeA2AObservation(obs([ex(404), ex(null, { errorClass: 'timeout' })]), ctx).card.result).toBe('unknown');
    expect(judgeA2AObservation(obs([ex(429)]), ctx).card.result).toBe('unknown');
    expect(judgeA2AObservation(obs([], { robots: 'disallowed' }), ctx).card.reasons[0]).toContain('skipped (robots)');
    const c = judgeA2AObservation(obs([ex(null, { errorClass: 'refused' })], { canary: 'failed' }), ctx);
    expect(c.card.result).toBe('unknown');
    expect(c.uptime).toMatchObject({ state: 'unknown', ourSide: true });
  });
  it('an ill-typed exchange URL (never from our producer) is judged, not an internal error', () => {
    const weird = { toString: 1 } as unknown as string;
    for (const exchanges of [[ex(401, { url: weird })], [ex(404, { url: weird })], [ex(null, { url: weird, errorClass: 'timeout' })]]) {
      const r = judgeA2AObservation(obs(exchanges), ctx);
      expect(r.card.reasons.join('\n')).not.toMatch(/internal error/);
    }
  });
  it('a body cut at the read bound is not judged', () => {
    expect(judgeA2AObservation(obs([ex(200, { body: body.slice(0, 20), bodyTruncated: true })]), ctx).card.result).toBe('unknown');
  });
});
