import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CHECKER_VERSION, SUITES, checkA2ACard, checkServerJson } from '../../src/conformance/index.js';
import { CORPUS, GOLDEN_DIR, OBSERVED_AT, judgeFixture, listFixtures, type Judged } from './helpers.js';

/**
 * What the golden files pin, computed one way for the tests that compare (fixtures.test.ts,
 * corpus.test.ts) and for the script that writes them (update-goldens.ts, `npm run goldens`).
 */

export const GOLDEN_VERDICTS = join(GOLDEN_DIR, 'verdicts.json');
export const GOLDEN_SUMMARY = join(GOLDEN_DIR, 'corpus-summary.json');

export interface GoldenVerdicts {
  checker: string;
  suites: typeof SUITES;
  verdicts: Record<string, Judged>;
}

/** The verdicts of every fixture, in listing order. */
export function fixtureVerdicts(): GoldenVerdicts {
  return { checker: CHECKER_VERSION, suites: SUITES, verdicts: Object.fromEntries(listFixtures().map((f) => [f, judgeFixture(f)])) };
}

interface Row {
  n: number;
  valid: number;
  invalid: number;
}
export type CorpusSummary = ReturnType<typeof summariseCorpus>;

const A2A_DIRS = ['a2a-cards', 'a2a-compliance-examples'];

function corpusFiles(dir: string): string[] {
  return readdirSync(join(CORPUS, dir))
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => join(dir, f));
}

/**
 * Over the shared corpus of real documents: counts by attribution route and validity, the
 * §4.2 alternative-version table, the card suite and the MCP quality rules, with the checker
 * version and a fingerprint of the corpus.
 */
export function summariseCorpus() {
  const fp = createHash('sha256');
  const a2a = {
    documents: 0,
    structural: { valid: 0, invalid: 0, noClaim: 0 },
    byRoute: {} as Record<string, Row>,
    byFamily: {} as Record<string, Row>,
    tolerantOnlyValid: 0,
    alternative: {} as Record<string, number>,
    cardSuite: { pass: 0, fail: 0 },
  };
  for (const dir of A2A_DIRS) {
    for (const rel of corpusFiles(dir)) {
      const text = readFileSync(join(CORPUS, rel), 'utf8');
      fp.update(`${rel}\0${createHash('sha256').update(text).digest('hex')}\n`);
      const { card, structure } = checkA2ACard({ text }, { subject: rel, observedAt: OBSERVED_AT });
      a2a.documents++;
      a2a.cardSuite[card.result === 'pass' ? 'pass' : 'fail']++;
      const d = structure.a2a!;
      if (d.route === 'none') {
        a2a.structural.noClaim++;
        continue;
      }
      const bump = (m: Record<string, Row>, k: string) => {
        const r = (m[k] ??= { n: 0, valid: 0, invalid: 0 });
        r.n++;
        r[d.valid ? 'valid' : 'invalid']++;
      };
      a2a.structural[d.valid ? 'valid' : 'invalid']++;
      bump(a2a.byRoute, d.route);
      bump(a2a.byFamily, d.version!);
      if (!d.valid && d.tolerantValid) a2a.tolerantOnlyValid++;
      if (d.alternative) {
        const k = `${d.family} ${d.valid ? 'valid' : 'invalid'} -> ${d.alternative.family} ${d.alternative.valid ? 'valid' : 'invalid'}`;
        a2a.alternative[k] = (a2a.alternative[k] ?? 0) + 1;
      }
    }
  }
  const mcp = { documents: 0, pass: 0, fail: 0, rules: {} as Record<string, number> };
  for (const rel of corpusFiles('mcp-server-json')) {
    const text = readFileSync(join(CORPUS, rel), 'utf8');
    fp.update(`${rel}\0${createHash('sha256').update(text).digest('hex')}\n`);
    const v = checkServerJson({ text }, { subject: rel, observedAt: OBSERVED_AT });
    mcp.documents++;
    mcp[v.result === 'pass' ? 'pass' : 'fail']++;
    for (const id of new Set(v.findings.map((f) => f.ruleId))) mcp.rules[id] = (mcp.rules[id] ?? 0) + 1;
  }
  const sortKeys = <T>(o: Record<string, T>) => Object.fromEntries(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : 1)));
  a2a.byRoute = sortKeys(a2a.byRoute);
  a2a.byFamily = sortKeys(a2a.byFamily);
  a2a.alternative = sortKeys(a2a.alternative);
  mcp.rules = sortKeys(mcp.rules);
  return { checker: CHECKER_VERSION, corpusFingerprint: 'sha256:' + fp.digest('hex'), a2a, mcp };
}

/** The files exactly as they are written (the tests compare parsed content). */
export const formatVerdicts = (g: GoldenVerdicts): string => JSON.stringify(g, null, 1) + '\n';
export const formatSummary = (s: CorpusSummary): string => JSON.stringify(s, null, 2) + '\n';
