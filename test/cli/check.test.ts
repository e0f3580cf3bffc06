import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHECK_REPORT_SCHEMA, RULES, verifyVerdict } from '../../src/conformance/index.js';
import { runCli } from '../helpers/cli.js';
import { FIXTURES } from '../conformance/helpers.js';

/** End to end: `node bin/veronikai.js check …` as an agent owner runs it. */

interface Out {
  code: number;
  stdout: string;
  stderr: string;
}

const dataDir = mkdtempSync(join(tmpdir(), 'veronikai-check-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

async function cli(...args: string[]): Promise<Out> {
  const r = await runCli(['check', ...args], { VERONIKAI_DATA_DIR: dataDir, VERONIKAI_SIGNING_KEY: '' });
  return { code: r.code ?? 1, stdout: r.stdout, stderr: r.stderr };
}

const fx = (rel: string) => join(FIXTURES, rel);
const cases: Record<string, string[]> = {
  passCard: [fx('a2a/good-0.3.json')],
  passCard10: [fx('a2a/good-1.0.json'), '--kind', 'card'],
  failCard: [fx('a2a/struct-003-skill-tags-42.json')],
  passServer: [fx('mcp/good.json')],
  warnServer: [fx('mcp/q-102-version-0.0.0.json')],
  failServer: [fx('mcp/q-011-remote-localhost.json')],
  notJson: [fx('a2a/card-003-not-json.json')],
  json: [fx('a2a/struct-001-inferred-0.3-missing-protocol-version.json'), '--json'],
  jsonServer: [fx('mcp/q-003-short-description.json'), '--format', 'json'],
  sarif: [fx('a2a/struct-002-protocol-version-42.json'), '--format', 'sarif'],
  junit: [fx('a2a/struct-003-skill-tags-42.json'), '--format', 'junit'],
  rulePass: [fx('a2a/struct-001-inferred-0.3-missing-protocol-version.json'), '--rule', 'A2A-CARD-005'],
  ruleFail: [fx('a2a/struct-001-inferred-0.3-missing-protocol-version.json'), '--rule', 'A2A-STRUCT-001', '--json'],
  ruleBlocked: [fx('a2a/card-003-not-json.json'), '--rule', 'A2A-CARD-005'],
  ruleUnknown: [fx('a2a/good-0.3.json'), '--rule', 'NOPE-001'],
  listRules: ['--list-rules'],
  listRulesJson: ['--list-rules', '--json'],
  listRulesWithTarget: [fx('a2a/good-0.3.json'), '--list-rules'],
  missingFile: [join(FIXTURES, 'does-not-exist.json')],
  noTarget: [],
  badKind: [fx('a2a/good-0.3.json'), '--kind', 'plugin'],
  jsonAndSarif: [fx('a2a/good-0.3.json'), '--json', '--format', 'sarif'],
  signed: [fx('a2a/good-0.3.json'), '--json', '--sign'],
  blockedUrl: ['http://127.0.0.1:9/.well-known/agent-card.json', '--json'],
  ruleLive: [fx('a2a/good-0.3.json'), '--rule', 'A2A-CARD-001'],
  ruleLiveJson: [fx('a2a/good-0.3.json'), '--rule', 'A2A-CARD-001', '--json'],
  ruleLiveServer: [fx('mcp/good.json'), '--rule', 'MCP-T-001', '--format', 'sarif'],
  cappedRule: [fx('a2a/struct-003-past-the-findings-cap.json'), '--rule', 'A2A-STRUCT-003'],
  cappedRuleJson: [fx('a2a/struct-003-past-the-findings-cap.json'), '--rule', 'A2A-STRUCT-003', '--json'],
  help: ['--help'],
};
const results: Record<string, Out> = {};

beforeAll(async () => {
  const names = Object.keys(cases);
  // a few at a time: each run starts tsx
  for (let i = 0; i < names.length; i += 6) {
    await Promise.all(names.slice(i, i + 6).map(async (n) => (results[n] = await cli(...cases[n]!))));
  }
}, 180_000);

const ajv = new Ajv2020({ allErrors: true, strict: false });
(addFormats as unknown as (a: Ajv2020) => void)(ajv);
const validate = ajv.compile(CHECK_REPORT_SCHEMA);

describe('veronikai check', () => {
  it('exit 0 with a qualified pass on a good card and server.json', () => {
    for (const n of ['passCard', 'passCard10', 'passServer']) {
      expect(results[n]!.code, `${n}: ${results[n]!.stderr}`).toBe(0);
      expect(results[n]!.stdout).toContain('QUALIFIED PASS');
      expect(results[n]!.stdout).toContain('nothing was called');
    }
    expect(results.warnServer!.code).toBe(0);
    expect(results.warnServer!.stdout).toContain('! WARN MCP-Q-102');
  });

  it('exit 1 naming rule, location, problem and spec link', () => {
    const out = results.failCard!;
    expect(out.code).toBe(1);
    expect(out.stdout).toMatch(/✗ FAIL A2A-STRUCT-003 .*struct-003-skill-tags-42\.json#\/skills\/0\/tags\/0 \(line \d+, column \d+\)/);
    expect(out.stdout).toContain('tags[0] must be a string, found integer');
    expect(out.stdout).toMatch(/Spec: .*https:\/\//);
    expect(results.failServer!.code).toBe(1);
    expect(results.failServer!.stdout).toContain('MCP-Q-011');
    expect(results.notJson!.code).toBe(1);
    expect(results.notJson!.stdout).toContain('A2A-CARD-003');
  });

  it('--json writes a versioned report valid against its schema', () => {
    for (const n of ['json', 'jsonServer', 'ruleFail']) {
      const report = JSON.parse(results[n]!.stdout);
      expect(validate(report), JSON.stringify(validate.errors)).toBe(true);
      expect(report.reportVersion).toBe(1);
      expect(report.exitCode).toBe(results[n]!.code);
    }
    const r = JSON.parse(results.json!.stdout);
    expect(r.result).toBe('fail');
    const structure = r.verdicts.find((v: { suite: { id: string } }) => v.suite.id === 'veronikai-a2a-structure');
    expect(structure.a2a).toMatchObject({
      route: 'inferred',
      valid: false,
      tolerantValid: true,
      schema: 'schemas/protocol/a2a/0.3.0/a2a.json',
    });
  });

  it('--format sarif writes SARIF 2.1.0', () => {
    const s = JSON.parse(results.sarif!.stdout);
    expect(results.sarif!.code).toBe(1);
    expect(s.version).toBe('2.1.0');
    expect(s.runs[0].results.map((r: { ruleId: string }) => r.ruleId)).toContain('A2A-STRUCT-002');
    // The fixture is inside the working directory (the repository root): relative to %SRCROOT%.
    expect(s.runs[0].results[0].locations[0].physicalLocation.artifactLocation).toEqual({
      uri: 'test/fixtures/conformance/a2a/struct-002-protocol-version-42.json',
      uriBaseId: '%SRCROOT%',
    });
    expect(Object.keys(s.runs[0].originalUriBaseIds)).toEqual(['%SRCROOT%']);
    expect(
      s.runs[0].results.every((r: { partialFingerprints?: Record<string, string> }) =>
        /^[0-9a-f]{64}$/.test(r.partialFingerprints?.['veronikaiFinding/v1'] ?? ''),
      ),
    ).toBe(true);
  });

  it('--format junit writes one test case per rule, the failed rule a failure, with the exit code of the check', () => {
    expect(results.junit!.code).toBe(1);
    const xml = results.junit!.stdout;
    expect(xml).toMatch(/^<\?xml version="1.0" encoding="UTF-8"\?>\n<testsuites /);
    const cases = [...xml.matchAll(/<testcase classname="[^"]+" name="([A-Z0-9-]+) /g)].map((m) => m[1]);
    expect(new Set(cases).size).toBe(cases.length);
    expect(cases.length).toBeGreaterThan(10);
    expect(xml).toMatch(/<testcase classname="veronikai-a2a-structure" name="A2A-STRUCT-003 [^"]*">\n\s*<failure message=/);
  });

  it('--rule evaluates one rule: limited pass, fail, blocked prerequisite, unknown ID', () => {
    expect(results.rulePass!.code).toBe(0);
    expect(results.rulePass!.stdout).toContain('LIMITED PASS');
    expect(results.ruleFail!.code).toBe(1);
    expect(JSON.parse(results.ruleFail!.stdout).selectedRule).toBe('A2A-STRUCT-001');
    expect(results.ruleBlocked!.code).toBe(2);
    expect(results.ruleBlocked!.stdout).toContain('A2A-CARD-003');
    expect(results.ruleUnknown!.code).toBe(2);
    expect(results.ruleUnknown!.stderr).toContain('unknown rule');
  });

  it('--list-rules, as text and as JSON', () => {
    expect(results.listRules!.code).toBe(0);
    for (const r of RULES) expect(results.listRules!.stdout).toContain(r.id);
    const j = JSON.parse(results.listRulesJson!.stdout);
    expect(j.rules.map((r: { id: string }) => r.id)).toEqual(RULES.map((r) => r.id));
    expect(j.checker).toBe('VeronikAI/0.1+attestations.3');
    expect(results.listRulesWithTarget!.code).toBe(2);
  });

  it('exit 2 for usage errors', () => {
    for (const n of ['missingFile', 'noTarget', 'badKind', 'jsonAndSarif']) {
      expect(results[n]!.code, n).toBe(2);
      expect(results[n]!.stdout, n).toBe('');
    }
  });

  it('--rule on a rule that needs a live GET, on a file: unable to complete (exit 2), saying to check a URL', () => {
    expect(results.ruleLive!.code, results.ruleLive!.stderr).toBe(2);
    expect(results.ruleLive!.stdout).toContain('? UNABLE TO COMPLETE');
    expect(results.ruleLive!.stdout).toContain(
      'A2A-CARD-001 was not run: it needs a live GET, and a file check fetches nothing: check the URL instead.',
    );
    const r = JSON.parse(results.ruleLiveJson!.stdout);
    expect(results.ruleLiveJson!.code).toBe(2);
    expect(validate(r), JSON.stringify(validate.errors)).toBe(true);
    expect(r).toMatchObject({ result: 'unknown', exitCode: 2, selectedRule: 'A2A-CARD-001' });
    expect(r.qualification).toMatch(/^UNABLE TO COMPLETE: A2A-CARD-001 was not run: it needs a live GET/);
    expect(results.ruleLiveServer!.code).toBe(2);
    expect(JSON.parse(results.ruleLiveServer!.stdout).runs[0].invocations[0]).toMatchObject({ exitCode: 2, executionSuccessful: false });
  });

  it('--rule on a rule whose findings all fall past the findings cap fails (exit 1), never a pass', () => {
    expect(results.cappedRule!.code, results.cappedRule!.stdout).toBe(1);
    expect(results.cappedRule!.stdout).toContain('✗ FAIL');
    expect(results.cappedRule!.stdout).toMatch(/more findings in veronikai-a2a-structure/);
    const r = JSON.parse(results.cappedRuleJson!.stdout);
    expect(r.rules.find((x: { id: string }) => x.id === 'A2A-STRUCT-003').outcome).toBe('fail');
    expect(r.verdicts[1].rulesFlagged).toContain('A2A-STRUCT-003');
  });

  it('check --help states the exit codes and the mixed-outcome rule', () => {
    const out = results.help!;
    expect(out.code).toBe(0);
    expect(out.stdout).toContain('Exit codes:');
    expect(out.stdout).toMatch(/2 {2}a usage error or an internal error, or a selected rule was unable to complete/);
    expect(out.stdout).toMatch(/A mixed outcome \(one rule failed, another could not complete\) exits 1 in every output format/);
  });

  it('an error while signing that is not a usage error exits 2 with a message, never 1', async () => {
    const notADir = join(dataDir, 'plain-file');
    writeFileSync(notADir, 'x');
    const r = await runCli(['check', fx('a2a/good-0.3.json'), '--json', '--sign'], {
      VERONIKAI_DATA_DIR: notADir,
      VERONIKAI_SIGNING_KEY: '',
      VERONIKAI_SIGNING_KEY_FILE: '',
    });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/the check could not complete \(error while signing the verdicts\)/);
    expect(r.stdout).toBe('');
  });

  it('--sign attaches attestations that verify with the generated key', async () => {
    const out = results.signed!;
    expect(out.code, out.stderr).toBe(0);
    const report = JSON.parse(out.stdout);
    expect(report.attestations).toHaveLength(2);
    expect(report.attestations.map((a: { payload: { scope: string } }) => a.payload.scope)).toEqual(['document', 'document']);
    const { loadSigningKey } = await import('../../src/signing/keys.js');
    const key = loadSigningKey({ dataDir });
    report.verdicts.forEach((v: never, i: number) => expect(verifyVerdict(v, report.attestations[i], key.publicKey)).toBe(true));
  });

  it("a URL runs the crawler's guarded GET chain: a loopback target is refused and the check cannot complete (exit 2)", () => {
    const out = results.blockedUrl!;
    expect(out.code, out.stderr).toBe(2);
    const report = JSON.parse(out.stdout);
    expect(report.target.scope).toBe('live');
    expect(report.result).toBe('unknown');
    expect(report.verdicts[0].reasons.join()).toMatch(/SSRF guard|refused/);
  });
});
