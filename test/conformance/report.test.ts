import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import {
  buildReport,
  CHECK_REPORT_SCHEMA,
  catalogueJson,
  checkA2ACard,
  checkServerJson,
  locatePointers,
  renderSarif,
  renderTerminal,
  RULES,
  signVerdict,
  generateSigningKeyPair,
  type CheckRun,
} from '../../src/conformance/index.js';
import { judgeFixture, listFixtures, verdictsOf } from './helpers.js';

const ajv = new Ajv2020({ allErrors: true, strict: false });
(addFormats as unknown as (a: Ajv2020) => void)(ajv);
const validate = ajv.compile(CHECK_REPORT_SCHEMA);
const ctx = { subject: 'card.json', observedAt: '2026-01-01T00:00:00.000Z' };

const cardText = `{
  "name": "Recipe Agent",
  "url": "https://agent.acme-recipes.dev/a2a",
  "skills": [
    { "id": "a", "name": "A", "description": "d", "tags": [42] }
  ]
}`;
function cardRun(extra: Partial<CheckRun> = {}): CheckRun {
  const { card, structure } = checkA2ACard({ text: cardText }, ctx);
  return { input: 'card.json', kind: 'a2a-card', scope: 'document', verdicts: [card, structure], text: cardText, ...extra };
}

describe('JSON report (version 1)', () => {
  it('every fixture yields a report valid against the published schema', () => {
    for (const f of listFixtures()) {
      const j = judgeFixture(f);
      const vs = verdictsOf(j);
      const kind = j.mcp ? 'mcp-server-json' : 'a2a-card';
      const report = buildReport({ input: f, kind, scope: f.startsWith('observations/') ? 'live' : 'document', verdicts: vs, uptime: j.uptime ?? null });
      const ok = validate(JSON.parse(JSON.stringify(report)));
      expect(ok, `${f}: ${JSON.stringify(validate.errors)}`).toBe(true);
      expect(report.exitCode).toBe(report.result === 'fail' ? 1 : report.result === 'unknown' ? 2 : 0);
    }
  });

  it('counts rules, marks live rules not run on a file, and qualifies a pass', () => {
    const good = JSON.stringify({ name: 'n', description: 'Forecasts for any city on earth.', version: '1.0.0', websiteUrl: 'https://w.dev', remotes: [{ type: 'sse', url: 'https://mcp.w.dev/sse' }] });
    const r = buildReport({ input: 's.json', kind: 'mcp-server-json', scope: 'document', verdicts: [checkServerJson({ text: good }, ctx)] });
    expect(r.result).toBe('pass');
    expect(r.summary.notRun).toBe(RULES.filter((x) => x.suite === 'mcp' && x.needs === 'live').length);
    expect(r.summary.failed).toBe(0);
    expect(r.qualification).toMatch(/structure only/);
  });

  it('--rule: evaluates one rule, excludes the rest, and reports a failed prerequisite as unable to complete', () => {
    const r = buildReport({ ...cardRun(), selectedRule: 'A2A-STRUCT-003' });
    expect(r.result).toBe('fail');
    expect(r.rules.filter((x) => x.outcome !== 'excluded').map((x) => x.id)).toEqual(['A2A-STRUCT-003']);
    const p = buildReport({ ...cardRun(), selectedRule: 'A2A-CARD-005' });
    expect(p.result).toBe('pass');
    expect(p.qualification).toMatch(/^LIMITED/);
    const broken = checkA2ACard({ text: '{' }, ctx);
    const b = buildReport({ input: 'x.json', kind: 'a2a-card', scope: 'document', verdicts: [broken.card, broken.structure], selectedRule: 'A2A-CARD-005' });
    expect(b.rules.find((x) => x.id === 'A2A-CARD-005')!.outcome).toBe('blocked');
    expect(b.result).toBe('unknown');
    expect(b.exitCode).toBe(2);
    const live = buildReport({ ...cardRun(), selectedRule: 'A2A-CARD-001' });
    expect(live.result).toBe('n/a');
    const other = buildReport({ ...cardRun(), selectedRule: 'MCP-Q-003' });
    expect(other.result).toBe('n/a');
    expect(other.exitCode).toBe(0);
  });

  it('carries attestations', () => {
    const { privateKeyPem } = generateSigningKeyPair();
    const run = cardRun();
    run.attestations = run.verdicts.map((v) => signVerdict(v, privateKeyPem));
    expect(validate(JSON.parse(JSON.stringify(buildReport(run))))).toBe(true);
  });

  it('lists the catalogue as JSON with suite ids and versions', () => {
    const c = catalogueJson();
    expect(c.rules.length).toBe(RULES.length);
    expect(new Set(c.rules.map((r) => r.id)).size).toBe(RULES.length);
    for (const r of c.rules) {
      expect(r.id).toMatch(/^(A2A-CARD|A2A-STRUCT|MCP-Q|MCP-T)-\d{3}$/);
      expect(r.spec.url).toMatch(/^https:\/\//);
      expect(['fail', 'warn']).toContain(r.severity);
      expect(r.suiteId).toMatch(/^veronikai-/);
    }
  });
});

describe('terminal and SARIF', () => {
  it('terminal output names rule, location (with line), problem and spec link', () => {
    const out = renderTerminal(cardRun());
    expect(out).toContain('✗ FAIL A2A-STRUCT-003 card.json#/skills/0/tags/0 (line 5, column 60)');
    expect(out).toContain('Spec: ');
    expect(out).toMatch(/✗ FAIL - /);
  });

  it('SARIF 2.1.0 with rules, levels, regions and help links', () => {
    const sarif = renderSarif(cardRun()) as {
      version: string;
      runs: Array<{ tool: { driver: { rules: Array<{ id: string; helpUri: string }> } }; results: Array<{ ruleId: string; ruleIndex: number; level: string; locations: Array<{ physicalLocation: { region?: { startLine: number } } }> }> }>;
    };
    expect(sarif.version).toBe('2.1.0');
    const run = sarif.runs[0]!;
    const res = run.results.find((r) => r.ruleId === 'A2A-STRUCT-003')!;
    expect(res.level).toBe('error');
    expect(run.tool.driver.rules[res.ruleIndex]!.id).toBe('A2A-STRUCT-003');
    expect(res.locations[0]!.physicalLocation.region!.startLine).toBe(5);
    for (const r of run.tool.driver.rules) expect(r.helpUri).toMatch(/^https:\/\//);
  });

  it('locates JSON pointers, falling back to the nearest existing ancestor', () => {
    const text = '{\n "a": [1, {"b~c/d": 2}],\n "e": {"f": "x"}\n}';
    const m = locatePointers(text, ['/a/1/b~0c~1d', '/e/f', '/e/missing', '/nope', '']);
    expect(m.get('/a/1/b~0c~1d')).toEqual({ line: 2, column: 21, exact: true });
    expect(m.get('/e/f')).toEqual({ line: 3, column: 13, exact: true });
    expect(m.get('/e/missing')).toEqual({ line: 3, column: 7, exact: false });
    expect(m.get('/nope')).toEqual({ line: 1, column: 1, exact: false });
    expect(locatePointers('{"a": [', ['/a/0']).get('/a/0')).toEqual({ line: 1, column: 8, exact: true });
    expect(locatePointers('['.repeat(100_000), ['/0/0']).size).toBe(1);
  });
});
