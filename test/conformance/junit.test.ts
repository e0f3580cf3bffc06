import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { xml2js, type Element } from 'xml-js';
import { describe, expect, it } from 'vitest';
import {
  buildReport,
  checkA2ACard,
  checkServerJson,
  junitXml,
  renderCheckJUnit,
  type CheckReport,
  type CheckRun,
} from '../../src/conformance/index.js';
import { buildInspectReport, renderInspectJUnit, type InspectExchange } from '../../src/conformance/inspect/index.js';
import { renderPluginJUnit } from '../../src/conformance/plugin/index.js';
import { checkPluginDirectory } from '../../src/runtime/usecases/plugin-package.js';
import { CORPUS, ctxOf, FIXTURES, HAVE_CORPUS, judgeFixture, listFixtures, verdictsOf } from './helpers.js';
import { PLUGIN_FIXTURES } from './plugin/helpers.js';

/**
 * `--format junit`: well-formed XML, one test case per rule of the report, each counted where
 * its outcome says (failure, error, skipped), the counts on every suite and on the whole agreeing
 * with the cases, on the fixtures and every real document of the shared corpus.
 */

const children = (e: Element, name: string): Element[] => (e.elements ?? []).filter((c) => c.type === 'element' && c.name === name);
const textOf = (e: Element | undefined): string => (e?.elements ?? []).map((c) => c.text ?? '').join('');

interface Case {
  suite: string;
  name: string;
  status: 'passed' | 'failed' | 'error' | 'skipped';
  message?: string;
  text: string;
  out: string;
}

/** Parses the XML, checks every count attribute against the cases, and returns the cases. */
function parse(xml: string): { cases: Case[]; suites: Element[]; properties: Array<Record<string, string>> } {
  expect(xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n')).toBe(true);
  const doc = xml2js(xml) as Element;
  const [root] = children(doc, 'testsuites');
  expect(root).toBeDefined();
  const all: Case[] = [];
  const properties: Array<Record<string, string>> = [];
  const suites = children(root!, 'testsuite');
  for (const s of suites) {
    const cases: Case[] = children(s, 'testcase').map((c) => {
      const [failure] = children(c, 'failure');
      const [error] = children(c, 'error');
      const [skipped] = children(c, 'skipped');
      const el = failure ?? error ?? skipped;
      return {
        suite: String(s.attributes!.name),
        name: String(c.attributes!.name),
        status: failure ? 'failed' : error ? 'error' : skipped ? 'skipped' : 'passed',
        ...(el?.attributes?.message !== undefined ? { message: String(el.attributes.message) } : {}),
        text: textOf(failure ?? error),
        out: textOf(children(c, 'system-out')[0]),
      };
    });
    const a = s.attributes!;
    expect([a.tests, a.failures, a.errors, a.skipped].map(Number)).toEqual([
      cases.length,
      ...(['failed', 'error', 'skipped'] as const).map((st) => cases.filter((c) => c.status === st).length),
    ]);
    properties.push(
      Object.fromEntries(
        children(children(s, 'properties')[0] ?? { elements: [] }, 'property').map((p) => [
          String(p.attributes!.name),
          String(p.attributes!.value),
        ]),
      ),
    );
    all.push(...cases);
  }
  const r = root!.attributes!;
  expect([r.tests, r.failures, r.errors, r.skipped].map(Number)).toEqual([
    all.length,
    ...(['failed', 'error', 'skipped'] as const).map((st) => all.filter((c) => c.status === st).length),
  ]);
  return { cases: all, suites, properties };
}

/** One case per rule, named by it; a failed rule is a failure, a pass or warning passes; the exit code is carried. */
function expectOneCasePerRule(run: CheckRun, report: CheckReport, what: string): Case[] {
  const { cases, properties } = parse(renderCheckJUnit(run, report));
  expect(
    cases.map((c) => c.name.split(' ')[0]),
    what,
  ).toEqual(report.rules.map((r) => r.id));
  report.rules.forEach((r, i) => {
    const c = cases[i]!;
    if (r.outcome === 'fail') expect(c.status, `${what} ${r.id}`).toBe('failed');
    else if (r.outcome === 'pass' || r.outcome === 'warn') expect(c.status, `${what} ${r.id}`).toBe('passed');
    else expect(['skipped', 'error'], `${what} ${r.id}`).toContain(c.status);
  });
  if (report.exitCode === 2)
    expect(
      cases.some((c) => c.status === 'error'),
      what,
    ).toBe(true);
  if (report.exitCode !== 2)
    expect(
      cases.some((c) => c.status === 'error'),
      what,
    ).toBe(false);
  for (const p of properties) expect(p['exit code']).toBe(String(report.exitCode));
  return cases;
}

describe('JUnit XML of a check', () => {
  it('one case per rule on every fixture, live observations included', () => {
    for (const f of listFixtures()) {
      const j = judgeFixture(f);
      const live = f.startsWith('observations/');
      const run: CheckRun = {
        input: f,
        kind: j.mcp ? 'mcp-server-json' : 'a2a-card',
        scope: live ? 'live' : 'document',
        verdicts: verdictsOf(j),
        uptime: j.uptime ?? null,
        text: live ? undefined : readFileSync(join(FIXTURES, f), 'utf8'),
      };
      expectOneCasePerRule(run, buildReport(run), f);
    }
  });

  it.skipIf(!HAVE_CORPUS)('one case per rule on every real card and server.json', () => {
    let failures = 0;
    for (const dir of ['a2a-cards', 'a2a-compliance-examples', 'mcp-server-json']) {
      for (const f of readdirSync(join(CORPUS, dir))
        .filter((x) => x.endsWith('.json'))
        .sort()) {
        const text = readFileSync(join(CORPUS, dir, f), 'utf8');
        const run: CheckRun =
          dir === 'mcp-server-json'
            ? { input: f, kind: 'mcp-server-json', scope: 'document', verdicts: [checkServerJson({ text }, ctxOf(f))], text }
            : (() => {
                const { card, structure } = checkA2ACard({ text }, ctxOf(f));
                return { input: f, kind: 'a2a-card' as const, scope: 'document' as const, verdicts: [card, structure], text };
              })();
        failures += expectOneCasePerRule(run, buildReport(run), f).filter((c) => c.status === 'failed').length;
      }
    }
    expect(failures).toBeGreaterThan(50);
  });

  it('a failure carries its findings with line and spec; a warning passes with its findings printed; live rules are skipped on a file', () => {
    const text =
      '{\n  "name": "Recipe Agent",\n  "url": "https://agent.acme-recipes.dev/a2a",\n  "skills": [{ "id": "a", "name": "A", "description": "d", "tags": [42] }]\n}';
    const { card, structure } = checkA2ACard({ text }, ctxOf('card.json'));
    const run: CheckRun = { input: 'card.json', kind: 'a2a-card', scope: 'document', verdicts: [card, structure], text };
    const cases = expectOneCasePerRule(run, buildReport(run), 'card');
    const tags = cases.find((c) => c.name.startsWith('A2A-STRUCT-003'))!;
    expect(tags.status).toBe('failed');
    expect(tags.text).toMatch(/card\.json#\/skills\/0\/tags\/0 \(line 4, column \d+\)/);
    expect(tags.text).toMatch(/Spec: /);
    expect(cases.find((c) => c.name.startsWith('A2A-CARD-001'))).toMatchObject({
      status: 'skipped',
      message: expect.stringMatching(/needs a live GET/),
    });

    const server = JSON.stringify({
      name: 'io.github.acme/weather',
      description: 'Weather forecasts for any city',
      version: '0.0.0',
      remotes: [{ type: 'streamable-http', url: 'https://mcp.acme.dev/mcp' }],
    });
    const srun: CheckRun = {
      input: 's.json',
      kind: 'mcp-server-json',
      scope: 'document',
      verdicts: [checkServerJson({ text: server }, ctxOf('s.json'))],
      text: server,
    };
    const sreport = buildReport(srun);
    const warned = sreport.rules.filter((r) => r.outcome === 'warn').map((r) => r.id);
    expect(warned.length).toBeGreaterThan(0);
    const scases = expectOneCasePerRule(srun, sreport, 'server');
    for (const id of warned) expect(scases.find((c) => c.name.startsWith(id))!.out).toMatch(new RegExp(`WARN ${id} `));
  });

  it('--rule: the selected rule that cannot run is an error (exit 2); the others are skipped as excluded', () => {
    const text = readFileSync(join(FIXTURES, 'a2a', 'good-0.3.json'), 'utf8');
    const { card, structure } = checkA2ACard({ text }, ctxOf('good.json'));
    const run: CheckRun = {
      input: 'good.json',
      kind: 'a2a-card',
      scope: 'document',
      verdicts: [card, structure],
      text,
      selectedRule: 'A2A-CARD-001',
    };
    const report = buildReport(run);
    expect(report.exitCode).toBe(2);
    const cases = expectOneCasePerRule(run, report, 'selected');
    expect(cases.filter((c) => c.status === 'error').map((c) => c.name.split(' ')[0])).toEqual(['A2A-CARD-001']);
    expect(cases.filter((c) => c.status === 'skipped').every((c) => /^excluded/.test(c.message ?? ''))).toBe(true);
  });

  it('escapes markup and drops what XML cannot carry', () => {
    const nasty = 'a <b> & "c" \u0001 \ud800 ]]> --';
    const xml = junitXml(nasty, [
      {
        name: nasty,
        properties: [[nasty, nasty]],
        cases: [{ classname: nasty, name: nasty, status: 'failed', message: `${nasty}\nsecond line`, details: nasty, output: nasty }],
      },
    ]);
    const { cases, suites, properties } = parse(xml);
    expect(suites[0]!.attributes!.name).toBe('a <b> & "c" \ufffd \ufffd ]]> --');
    expect(properties[0]).toEqual({ 'a <b> & "c" \ufffd \ufffd ]]> --': 'a <b> & "c" \ufffd \ufffd ]]> --' });
    expect(cases[0]).toMatchObject({
      status: 'failed',
      message: 'a <b> & "c" \ufffd \ufffd ]]> -- second line',
      text: 'a <b> & "c" \ufffd \ufffd ]]> --',
      out: 'a <b> & "c" \ufffd \ufffd ]]> --',
    });
  });
});

describe('JUnit XML of Agent Plugins packages', () => {
  it('one suite per package, one case per rule, failures and errors where the reports say', () => {
    for (const group of readdirSync(PLUGIN_FIXTURES).sort()) {
      const set = checkPluginDirectory(join(PLUGIN_FIXTURES, group), { rule: null, recursive: true });
      if (!set.recursive) throw new Error('expected a set');
      const { cases, suites } = parse(renderPluginJUnit(set.report));
      const packages = set.report.packages;
      expect(suites.length).toBe(packages.length + (set.report.note ? 1 : 0));
      const expected = packages.flatMap((p) =>
        p.report.rules.map((r) => [
          r.id,
          r.outcome === 'fail'
            ? 'failed'
            : r.outcome === 'pass'
              ? 'passed'
              : r.outcome === 'unable-to-complete'
                ? 'error'
                : 'skipped-or-error',
        ]),
      );
      const got = cases.slice(0, expected.length).map((c) => [c.name.split(' ')[0], c.status]);
      expected.forEach(([id, st], i) => {
        expect(got[i]![0]).toBe(id);
        if (st === 'skipped-or-error') expect(['skipped', 'error']).toContain(got[i]![1]);
        else expect(got[i]![1], `${group} ${id}`).toBe(st);
      });
      expect(cases.some((c) => c.status === 'error')).toBe(set.report.exitCode === 2 || packages.some((p) => p.report.exitCode === 2));
    }
  });
});

describe('JUnit XML of an inspect', () => {
  const AGENT = 'https://agent.example.org';
  const get = (path: string, status: number | null, body: string): InspectExchange => ({
    step: 'a2a.card',
    method: 'GET',
    url: `${AGENT}${path}`,
    requestHeaders: { 'user-agent': 'VeronikAI-inspect/test', accept: 'application/json' },
    status,
    headers: status === null ? {} : { 'content-type': 'application/json' },
    body,
    bodyTruncated: false,
    errorClass: status === null ? 'refused' : null,
    errorMessage: status === null ? 'connect ECONNREFUSED' : null,
    durationMs: 3,
  });
  const inspect = (exchanges: InspectExchange[]) =>
    buildInspectReport({
      input: `${AGENT}/`,
      protocol: 'a2a',
      inspected: ['a2a'],
      exchanges,
      credentialsSent: false,
      requests: exchanges.length,
      requestBudget: 40,
      timeLimitMs: 60_000,
      timedOut: false,
      budgetExhausted: false,
      startedAt: '2026-12-01T20:04:28.000Z',
      durationMs: 40,
      userAgent: 'VeronikAI-inspect/test',
    });

  it.skipIf(!HAVE_CORPUS)('one case per rule judged on every real card; failures where the report fails', () => {
    for (const f of readdirSync(join(CORPUS, 'a2a-cards'))
      .filter((x) => x.endsWith('.json'))
      .sort()) {
      const r = inspect([get('/.well-known/agent-card.json', 200, readFileSync(join(CORPUS, 'a2a-cards', f), 'utf8'))]);
      const { cases, properties } = parse(renderInspectJUnit(r));
      const ids = cases.map((c) => c.name.split(' ')[0]);
      expect(new Set(ids).size, f).toBe(ids.length);
      for (const id of new Set(r.findings.map((x) => x.ruleId))) expect(ids, f).toContain(id);
      const failing = new Set(r.findings.filter((x) => x.severity === 'fail').map((x) => x.ruleId));
      expect(
        cases
          .filter((c) => c.status === 'failed')
          .map((c) => c.name.split(' ')[0])
          .sort(),
        f,
      ).toEqual([...failing].sort());
      expect(properties[0]!['exit code']).toBe(String(r.exitCode));
    }
  });

  it('an inspect that could not complete is an error', () => {
    const r = inspect([get('/.well-known/agent-card.json', null, ''), get('/.well-known/agent.json', null, '')]);
    expect(r.exitCode).toBe(2);
    const { cases } = parse(renderInspectJUnit(r));
    expect(cases.filter((c) => c.status === 'error').map((c) => c.name)).toEqual(['inspect completed']);
  });
});
