import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RULES, CHECKER_VERSION, SUITES, type Verdict } from '../../src/conformance/index.js';
import { FIXTURES, GOLDEN_DIR, judgeFixture, listFixtures, readJson, verdictsOf, type Judged } from './helpers.js';

/**
 * The fixture corpus: every catalogue rule has a document on which it passes and one on which
 * it fails (rules.json), and the verdicts of every fixture are pinned in golden/verdicts.json
 * together with the checker version. Regenerate with
 *   UPDATE_GOLDEN=1 npx vitest run test/conformance
 * which refuses to overwrite a changed verdict while CHECKER_VERSION is unchanged: a change
 * in behaviour must come with a version bump (src/conformance/version.ts).
 *
 * The one exception, set knowingly by the maintainer:
 *   UPDATE_GOLDEN=1 ALLOW_SAME_VERSION=1 npx vitest run test/conformance
 * overwrites changed verdicts under the same CHECKER_VERSION. It is only for a checker version
 * that has never been released (no signed verdict carrying it has left the project), so no
 * published verdict can disagree with the new golden file. It was used once, for
 * VeronikAI/0.1+attestations.1 before its first release, to take in the review fixes (capped
 * rules flagged, 403 judged like 401, HTML first, signed scope and not-run lines, …). Once a
 * version is released, bump it instead. The changed fixtures are printed either way.
 */

interface RulesFile {
  rules: Record<string, { pass: string[]; fail: string[] }>;
}

interface GoldenFile {
  checker: string;
  suites: typeof SUITES;
  verdicts: Record<string, Judged>;
}

const GOLDEN = join(GOLDEN_DIR, 'verdicts.json');
const rulesFile = readJson<RulesFile>(join(FIXTURES, 'rules.json'));
const fixtures = listFixtures();
const judged = new Map(fixtures.map((f) => [f, judgeFixture(f)]));

function ruleFindings(vs: Verdict[], id: string) {
  return vs.flatMap((v) => v.findings).filter((f) => f.ruleId === id);
}

describe('rule fixtures', () => {
  it('every catalogue rule has a passing and a failing fixture, and rules.json names no unknown rule', () => {
    const ids = RULES.map((r) => r.id).sort();
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
        expect(vs.some((v) => v.rulesEvaluated.includes(rule.id)), `${rule.id} evaluated on ${f}`).toBe(true);
      });
    }
  }
});

describe('golden verdicts', () => {
  const current: Record<string, Judged> = Object.fromEntries([...judged.entries()]);

  it('match golden/verdicts.json, which records the checker version', () => {
    const golden = existsSync(GOLDEN) ? readJson<GoldenFile>(GOLDEN) : null;
    if (process.env.UPDATE_GOLDEN) {
      if (golden && golden.checker === CHECKER_VERSION) {
        const changed = Object.keys(golden.verdicts).filter(
          (k) => k in current && JSON.stringify(golden.verdicts[k]) !== JSON.stringify(current[k]),
        );
        if (changed.length > 0 && process.env.ALLOW_SAME_VERSION) {
          console.warn(`ALLOW_SAME_VERSION: ${changed.length} fixtures changed under unchanged ${CHECKER_VERSION} (allowed only before its first release): ${changed.join(', ')}`);
        } else if (changed.length > 0) {
          throw new Error(
            `behaviour changed for ${changed.length} fixtures (${changed.slice(0, 5).join(', ')}) but CHECKER_VERSION is still ${CHECKER_VERSION}: bump it in src/conformance/version.ts, then regenerate`,
          );
        }
      }
      const out: GoldenFile = { checker: CHECKER_VERSION, suites: SUITES, verdicts: current };
      writeFileSync(GOLDEN, JSON.stringify(out, null, 1) + '\n');
      return;
    }
    expect(golden, 'golden/verdicts.json exists (UPDATE_GOLDEN=1 creates it)').not.toBeNull();
    expect(golden!.checker, 'CHECKER_VERSION differs from the golden file: regenerate with UPDATE_GOLDEN=1').toBe(CHECKER_VERSION);
    expect(golden!.suites).toEqual(SUITES);
    expect(Object.keys(current).sort()).toEqual(Object.keys(golden!.verdicts).sort());
    for (const k of Object.keys(current)) {
      expect(current[k], `verdicts of ${k} changed: bump CHECKER_VERSION and regenerate with UPDATE_GOLDEN=1`).toEqual(golden!.verdicts[k]);
    }
  });
});
