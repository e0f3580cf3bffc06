import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CHECKER_VERSION, checkA2ACard, checkServerJson } from '../../src/conformance/index.js';
import { CORPUS, CORPUS_ABSENT_NOTE, GOLDEN_DIR, HAVE_CORPUS, OBSERVED_AT, readJson } from './helpers.js';

/**
 * A golden run over the shared corpus of real documents (read in place from ../shared/corpus):
 * counts by attribution route and validity, the §4.2 alternative-version table, the card suite
 * and the MCP quality rules. Stored in golden/corpus-summary.json with the checker version and a
 * fingerprint of the corpus; regenerate with UPDATE_GOLDEN=1 (refused while the checker version
 * and the corpus are both unchanged but the summary is not, unless ALLOW_SAME_VERSION=1 is set
 * knowingly for a checker version that has never been released: see fixtures.test.ts).
 */

const SUMMARY = join(GOLDEN_DIR, 'corpus-summary.json');
const A2A_DIRS = ['a2a-cards', 'a2a-compliance-examples'];

interface Row { n: number; valid: number; invalid: number }

function files(dir: string): string[] {
  return readdirSync(join(CORPUS, dir)).filter((f) => f.endsWith('.json')).sort().map((f) => join(dir, f));
}

function summarise() {
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
    for (const rel of files(dir)) {
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
  for (const rel of files('mcp-server-json')) {
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

describe.skipIf(!HAVE_CORPUS)('golden run over the shared corpus', () => {
  const current = HAVE_CORPUS ? summarise() : null;

  it('matches golden/corpus-summary.json', () => {
    const golden = existsSync(SUMMARY) ? readJson<NonNullable<typeof current>>(SUMMARY) : null;
    if (process.env.UPDATE_GOLDEN) {
      if (golden && golden.checker === CHECKER_VERSION && golden.corpusFingerprint === current!.corpusFingerprint && JSON.stringify(golden) !== JSON.stringify(current) && !process.env.ALLOW_SAME_VERSION) {
        throw new Error(`the corpus summary changed on an unchanged corpus but CHECKER_VERSION is still ${CHECKER_VERSION}: bump it first`);
      }
      writeFileSync(SUMMARY, JSON.stringify(current, null, 2) + '\n');
      return;
    }
    expect(golden, 'golden/corpus-summary.json exists (UPDATE_GOLDEN=1 creates it)').not.toBeNull();
    expect(current!.checker).toBe(golden!.checker);
    if (current!.corpusFingerprint !== golden!.corpusFingerprint) {
      throw new Error('the shared corpus changed since golden/corpus-summary.json was written: regenerate it with UPDATE_GOLDEN=1 and review the new counts');
    }
    expect(current).toEqual(golden);
  });

  it('§4.2 on real cards: no document attributed 0.x by its url passes the 1.0 check', () => {
    const alt = current!.a2a.alternative;
    for (const [k, n] of Object.entries(alt)) {
      if (/^0\.[23] .* -> 1\.0 valid$/.test(k)) expect(n, k).toBe(0);
    }
  });

  it('every route and the no-claim class occur in the corpus', () => {
    expect(Object.keys(current!.a2a.byRoute).sort()).toEqual(['conflict', 'declared', 'inferred']);
    expect(current!.a2a.structural.noClaim).toBeGreaterThan(0);
  });
});

if (!HAVE_CORPUS) {
  describe('shared corpus', () => {
    it.skip(CORPUS_ABSENT_NOTE, () => {});
  });
}
