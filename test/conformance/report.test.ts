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
  judgeMcpEndpoint,
  type CheckRun,
} from '../../src/conformance/index.js';
import { ctxOf, judgeFixture, listFixtures, recipeCard, verdictsOf, weatherServerJson } from './helpers.js';

const ajv = new Ajv2020({ allErrors: true, strict: false });
(addFormats as unknown as (a: Ajv2020) => void)(ajv);
const validate = ajv.compile(CHECK_REPORT_SCHEMA);
const ctx = ctxOf('card.json');

const cardText = `{
  "name": "Recipe Agent",
  "url": "https://agent.acme-recipes.dev/a2a",
  "skills": [
    { "id": "a", "name": "A", "description": "d", "tags": [42] }
  ]
}`;
const good03 = recipeCard({ protocolVersion: '0.3.0' });
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
      const report = buildReport({
        input: f,
        kind,
        scope: f.startsWith('observations/') ? 'live' : 'document',
        verdicts: vs,
        uptime: j.uptime ?? null,
      });
      const ok = validate(JSON.parse(JSON.stringify(report)));
      expect(ok, `${f}: ${JSON.stringify(validate.errors)}`).toBe(true);
      expect(report.exitCode).toBe(report.result === 'fail' ? 1 : report.result === 'unknown' ? 2 : 0);
    }
  });

  it('counts rules, marks live rules not run on a file, and qualifies a pass', () => {
    const good = JSON.stringify(weatherServerJson());
    const r = buildReport({
      input: 's.json',
      kind: 'mcp-server-json',
      scope: 'document',
      verdicts: [checkServerJson({ text: good }, ctx)],
    });
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
    const b = buildReport({
      input: 'x.json',
      kind: 'a2a-card',
      scope: 'document',
      verdicts: [broken.card, broken.structure],
      selectedRule: 'A2A-CARD-005',
    });
    expect(b.rules.find((x) => x.id === 'A2A-CARD-005')!.outcome).toBe('blocked');
    expect(b.result).toBe('unknown');
    expect(b.exitCode).toBe(2);
    const other = buildReport({ ...cardRun(), selectedRule: 'MCP-Q-003' });
    expect(other.result).toBe('n/a');
    expect(other.exitCode).toBe(0);
  });

  it('--rule on a rule that needs a live GET, on a file: unable to complete (exit 2), never n/a', () => {
    for (const id of ['A2A-CARD-001', 'A2A-CARD-002']) {
      const r = buildReport({ ...cardRun(), selectedRule: id });
      expect(r.rules.find((x) => x.id === id)!.outcome).toBe('not-run');
      expect(r.result, id).toBe('unknown');
      expect(r.exitCode, id).toBe(2);
      expect(r.qualification).toMatch(new RegExp(`^UNABLE TO COMPLETE: ${id} was not run: it needs a live GET.*check the URL instead`));
      expect(validate(JSON.parse(JSON.stringify(r)))).toBe(true);
      const text = renderTerminal({ ...cardRun(), selectedRule: id });
      expect(text).toContain('? UNABLE TO COMPLETE');
      expect(text).toContain(`${id} was not run: it needs a live GET, and a file check fetches nothing: check the URL instead.`);
      const sarif = renderSarif({ ...cardRun(), selectedRule: id }) as {
        runs: Array<{
          invocations: Array<{
            exitCode: number;
            executionSuccessful: boolean;
            toolExecutionNotifications?: Array<{ message: { text: string } }>;
          }>;
        }>;
      };
      expect(sarif.runs[0]!.invocations[0]).toMatchObject({ exitCode: 2, executionSuccessful: false });
      expect(sarif.runs[0]!.invocations[0]!.toolExecutionNotifications![0]!.message.text).toMatch(/needs a live GET/);
    }
    const server = checkServerJson({ text: JSON.stringify(weatherServerJson()) }, ctx);
    const t = buildReport({ input: 's.json', kind: 'mcp-server-json', scope: 'document', verdicts: [server], selectedRule: 'MCP-T-001' });
    expect([t.result, t.exitCode]).toEqual(['unknown', 2]);
    // the full run of the same file still passes, qualified: the live rules are listed as not run
    const g = checkA2ACard({ text: JSON.stringify(good03) }, ctx);
    const full = buildReport({ input: 'good.json', kind: 'a2a-card', scope: 'document', verdicts: [g.card, g.structure] });
    expect(full.result).toBe('pass');
    expect(full.rules.filter((x) => x.outcome === 'not-run').map((x) => x.id)).toEqual(['A2A-CARD-001', 'A2A-CARD-002']);
  });

  it('an endpoint check (--kind mcp) lists the quality rules as not run; selecting one is unable to complete', () => {
    const obs = {
      remote: { type: 'streamable-http', url: 'https://mcp.w.dev/mcp' },
      get: { url: 'https://mcp.w.dev/mcp', status: 405, headers: {} },
      robots: 'allowed',
      canary: 'ok',
      serverJson: null,
    } as const;
    const { verdict } = judgeMcpEndpoint(obs, ctx);
    const run: CheckRun = { input: 'https://mcp.w.dev/mcp', kind: 'mcp-endpoint', scope: 'live', verdicts: [verdict] };
    const full = buildReport(run);
    expect(full.result).toBe('pass');
    expect(full.summary.notRun).toBe(RULES.filter((x) => x.suite === 'mcp' && x.needs === 'document').length);
    expect(full.qualification).toMatch(/quality rules were not run \(no server\.json\)/);
    expect(renderTerminal(run, full)).toMatch(/not run \(need a server\.json\)/);
    const sel = buildReport({ ...run, selectedRule: 'MCP-Q-003' });
    expect([sel.result, sel.exitCode]).toEqual(['unknown', 2]);
    expect(sel.qualification).toMatch(/^UNABLE TO COMPLETE: MCP-Q-003 was not run: it needs a server\.json/);
    expect(buildReport({ ...run, selectedRule: 'MCP-T-001' }).result).toBe('pass');
  });

  it('a rule whose findings all fall past the findings cap is reported as fail, with or without --rule', () => {
    const doc = { ...good03, skills: Array.from({ length: 60 }, () => ({})), additionalInterfaces: [1] };
    const text = JSON.stringify(doc, null, 2);
    const { card, structure } = checkA2ACard({ text }, ctx);
    expect(structure.findings.length).toBe(200);
    expect(structure.findings.some((f) => f.ruleId === 'A2A-STRUCT-003')).toBe(false);
    expect(structure.rulesFlagged).toEqual(['A2A-STRUCT-001', 'A2A-STRUCT-003']);
    expect(structure.omittedFindings).toBe(41);
    expect(structure.reasons).toContain('… 41 more findings not listed (A2A-STRUCT-001, A2A-STRUCT-003)');
    expect(structure.result).toBe('fail');
    const run: CheckRun = { input: 'card.json', kind: 'a2a-card', scope: 'document', verdicts: [card, structure], text };
    const sel = buildReport({ ...run, selectedRule: 'A2A-STRUCT-003' });
    expect(sel.rules.find((x) => x.id === 'A2A-STRUCT-003')!.outcome).toBe('fail');
    expect([sel.result, sel.exitCode]).toEqual(['fail', 1]);
    expect(buildReport(run).rules.find((x) => x.id === 'A2A-STRUCT-003')!.outcome).toBe('fail');
    expect(buildReport({ ...run, selectedRule: 'A2A-STRUCT-002' }).result).toBe('pass');
  });

  it('a warn-only verdict whose fail rule is entirely past the cap still fails', () => {
    // the card suite: 200 listed findings, then a capped failure of another rule
    const doc = { ...good03, skills: [...Array.from({ length: 70 }, () => ({ tags: [] })), { id: 's', name: 'S', description: 'd' }] };
    const { card } = checkA2ACard({ value: doc }, ctx);
    expect(card.findings.some((f) => f.ruleId === 'A2A-CARD-014')).toBe(false);
    expect(card.rulesFlagged).toEqual(['A2A-CARD-013', 'A2A-CARD-014']);
    expect(
      buildReport({ input: 'c.json', kind: 'a2a-card', scope: 'document', verdicts: [card], selectedRule: 'A2A-CARD-014' }).result,
    ).toBe('fail');
  });

  it('a mixed outcome (one verdict fails, another is incomplete) exits 1 in every format: a definite failure wins', () => {
    const { card, structure } = checkA2ACard({ text: JSON.stringify(good03) }, ctx);
    expect(card.result).toBe('pass');
    const failed = checkA2ACard({ text: cardText }, ctx).structure;
    expect(failed.result).toBe('fail');
    // the card suite could not complete (as after an internal error); the structural check failed
    const incomplete = {
      ...card,
      result: 'unknown' as const,
      reasons: ['unknown: internal error in the checker (TypeError); please report it'],
    };
    expect(structure.result).toBe('pass');
    const run: CheckRun = { input: 'card.json', kind: 'a2a-card', scope: 'document', verdicts: [incomplete, failed], text: cardText };
    const report = buildReport(run);
    expect([report.result, report.exitCode]).toEqual(['fail', 1]);
    expect(report.summary.notRun).toBeGreaterThan(0);
    const sarif = renderSarif(run, report) as { runs: Array<{ invocations: Array<{ exitCode: number }> }> };
    expect(sarif.runs[0]!.invocations[0]!.exitCode).toBe(1);
    expect(renderTerminal(run, report)).toMatch(/✗ FAIL - /);
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
      expect(r.id).toMatch(/^(A2A-CARD|A2A-STRUCT|MCP-Q|MCP-T|PLG|INS-(GEN|MCP|AUTH|A2A))-\d{3}$/);
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
      runs: Array<{
        tool: { driver: { rules: Array<{ id: string; helpUri: string }> } };
        results: Array<{
          ruleId: string;
          ruleIndex: number;
          level: string;
          locations: Array<{ physicalLocation: { region?: { startLine: number } } }>;
        }>;
      }>;
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
