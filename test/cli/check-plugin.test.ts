import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, runCli } from '../helpers/cli.js';

/** `veronikai check DIR`: the Agent Plugins checker through the real command. */
const fixtures = join(ROOT, 'test', 'fixtures', 'plugins');

describe('check on an Agent Plugins package', () => {
  it('passes the valid package with a qualified pass, and fails a broken one with exit 1', async () => {
    const ok = await runCli(['check', join(fixtures, 'valid')]);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toMatch(/QUALIFIED PASS - rules: 21 passed, 0 failed/);
    const fails = await runCli(['check', join(fixtures, 'fail'), '--recursive', '--json']);
    expect(fails.code).toBe(1);
    const set = JSON.parse(fails.stdout) as { packages: unknown[] };
    expect(set.packages.length).toBeGreaterThan(20);
  });

  it('--kind plugin on a package directory checks it as a plugin package (exit 0)', async () => {
    const r = await runCli(['check', join(fixtures, 'valid'), '--kind', 'plugin', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout) as { target: { kind: string }; result: string; summary: { passed: number } };
    expect(report.target.kind).toBe('agent-plugin');
    expect(report.result).toBe('pass');
    expect(report.summary.passed).toBe(21);
    // Forcing the kind does not soften a failure.
    expect((await runCli(['check', join(fixtures, 'fail', 'PLG-021-env-credential'), '--kind', 'plugin'])).code).toBe(1);
  });

  it('answers --rule with a LIMITED PASS, SARIF with locations, and refuses what does not apply', async () => {
    const one = await runCli(['check', join(fixtures, 'valid'), '--rule', 'PLG-012']);
    expect(one.code).toBe(0);
    expect(one.stdout).toMatch(/LIMITED PASS/);
    const sarif = await runCli(['check', join(fixtures, 'fail'), '--recursive', '--format', 'sarif']);
    const log = JSON.parse(sarif.stdout) as { version: string; runs: Array<{ results: Array<{ ruleId: string; locations: unknown[] }> }> };
    expect(log.version).toBe('2.1.0');
    expect(log.runs[0]!.results.every((r) => /^PLG-\d{3}$/.test(r.ruleId) && r.locations.length > 0)).toBe(true);
    expect((await runCli(['check', join(fixtures, 'valid'), '--rule', 'A2A-CARD-003'])).code).toBe(2);
    expect((await runCli(['check', join(fixtures, 'valid'), '--sign'])).code).toBe(2);
  });

  it('lists the plugin rules with their specification sections', async () => {
    const r = await runCli(['check', '--list-rules', '--json']);
    const rules = (
      JSON.parse(r.stdout) as { rules: Array<{ id: string; suiteId: string; spec: { section: string; url: string } }> }
    ).rules.filter((x) => x.id.startsWith('PLG-'));
    expect(rules).toHaveLength(21);
    for (const rule of rules) {
      expect(rule.suiteId).toBe('veronikai-agent-plugins');
      expect(rule.spec.section).toMatch(/§\d/);
      expect(rule.spec.url).toMatch(/^https:\/\//);
    }
  });
});
