import { describe, expect, it } from 'vitest';
import { attribute, checkA2ACard, contextVersion, readVersion, structuralAnswer } from '../../src/conformance/index.js';
import { ctxOf, recipeCard } from './helpers.js';

const ctx = ctxOf('t');

const card03 = () => recipeCard({ protocolVersion: '0.3.0', skills: [{ id: 's', name: 'S', description: 'Does S.', tags: ['t'] }] });
const card10 = () => {
  const { protocolVersion: _p, url: _u, ...rest } = card03();
  return {
    ...rest,
    supportedInterfaces: [{ url: 'https://agent.acme-recipes.dev/a2a', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
  };
};

describe('seed 001 §5: the three defects, as tests', () => {
  it('protocolVersion: 42 on an otherwise complete card fails, and tolerant_valid does not set it aside', () => {
    const ans = structuralAnswer({ ...card03(), protocolVersion: 42 });
    expect(ans.attribution).toMatchObject({ route: 'inferred', basis: 'url', family: '0.3' });
    expect(ans.strict!.valid).toBe(false);
    expect(ans.strict!.violations).toEqual([
      expect.objectContaining({ ruleId: 'A2A-STRUCT-002', kind: 'type', pointer: '/protocolVersion' }),
    ]);
    expect(ans.tolerantValid).toBe(false);
    const v = checkA2ACard({ value: { ...card03(), protocolVersion: 42 } }, ctx).structure;
    expect(v.result).toBe('fail');
    expect(v.a2a!.tolerantValid).toBe(false);
  });

  it('skills[].tags: [42] fails (items are checked, not only the container)', () => {
    const c = card03();
    c.skills[0]!.tags = [42 as unknown as string];
    const ans = structuralAnswer(c);
    expect(ans.strict!.valid).toBe(false);
    expect(ans.strict!.violations).toEqual([expect.objectContaining({ ruleId: 'A2A-STRUCT-003', pointer: '/skills/0/tags/0' })]);
    // the same under 1.0
    const d = card10();
    d.skills[0]!.tags = ['ok', null as unknown as string];
    expect(structuralAnswer(d).strict!.violations.map((x) => x.pointer)).toEqual(['/skills/0/tags/1']);
  });

  it('a missing protocolVersion on an inferred 0.3 card is a violation in the strict verdict; only tolerant_valid sets it aside', () => {
    const { protocolVersion: _p, ...c } = card03();
    const ans = structuralAnswer(c);
    expect(ans.attribution).toMatchObject({ route: 'inferred', family: '0.3' });
    expect(ans.strict!.valid).toBe(false);
    expect(ans.strict!.violations).toEqual([
      expect.objectContaining({ ruleId: 'A2A-STRUCT-001', kind: 'missing', pointer: '/protocolVersion' }),
    ]);
    expect(ans.tolerantValid).toBe(true);
    const v = checkA2ACard({ value: c }, ctx).structure;
    expect(v.result).toBe('fail');
    expect(v.a2a).toMatchObject({ valid: false, tolerantValid: true });
  });

  it('tolerant_valid sets aside only that one absence', () => {
    const { protocolVersion: _p, ...c } = card03();
    expect(structuralAnswer({ ...c, version: 3 }).tolerantValid).toBe(false);
    expect(structuralAnswer({ ...c, skills: [{ id: 's', name: 'S', description: 'd' }] }).tolerantValid).toBe(false);
  });
});

describe('attribution rules 1-5, in order', () => {
  it('rule 1: a JSON-LD @context naming the A2A agent-card vocabulary is declared, and wins over supportedInterfaces', () => {
    expect(attribute({ '@context': 'https://a2a-protocol.org/v1/agent-card.jsonld', url: 'x' })).toMatchObject({
      route: 'declared',
      basis: 'json-ld-context',
      family: '1.0',
      claimed: '1',
    });
    expect(
      attribute({ '@context': ['https://schema.org', { '@vocab': 'https://a2a-protocol.org/v0.3/agent-card#' }], supportedInterfaces: [] }),
    ).toMatchObject({ route: 'declared', family: '0.3' });
    // no version in the context: the rule cannot read one and falls through
    expect(attribute({ '@context': 'https://a2a-protocol.org/agent-card.jsonld', url: 'x' })).toMatchObject({
      route: 'inferred',
      basis: 'url',
    });
    // an unrelated context is not a claim
    expect(attribute({ '@context': 'https://schema.org/v1/', name: 'x' })).toMatchObject({ route: 'none' });
    expect(contextVersion('https://a2a-protocol.org/v1.0/agent-card.jsonld')).toBe('1.0');
  });

  it('rule 2: supportedInterfaces reads as 1.0; with a top-level protocolVersion it is a conflict', () => {
    expect(attribute({ supportedInterfaces: [] })).toMatchObject({
      route: 'inferred',
      basis: 'supported-interfaces',
      family: '1.0',
      alternative: '0.3',
    });
    expect(attribute({ supportedInterfaces: [], protocolVersion: '0.2.5' })).toMatchObject({
      route: 'conflict',
      family: '1.0',
      alternative: '0.2',
      claimed: '0.2.5',
    });
    expect(attribute({ supportedInterfaces: [], protocolVersion: '1.0' })).toMatchObject({
      route: 'conflict',
      family: '1.0',
      alternative: '0.3',
    });
    expect(attribute({ supportedInterfaces: [], protocolVersion: 7 })).toMatchObject({
      route: 'conflict',
      alternative: '0.3',
      claimed: null,
    });
  });

  it('rule 3: a protocolVersion string is declared; a non-string falls through', () => {
    expect(attribute({ protocolVersion: '0.2.1', url: 'x' })).toMatchObject({
      route: 'declared',
      family: '0.2',
      recognised: true,
      alternative: null,
    });
    expect(attribute({ protocolVersion: 0.3, url: 'x' })).toMatchObject({ route: 'inferred', basis: 'url' });
    expect(attribute({ protocolVersion: 0.3 })).toMatchObject({ route: 'none' });
  });

  it('rule 4: a url key reads as 0.3, inferred, whatever its type', () => {
    expect(attribute({ url: 'https://a' })).toMatchObject({ route: 'inferred', family: '0.3', alternative: '1.0' });
    expect(attribute({ url: null })).toMatchObject({ route: 'inferred', family: '0.3' });
  });

  it('rule 5: nothing recognised, or not an object, gets no verdict', () => {
    for (const d of [{}, { name: 'x', endpoint: 'https://a' }, [], 'card', 42, null]) {
      const ans = structuralAnswer(d);
      expect(ans.attribution.route).toBe('none');
      expect(ans.strict).toBeNull();
      expect(ans.tolerantValid).toBeNull();
    }
  });

  it('keys on the prototype chain are never read as claims', () => {
    expect(attribute(Object.create({ url: 'https://a' }) as object).route).toBe('none');
    expect(attribute(JSON.parse('{"__proto__": {"supportedInterfaces": []}}')).route).toBe('none');
  });
});

describe('version families', () => {
  it.each([
    ['0.2.0', '0.2', true],
    ['0.2.5', '0.2', true],
    ['0.2.6', '0.2', true],
    ['v0.2', '0.2', true],
    ['0.3', '0.3', true],
    ['0.3.0', '0.3', true],
    ['0.3.1-rc1', '0.3', true],
    ['1', '1.0', true],
    ['1.0', '1.0', true],
    ['1.0.1', '1.0', true],
    ['1.2', '1.0', true],
    ['0.1', '0.2', false],
    ['0', '0.2', false],
    ['0.4', '0.3', false],
    ['0.9-beta', '0.3', false],
    ['2.0', '1.0', false],
    ['3', '1.0', false],
    ['latest', '0.3', false],
    ['', '0.3', false],
    ['A2A/0.3', '0.3', false],
  ])('%j → %s (recognised %s)', (v, family, recognised) => {
    expect(readVersion(v)).toEqual({ family, recognised });
  });

  it('an unrecognised version is checked against the nearest family with a warning', () => {
    const v = checkA2ACard({ value: { ...card03(), protocolVersion: '2.5' } }, ctx).structure;
    expect(v.a2a).toMatchObject({ family: '1.0', version: '1.0.1', recognised: false });
    expect(v.findings.find((f) => f.ruleId === 'A2A-STRUCT-005')).toBeDefined();
  });
});

describe('required fields and their types', () => {
  it('checks the 0.x top level, skills[], provider and additionalInterfaces', () => {
    const ans = structuralAnswer({ ...card03(), provider: { organization: 5 }, additionalInterfaces: [{ url: 'https://a' }, 3] });
    expect(ans.strict!.violations.map((v) => `${v.ruleId} ${v.pointer}`)).toEqual([
      'A2A-STRUCT-002 /provider/organization',
      'A2A-STRUCT-001 /provider/url',
      'A2A-STRUCT-001 /additionalInterfaces/0/transport',
      'A2A-STRUCT-003 /additionalInterfaces/1',
    ]);
  });

  it('optional containers of the wrong type are not checked', () => {
    expect(structuralAnswer({ ...card03(), provider: 'Acme', additionalInterfaces: 'none' }).strict!.valid).toBe(true);
  });

  it('checks 1.0 per-interface fields and needs supportedInterfaces', () => {
    const d = card10();
    d.supportedInterfaces = [{ url: 'https://a' } as never];
    expect(structuralAnswer(d).strict!.violations.map((v) => v.pointer)).toEqual([
      '/supportedInterfaces/0/protocolBinding',
      '/supportedInterfaces/0/protocolVersion',
    ]);
    const c = { ...card03(), protocolVersion: '1.0' };
    expect(structuralAnswer(c).strict!.violations.map((v) => v.pointer)).toEqual(['/supportedInterfaces']);
  });

  it('names the pinned schema file in every answer', () => {
    for (const [doc, file] of [
      [{ ...card03(), protocolVersion: '0.2.5' }, 'schemas/protocol/a2a/0.2.5/a2a.json'],
      [card03(), 'schemas/protocol/a2a/0.3.0/a2a.json'],
      [card10(), 'schemas/protocol/a2a/1.0.1/a2a.proto'],
    ] as const) {
      const v = checkA2ACard({ value: doc }, ctx).structure;
      expect(v.a2a!.schema).toBe(file);
      expect(v.a2a!.schemaSha256).toMatch(/^[0-9a-f]{64}$/);
    }
  });

  it('gives the alternative-version verdict for inferred and conflict documents only', () => {
    const { protocolVersion: _p, ...inferred03 } = card03();
    expect(structuralAnswer(inferred03).alternative).toMatchObject({ version: '1.0.1', valid: false });
    expect(structuralAnswer(card10()).alternative).toMatchObject({ version: '0.3.0', valid: false });
    // a complete 0.3 card that adopted supportedInterfaces without 1.0's per-interface fields
    const adopted = { ...card03(), supportedInterfaces: [{ url: 'https://a' }] };
    const ans = structuralAnswer(adopted);
    expect(ans.attribution.route).toBe('conflict');
    expect(ans.strict!.valid).toBe(false);
    expect(ans.alternative).toMatchObject({ version: '0.3.0', valid: true });
    expect(structuralAnswer(card03()).alternative).toBeNull();
  });

  it('counts every violation but lists at most 200', () => {
    const c = { ...card03(), skills: Array.from({ length: 500 }, () => ({})) };
    const ans = structuralAnswer(c);
    expect(ans.strict!.violationCount).toBe(2000);
    expect(ans.strict!.violations.length).toBe(200);
  });
});
