import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, describe, expect, it } from 'vitest';
import { REPORT_VERSION } from '../../../src/conformance/version.js';
import {
  PLUGIN_PREREQUISITES,
  PLUGIN_REPORT_SCHEMA,
  PLUGIN_REPORT_SET_SCHEMA,
  PLUGIN_RULES,
  buildPluginReport,
  dependentsOf,
  evaluatePluginPackage,
  isLoopbackHost,
  pluginNameProblem,
  prerequisiteClosure,
  remoteUrlProblem,
  renderPluginRuleList,
  renderPluginSarif,
  renderPluginTerminal,
  skillNameProblem,
  type PluginReport,
} from '../../../src/conformance/plugin/index.js';
import { checkPluginDirectory, readPluginPackage } from '../../../src/runtime/usecases/plugin-package.js';
import { PLUGIN_FIXTURES, checkOne, outcomes, tempPackage } from './helpers.js';

const ajv = new Ajv2020.default({ allErrors: true, strict: false });
addFormats.default(ajv);
const validReport = ajv.compile(PLUGIN_REPORT_SCHEMA);
const validSet = ajv.compile(PLUGIN_REPORT_SET_SCHEMA);

const cleanups: Array<() => void> = [];
afterAll(() => cleanups.forEach((f) => f()));

/** PLG-002 has no static fixture (committed symlinks out of the repository would be followed by other tools): its fixtures are built in a temp dir. */
function symlinkFixture(kind: 'manifest' | 'skills' | 'skill-dir' | 'skill-file' | 'mcp'): string {
  const t = tempPackage(kind === 'manifest' ? undefined : 'minimal');
  cleanups.push(t.done);
  mkdirSync(t.dir, { recursive: true });
  const outside = join(t.base, 'outside');
  mkdirSync(join(outside, 'x'), { recursive: true });
  writeFileSync(join(outside, 'plugin.json'), readFileSync(join(PLUGIN_FIXTURES, 'minimal/plugin.json')));
  writeFileSync(join(outside, 'x/SKILL.md'), '---\nname: x\ndescription: Outside the package.\n---\n');
  writeFileSync(join(outside, 'mcp.json'), '{"$schema":"https://agent-plugins.org/schemas/1.0.0/mcp.schema.json","mcpServers":{}}');
  if (kind === 'manifest') symlinkSync('../outside/plugin.json', join(t.dir, 'plugin.json'));
  if (kind === 'skills') symlinkSync('../outside', join(t.dir, 'skills'));
  if (kind === 'skill-dir') {
    mkdirSync(join(t.dir, 'skills'));
    symlinkSync('../../outside/x', join(t.dir, 'skills/x'));
  }
  if (kind === 'skill-file') {
    mkdirSync(join(t.dir, 'skills/x'), { recursive: true });
    symlinkSync('../../../outside/x/SKILL.md', join(t.dir, 'skills/x/SKILL.md'));
  }
  if (kind === 'mcp') symlinkSync('../outside/mcp.json', join(t.dir, 'mcp.json'));
  return t.dir;
}

const STATIC_FAIL = readdirSync(join(PLUGIN_FIXTURES, 'fail')).sort();
const FAILING: Array<{ name: string; rule: string; dir: () => string }> = [
  ...STATIC_FAIL.map((name) => ({ name, rule: name.slice(0, 7), dir: () => join(PLUGIN_FIXTURES, 'fail', name) })),
  ...(['manifest', 'skills', 'skill-dir', 'skill-file', 'mcp'] as const).map((k) => ({
    name: `PLG-002-symlink-${k}`,
    rule: 'PLG-002',
    dir: () => symlinkFixture(k),
  })),
];

function expectOnly(report: PluginReport, rule: string): void {
  expect(outcomes(report, 'fail')).toEqual([rule]);
  const dependents = dependentsOf(rule);
  for (const id of outcomes(report, 'blocked')) expect(dependents.has(id), `${id} blocked but does not depend on ${rule}`).toBe(true);
  expect(outcomes(report, 'unable-to-complete')).toEqual([]);
  expect(report.result).toBe('fail');
  expect(report.exitCode).toBe(1);
  expect(report.findings.length).toBeGreaterThan(0);
  for (const f of report.findings) {
    expect(f.ruleId).toBe(rule);
    expect(f.spec.url).toMatch(/^https:\/\//);
    expect(f.location.startsWith(f.file)).toBe(true);
    if (f.pointer !== null && (f.file.endsWith('.json') || f.file.endsWith('SKILL.md')))
      expect(f.line, `${f.location} has a line`).not.toBeNull();
  }
}

describe('plugin rule catalogue', () => {
  it('has 21 rules with stable IDs, sections and links, and a prerequisite table over them', () => {
    expect(PLUGIN_RULES.map((r) => r.id)).toEqual(Array.from({ length: 21 }, (_, i) => `PLG-${String(i + 1).padStart(3, '0')}`));
    for (const r of PLUGIN_RULES) {
      expect(r.suite).toBe('agentPlugins');
      expect(r.needs).toBe('document');
      expect(r.section).toMatch(/§|Agent Skills/);
      expect(r.link).toMatch(/^https:\/\//);
      expect(Object.keys(PLUGIN_PREREQUISITES)).toContain(r.id);
      expect(prerequisiteClosure(r.id).has(r.id)).toBe(true);
    }
    expect(prerequisiteClosure('PLG-012')).toEqual(
      new Set(['PLG-012', 'PLG-011', 'PLG-010', 'PLG-007', 'PLG-006', 'PLG-005', 'PLG-004', 'PLG-003', 'PLG-001', 'PLG-002']),
    );
    // Unknown fields and extensions are non-fatal: nothing depends on them.
    expect(dependentsOf('PLG-008').size).toBe(0);
    expect(dependentsOf('PLG-009').size).toBe(0);
  });

  it('lists every rule with its section', () => {
    const text = renderPluginRuleList();
    for (const r of PLUGIN_RULES) {
      expect(text).toContain(r.id);
      expect(text).toContain(r.section);
    }
  });
});

describe('the valid package of the specification examples', () => {
  it('passes all 21 rules: a QUALIFIED PASS, exit 0', () => {
    const r = checkOne(join(PLUGIN_FIXTURES, 'valid'));
    expect(outcomes(r, 'pass')).toEqual(PLUGIN_RULES.map((x) => x.id));
    expect(r.result).toBe('pass');
    expect(r.exitCode).toBe(0);
    expect(r.findings).toEqual([]);
    expect(r.components).toEqual({
      manifest: 'valid',
      skills: { state: 'valid', discovered: 2, valid: 2 },
      mcp: { state: 'valid', servers: 8, valid: 8 },
    });
    const text = renderPluginTerminal(r);
    expect(text).toContain('✓ QUALIFIED PASS - rules: 21 passed, 0 failed.');
    expect(text).toContain('does not certify runtime or client behaviour');
    expect(validReport(r), JSON.stringify(validReport.errors)).toBe(true);
  });

  it('the minimal manifest says how many rules passed and how many did not apply, never that all ran', () => {
    const r = checkOne(join(PLUGIN_FIXTURES, 'minimal'));
    expect(r.summary).toEqual({ passed: 10, failed: 0, unableToComplete: 0, blocked: 0, notApplicable: 11, excluded: 0 });
    expect(r.exitCode).toBe(0);
    expect(renderPluginTerminal(r)).toContain('QUALIFIED PASS - rules: 10 passed, 0 failed, 11 not applicable.');
  });

  it('never judges metadata formats (§5.4)', () => {
    const r = checkOne(join(PLUGIN_FIXTURES, 'pass/metadata-formats-not-judged'));
    expect(r.result).toBe('pass');
    expect(outcomes(r, 'pass')).toContain('PLG-007');
  });
});

describe('one failing fixture per rule: it fails that rule and only rules that depend on it', () => {
  it('every rule has a failing fixture', () => {
    expect([...new Set(FAILING.map((f) => f.rule))].sort()).toEqual(PLUGIN_RULES.map((r) => r.id));
  });
  for (const f of FAILING) {
    it(`${f.name} fails ${f.rule} only`, () => {
      const r = checkOne(f.dir());
      expectOnly(r, f.rule);
      expect(validReport(r), JSON.stringify(validReport.errors)).toBe(true);
    });
  }

  it('names each problem at its pointer and line', () => {
    const r = checkOne(join(PLUGIN_FIXTURES, 'fail/PLG-006-uppercase'));
    expect(r.findings[0]).toMatchObject({ file: 'plugin.json', pointer: '/name', location: 'plugin.json#/name', line: 3, column: 11 });
    const m = checkOne(join(PLUGIN_FIXTURES, 'fail/PLG-020-remote'));
    expect(m.findings.map((x) => x.location)).toContain('mcp.json#/mcpServers/userinfo/url');
    const s = checkOne(join(PLUGIN_FIXTURES, 'fail/PLG-012-fields'));
    const mismatch = s.findings.find((x) => x.file === 'skills/name-mismatch/SKILL.md')!;
    expect(mismatch).toMatchObject({ pointer: '/name', location: 'skills/name-mismatch/SKILL.md#/name', line: 2, column: 7 });
    const meta = s.findings.filter((x) => x.file === 'skills/numeric-metadata-key/SKILL.md').map((x) => [x.pointer, x.line]);
    expect(meta).toEqual([
      ['/metadata/1', 5],
      ['/metadata/version', 6],
    ]);
  });

  it('PLG-011 and PLG-012 cover each broken skill; undiscovered paths are never judged', () => {
    const r = checkOne(join(PLUGIN_FIXTURES, 'fail/PLG-011-frontmatter'));
    const files = new Set(r.findings.map((f) => f.file));
    expect([...files].sort()).toEqual(
      ['bad-yaml', 'duplicate-key', 'empty', 'no-frontmatter', 'not-closed', 'not-utf8', 'sequence'].map((n) => `skills/${n}/SKILL.md`),
    );
    // good-skill is discovered and valid; group/nested (no recursion), README.md, a SKILL.md directory and skill.md are not skills.
    expect(r.components.skills).toEqual({ state: 'invalid', discovered: 8, valid: 1 });
    expect(r.findings.find((f) => f.file === 'skills/duplicate-key/SKILL.md')!.message).toContain('duplicate key');
    const s = checkOne(join(PLUGIN_FIXTURES, 'fail/PLG-012-fields'));
    expect(new Set(s.findings.map((f) => f.file)).size).toBe(8);
    expect(s.components.skills).toEqual({ state: 'invalid', discovered: 9, valid: 1 });
  });

  it('PLG-017..020 judge each server on its own', () => {
    const r = checkOne(join(PLUGIN_FIXTURES, 'fail/PLG-017-variants'));
    expect(r.components.mcp).toEqual({ state: 'invalid', servers: 11, valid: 1 });
    expect(new Set(r.findings.map((f) => f.pointer!.split('/')[2])).size).toBe(10);
    const c = checkOne(join(PLUGIN_FIXTURES, 'fail/PLG-018-command'));
    expect(c.components.mcp).toEqual({ state: 'invalid', servers: 9, valid: 1 });
    const w = checkOne(join(PLUGIN_FIXTURES, 'fail/PLG-019-cwd'));
    expect(w.components.mcp).toEqual({ state: 'invalid', servers: 8, valid: 1 });
    const h = checkOne(join(PLUGIN_FIXTURES, 'fail/PLG-020-remote'));
    expect(h.components.mcp).toEqual({ state: 'invalid', servers: 14, valid: 1 });
  });
});

describe('failure boundaries (§5.2, §7.1, §7.2.2)', () => {
  it('a fatal manifest stops component discovery: no component is read or judged', () => {
    const r = checkOne(join(PLUGIN_FIXTURES, 'fail/PLG-006-uppercase'));
    expect(r.components).toEqual({
      manifest: 'invalid',
      skills: { state: 'not-checked', discovered: 0, valid: 0 },
      mcp: { state: 'not-checked', servers: 0, valid: 0 },
    });
    expect(outcomes(r, 'blocked')).toEqual([
      'PLG-010',
      'PLG-011',
      'PLG-012',
      'PLG-013',
      'PLG-014',
      'PLG-015',
      'PLG-016',
      'PLG-017',
      'PLG-018',
      'PLG-019',
      'PLG-020',
      'PLG-021',
    ]);
  });

  it('unknown manifest fields and a non-object extensions fail the package but components still load', () => {
    const u = checkOne(join(PLUGIN_FIXTURES, 'fail/PLG-008-unknown-fields'));
    expect(u.components).toEqual({
      manifest: 'valid',
      skills: { state: 'valid', discovered: 1, valid: 1 },
      mcp: { state: 'valid', servers: 1, valid: 1 },
    });
    expect(u.findings.map((f) => f.pointer)).toEqual(['/mcpServers', '/x-custom']);
    const e = checkOne(join(PLUGIN_FIXTURES, 'fail/PLG-009-extensions-not-object'));
    expect(e.components.skills).toEqual({ state: 'valid', discovered: 1, valid: 1 });
    expect(outcomes(e, 'pass')).toContain('PLG-012');
  });

  it('an invalid skills location leaves MCP checked, and an invalid mcp.json leaves skills checked', () => {
    const s = checkOne(join(PLUGIN_FIXTURES, 'fail/PLG-010-skills-is-file'));
    expect(s.components.mcp).toEqual({ state: 'valid', servers: 1, valid: 1 });
    expect(outcomes(s, 'pass')).toEqual(expect.arrayContaining(['PLG-017', 'PLG-020']));
    const m = checkOne(join(PLUGIN_FIXTURES, 'fail/PLG-013-not-json'));
    expect(m.components.skills).toEqual({ state: 'valid', discovered: 1, valid: 1 });
    expect(m.components.mcp.state).toBe('invalid');
    const v = checkOne(join(PLUGIN_FIXTURES, 'fail/PLG-016-version-mismatch'));
    expect(v.components.skills.valid).toBe(1);
  });

  it('one broken skill or server leaves the others checked', () => {
    const r = checkOne(join(PLUGIN_FIXTURES, 'fail/PLG-011-frontmatter'));
    expect(r.components.skills.valid).toBe(1);
    const m = checkOne(join(PLUGIN_FIXTURES, 'fail/PLG-020-remote'));
    expect(m.components.mcp.valid).toBe(1);
  });
});

describe('placeholders (§7.2.1, §9.2)', () => {
  it('a ${PLUGIN_DATA} cwd is unable to complete (exit 2), never guessed', () => {
    // data-cwd sets env (PLG-021 passes), data-cwd-exact does not (PLG-021 has nothing to judge).
    for (const [name, counts] of [
      ['data-cwd', '17 passed, 0 failed, 1 unable to complete, 3 not applicable'],
      ['data-cwd-exact', '16 passed, 0 failed, 1 unable to complete, 4 not applicable'],
    ] as const) {
      const r = checkOne(join(PLUGIN_FIXTURES, 'placeholders', name));
      expect(outcomes(r, 'unable-to-complete')).toEqual(['PLG-019']);
      expect(outcomes(r, 'fail')).toEqual([]);
      expect(r.result).toBe('unknown');
      expect(r.exitCode).toBe(2);
      expect(r.qualification).toMatch(/^UNABLE TO COMPLETE: PLG-019 was unable to complete: .*PLUGIN_DATA/);
      expect(renderPluginTerminal(r)).toContain(`? UNABLE TO COMPLETE - rules: ${counts}.`);
      expect(validReport(r)).toBe(true);
    }
  });

  it('a cwd that expands another placeholder inside the path is unable to complete', () => {
    const r = checkOne(join(PLUGIN_FIXTURES, 'placeholders/root-dynamic'));
    expect(outcomes(r, 'unable-to-complete')).toEqual(['PLG-019']);
    expect(r.exitCode).toBe(2);
  });

  it('${PLUGIN_ROOT} forms pass; placeholders in args and env are opaque; other ${…} text stays literal', () => {
    const r = checkOne(join(PLUGIN_FIXTURES, 'placeholders/root-forms'));
    expect(r.result).toBe('pass');
    expect(r.components.mcp).toEqual({ state: 'valid', servers: 6, valid: 6 });
  });

  it('a definite failure wins over an incomplete rule (exit 1), the incomplete part stays in the report', () => {
    const r = checkOne(join(PLUGIN_FIXTURES, 'placeholders/data-and-failure'));
    expect(r.result).toBe('fail');
    expect(r.exitCode).toBe(1);
    expect(outcomes(r, 'unable-to-complete')).toEqual(['PLG-019']);
    expect(r.incomplete).toHaveLength(1);
  });

  it('placeholders in command, url and headers fail; $PLUGIN_ROOT without braces is literal', () => {
    const c = checkOne(join(PLUGIN_FIXTURES, 'fail/PLG-018-command'));
    expect(c.findings.some((f) => f.pointer === '/mcpServers/placeholder/command' && /placeholder/.test(f.message))).toBe(true);
    const w = checkOne(join(PLUGIN_FIXTURES, 'fail/PLG-019-cwd'));
    expect(w.findings.map((f) => f.pointer)).toContain('/mcpServers/no-braces/cwd');
    expect(w.findings.map((f) => f.pointer)).toContain('/mcpServers/data-parent/cwd');
    const h = checkOne(join(PLUGIN_FIXTURES, 'fail/PLG-020-remote'));
    expect(h.findings.map((f) => f.pointer)).toEqual(
      expect.arrayContaining(['/mcpServers/placeholder-url/url', '/mcpServers/placeholder-header/headers/X-Root']),
    );
  });
});

describe('--rule ID', () => {
  it('evaluates the rule and its prerequisites; a pass is a LIMITED PASS', () => {
    const r = checkOne(join(PLUGIN_FIXTURES, 'valid'), { rule: 'PLG-006' });
    expect(outcomes(r, 'pass').sort()).toEqual([...prerequisiteClosure('PLG-006')].sort());
    expect(r.summary.excluded).toBe(21 - prerequisiteClosure('PLG-006').size);
    expect(r.result).toBe('pass');
    expect(r.exitCode).toBe(0);
    const text = renderPluginTerminal(r);
    expect(text).toContain('✓ LIMITED PASS');
    expect(text).not.toContain('QUALIFIED PASS');
    expect(r.qualification).toMatch(/^LIMITED: only PLG-006/);
  });

  it('reads only the components the rule needs', () => {
    const snap = readPluginPackage(join(PLUGIN_FIXTURES, 'fail/PLG-011-frontmatter'), { components: new Set(['manifest']) });
    expect(snap.skills).toBeUndefined();
    const r = checkOne(join(PLUGIN_FIXTURES, 'fail/PLG-011-frontmatter'), { rule: 'PLG-006' });
    expect(r.result).toBe('pass');
    const m = checkOne(join(PLUGIN_FIXTURES, 'fail/PLG-011-frontmatter'), { rule: 'PLG-020' });
    expect(m.result).toBe('n/a');
    expect(m.exitCode).toBe(0);
  });

  it('fails when the rule fails, hides unrelated failures', () => {
    const r = checkOne(join(PLUGIN_FIXTURES, 'fail/PLG-020-remote'), { rule: 'PLG-020' });
    expect(r.result).toBe('fail');
    expect(r.exitCode).toBe(1);
    const u = checkOne(join(PLUGIN_FIXTURES, 'fail/PLG-008-unknown-fields'), { rule: 'PLG-012' });
    expect(u.result).toBe('pass');
    expect(u.findings).toEqual([]);
  });

  it('a failed prerequisite makes the selected rule unable to complete (exit 2), never a pass', () => {
    const r = checkOne(join(PLUGIN_FIXTURES, 'fail/PLG-006-uppercase'), { rule: 'PLG-012' });
    expect(r.rules.find((x) => x.id === 'PLG-012')!.outcome).toBe('blocked');
    expect(r.result).toBe('unknown');
    expect(r.exitCode).toBe(2);
    expect(r.qualification).toContain('PLG-012 could not be evaluated: its prerequisite PLG-006 failed');
    expect(r.findings.map((f) => f.ruleId)).toEqual(['PLG-006']);
  });

  it('a selected rule with nothing to judge is not applicable (exit 0)', () => {
    const r = checkOne(join(PLUGIN_FIXTURES, 'minimal'), { rule: 'PLG-020' });
    expect(r.result).toBe('n/a');
    expect(r.exitCode).toBe(0);
  });

  it('a ${PLUGIN_DATA} cwd under --rule PLG-019 is unable to complete', () => {
    const r = checkOne(join(PLUGIN_FIXTURES, 'placeholders/data-cwd'), { rule: 'PLG-019' });
    expect(r.result).toBe('unknown');
    expect(r.exitCode).toBe(2);
  });

  it('refuses an unknown rule', () => {
    expect(() => checkOne(join(PLUGIN_FIXTURES, 'valid'), { rule: 'PLG-999' })).toThrow(/unknown plugin rule/);
    expect(() => evaluatePluginPackage({ manifest: { path: 'plugin.json', present: false } }, { rule: 'plg-001' })).toThrow();
  });
});

describe('reports', () => {
  it('SARIF 2.1.0 carries every rule, each result with file, region and pointer', () => {
    const r = checkOne(join(PLUGIN_FIXTURES, 'fail/PLG-012-fields'));
    const s = renderPluginSarif(r) as {
      version: string;
      runs: Array<{
        tool: { driver: { rules: unknown[] } };
        results: Array<{
          ruleId: string;
          locations: Array<{ physicalLocation: { artifactLocation: { uri: string }; region?: { startLine: number } } }>;
          properties: { jsonPointer: string };
        }>;
        invocations: Array<{ exitCode: number }>;
      }>;
    };
    expect(s.version).toBe('2.1.0');
    expect(s.runs[0]!.tool.driver.rules).toHaveLength(21);
    expect(s.runs[0]!.invocations[0]!.exitCode).toBe(1);
    const first = s.runs[0]!.results.find((x) => x.properties.jsonPointer === '/name')!;
    expect(first.locations[0]!.physicalLocation.artifactLocation.uri).toMatch(/fail\/PLG-012-fields\/skills\/[^/]+\/SKILL\.md$/);
    expect(first.locations[0]!.physicalLocation.region!.startLine).toBe(2);
  });

  it('the JSON report follows its schema and the project report version', () => {
    const r = checkOne(join(PLUGIN_FIXTURES, 'fail/PLG-017-variants'));
    expect(r.reportVersion).toBe(REPORT_VERSION);
    expect(validReport(JSON.parse(JSON.stringify(r))), JSON.stringify(validReport.errors)).toBe(true);
  });

  it('a directory of packages is checked package by package (--recursive)', () => {
    const res = checkPluginDirectory(PLUGIN_FIXTURES, { recursive: true });
    expect(res.recursive).toBe(true);
    if (!res.recursive) return;
    const paths = res.report.packages.map((p) => p.path.slice(PLUGIN_FIXTURES.length + 1));
    expect(paths).toEqual(expect.arrayContaining(['valid', 'minimal', 'fail/PLG-006-uppercase', 'placeholders/data-cwd']));
    // fail/PLG-001-no-manifest has no plugin.json, so it is not a package root; nested skills/ trees are never searched as packages.
    expect(paths).not.toContain('fail/PLG-001-no-manifest');
    expect(res.exitCode).toBe(1);
    expect(validSet(JSON.parse(JSON.stringify(res.report))), JSON.stringify(validSet.errors)).toBe(true);
    expect(res.report.packages.find((p) => p.path.endsWith('/valid'))!.report.result).toBe('pass');
    const sarif = renderPluginSarif(res.report) as { runs: Array<{ results: unknown[] }> };
    expect(sarif.runs[0]!.results.length).toBe(res.report.packages.reduce((n, p) => n + p.report.findings.length, 0));
  });

  it('a directory with no package is unable to complete (exit 2)', () => {
    const t = tempPackage();
    cleanups.push(t.done);
    mkdirSync(join(t.dir, 'empty'), { recursive: true });
    const res = checkPluginDirectory(t.dir, { recursive: true });
    expect(res.exitCode).toBe(2);
    expect(res.report.result).toBe('unknown');
  });

  it('buildPluginReport is a pure function of the evaluation', () => {
    const snap = readPluginPackage(join(PLUGIN_FIXTURES, 'valid'));
    const a = buildPluginReport('x', evaluatePluginPackage(snap));
    const b = buildPluginReport('x', evaluatePluginPackage(JSON.parse(JSON.stringify(snap))));
    expect(a).toEqual(b);
  });
});

describe('constraints by example', () => {
  it('plugin names (§5.5 examples)', () => {
    for (const ok of ['my-plugin', 'acme.tools', 'lint3r', 'a', 'a.b-c', 'x'.repeat(64)]) expect(pluginNameProblem(ok), ok).toBeNull();
    for (const bad of ['My-Plugin', '-start', 'has--double', 'too.many..dots', 'end.', 'x'.repeat(65), 'ünï', 'a_b'])
      expect(pluginNameProblem(bad), bad).not.toBeNull();
  });

  it('skill names (Agent Skills examples; Unicode letters allowed)', () => {
    for (const ok of ['pdf-processing', 'data-analysis', 'code-review', 'données', '数据', 'a1'])
      expect(skillNameProblem(ok), ok).toBeNull();
    for (const bad of ['PDF-Processing', '-pdf', 'pdf--processing', 'pdf-', 'pdf_processing', 'pdf processing', 'Ünï', '', 'x'.repeat(65)])
      expect(skillNameProblem(bad), bad).not.toBeNull();
  });

  it('remote URLs (§7.2.1)', () => {
    for (const ok of [
      'https://a.example/mcp',
      'http://localhost/mcp',
      'http://LOCALHOST:8080',
      'http://127.0.0.1/',
      'http://127.255.0.9:1/x',
      'http://[::1]/',
      'http://[0:0:0:0:0:0:0:1]:80/',
      'https://a.example/?q=1',
    ])
      expect(remoteUrlProblem(ok), ok).toBeNull();
    for (const bad of [
      'http://a.example/',
      'http://127.1/',
      'http://2130706433/',
      'http://0x7f.0.0.1/',
      'http://127.0.0.01/',
      'http://localhost.',
      'https://u@a.example/',
      'https://a.example/#',
      'https:/a.example',
      'ws://a.example',
      ' https://a.example',
      'https://a.example/a b',
      'http://[::ffff:127.0.0.1]/',
    ]) {
      expect(remoteUrlProblem(bad), bad).not.toBeNull();
    }
    expect(isLoopbackHost('127.0.0.1:80')).toBe(true);
    expect(isLoopbackHost('128.0.0.1')).toBe(false);
  });
});

describe('vendored schemas', () => {
  const DIR = join(import.meta.dirname, '../../../schemas/protocol/agent-plugins/1.0.0');
  const SHARED = join(import.meta.dirname, '../../../../shared/specs/agent-plugins/1.0.0');
  const SHA: Record<string, string> = {
    'plugin.schema.json': '0a4aad95ce337878ad38802ebf0daa3fde76abe3f65400c86bcbb1ec0b3ab883',
    'mcp.schema.json': '6539175bfcdf43085855183e86da40ea94b166547a72b47ae9a0a390516d3acb',
  };
  it('are byte-for-byte the pinned files', () => {
    for (const [f, sha] of Object.entries(SHA)) {
      expect(
        createHash('sha256')
          .update(readFileSync(join(DIR, f)))
          .digest('hex'),
      ).toBe(sha);
      if (existsSync(join(SHARED, f))) expect(readFileSync(join(DIR, f))).toEqual(readFileSync(join(SHARED, f)));
    }
  });

  it('agree with the rules on the valid package and on the schema-expressible fixtures (a second opinion; the text is authoritative)', () => {
    const a = new Ajv2020.default({ strict: false });
    const plugin = a.compile(JSON.parse(readFileSync(join(DIR, 'plugin.schema.json'), 'utf8')));
    const mcp = a.compile(JSON.parse(readFileSync(join(DIR, 'mcp.schema.json'), 'utf8')));
    const read = (p: string): unknown => JSON.parse(readFileSync(join(PLUGIN_FIXTURES, p), 'utf8'));
    expect(plugin(read('valid/plugin.json'))).toBe(true);
    expect(mcp(read('valid/mcp.json'))).toBe(true);
    for (const f of [
      'PLG-003-array',
      'PLG-004-missing-schema',
      'PLG-004-name-not-string',
      'PLG-004-empty-name',
      'PLG-005-other-version',
      'PLG-006-uppercase',
      'PLG-006-double-hyphen',
      'PLG-006-too-long',
      'PLG-007-author-extra-field',
      'PLG-007-types',
      'PLG-008-unknown-fields',
      'PLG-009-extensions-not-object',
      'PLG-009-member-not-object',
    ]) {
      expect(plugin(read(`fail/${f}/plugin.json`)), f).toBe(false);
    }
    for (const f of [
      'PLG-014-extra-field',
      'PLG-014-missing-servers',
      'PLG-015-wrong-schema',
      'PLG-016-version-mismatch',
      'PLG-017-variants',
    ])
      expect(mcp(read(`fail/${f}/mcp.json`)), f).toBe(false);
    // Beyond the schema: command tokens, containment, URL and header rules pass the schema but fail the text.
    expect(mcp(read('fail/PLG-018-command/mcp.json'))).toBe(true);
    expect(mcp(read('fail/PLG-020-remote/mcp.json'))).toBe(true);
  });
});
