import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RULES, SUITES, type Verdict } from '../../src/conformance/index.js';
import { GOLDEN_VERDICTS, fixtureVerdicts, type GoldenVerdicts } from './goldens.js';
import { FIXTURES, readJson, verdictsOf } from './helpers.js';

/**
 * The fixture corpus: every catalogue rule has a document on which it passes and one on which
 * it fails (rules.json), and the verdicts of every fixture are pinned in golden/verdicts.json
 * together with the checker version. This test only compares; `npm run goldens`
 * (update-goldens.ts) writes the file, and refuses a changed verdict under an unchanged
 * CHECKER_VERSION (src/conformance/version.ts).
 */

interface RulesFile {
  rules: Record<string, { pass: string[]; fail: string[] }>;
}

const rulesFile = readJson<RulesFile>(join(FIXTURES, 'rules.json'));
const current = fixtureVerdicts();
const judged = new Map(Object.entries(current.verdicts));

function ruleFindings(vs: Verdict[], id: string) {
  return vs.flatMap((v) => v.findings).filter((f) => f.ruleId === id);
}

describe('rule fixtures', () => {
  // Plugin packages and live inspects have fixtures of their own (test/conformance/plugin, test/inspect).
  const DOCUMENT_RULES = RULES.filter((r) => r.suite !== 'agentPlugins' && r.suite !== 'inspect');

  it('every document and endpoint rule has a passing and a failing fixture, and rules.json names no unknown rule', () => {
    const ids = DOCUMENT_RULES.map((r) => r.id).sort();
    expect(Object.keys(rulesFile.rules).sort()).toEqual(ids);
    for (const id of ids) {
      expect(rulesFile.rules[id]!.pass.length, `${id} pass fixtures`).toBeGreaterThan(0);
      expect(rulesFile.rules[id]!.fail.length, `${id} fail fixtures`).toBeGreaterThan(0);
    }
  });

  for (const rule of RULES) {
    const entry = rulesFile.rules[rule.id];
    if (!entry) continue;
    for (const f of entry.fail) {
      it(`${rule.id} fails on ${f}`, () => {
        const j = judged.get(f);
        expect(j, `fixture ${f} exists`).toBeDefined();
        const vs = verdictsOf(j!);
        const hits = ruleFindings(vs, rule.id);
        expect(hits.length).toBeGreaterThan(0);
        for (const h of hits) {
          expect(h.severity).toBe(rule.severity);
          expect(h.spec.url).toMatch(/^https:\/\//);
          expect(h.message.length).toBeGreaterThan(0);
        }
        const suiteVerdict = vs.find((v) => v.suite.id === SUITES[rule.suite].id)!;
        if (rule.severity === 'fail') {
          expect(suiteVerdict.result).toBe('fail');
          expect(suiteVerdict.reasons.some((r) => r.startsWith(rule.id))).toBe(true);
        } else {
          expect(suiteVerdict.reasons.some((r) => r.startsWith(`warn: ${rule.id}`))).toBe(true);
        }
      });
    }
    for (const f of entry.pass) {
      it(`${rule.id} passes on ${f}`, () => {
        const j = judged.get(f);
        expect(j, `fixture ${f} exists`).toBeDefined();
        const vs = verdictsOf(j!);
        expect(ruleFindings(vs, rule.id)).toEqual([]);
        expect(
          vs.some((v) => v.rulesEvaluated.includes(rule.id)),
          `${rule.id} evaluated on ${f}`,
        ).toBe(true);
      });
    }
  }
});

describe('golden verdicts', () => {
  it('match golden/verdicts.json, which records the checker version', () => {
    const golden = existsSync(GOLDEN_VERDICTS) ? readJson<GoldenVerdicts>(GOLDEN_VERDICTS) : null;
    expect(golden, 'golden/verdicts.json exists (`npm run goldens` creates it)').not.toBeNull();
    expect(golden!.checker, 'CHECKER_VERSION differs from the golden file: regenerate with `npm run goldens`').toBe(current.checker);
    expect(golden!.suites).toEqual(current.suites);
    expect(Object.keys(current.verdicts).sort()).toEqual(Object.keys(golden!.verdicts).sort());
    for (const k of Object.keys(current.verdicts)) {
      expect(current.verdicts[k], `verdicts of ${k} changed: bump CHECKER_VERSION and regenerate with \`npm run goldens\``).toEqual(
        golden!.verdicts[k],
      );
    }
  });
});
