import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { GOLDEN_SUMMARY, summariseCorpus, type CorpusSummary } from './goldens.js';
import { CORPUS_ABSENT_NOTE, HAVE_CORPUS, readJson } from './helpers.js';

/**
 * A golden run over the shared corpus of real documents (read in place from ../shared/corpus),
 * pinned in golden/corpus-summary.json with the checker version and a fingerprint of the
 * corpus (what it counts: goldens.ts). This test only compares; `npm run goldens` writes the
 * file, and refuses a changed summary on an unchanged corpus while CHECKER_VERSION is unchanged.
 */

describe.skipIf(!HAVE_CORPUS)('golden run over the shared corpus', () => {
  const current = HAVE_CORPUS ? summariseCorpus() : null;

  it('matches golden/corpus-summary.json', () => {
    const golden = existsSync(GOLDEN_SUMMARY) ? readJson<CorpusSummary>(GOLDEN_SUMMARY) : null;
    expect(golden, 'golden/corpus-summary.json exists (`npm run goldens` creates it)').not.toBeNull();
    expect(current!.checker).toBe(golden!.checker);
    if (current!.corpusFingerprint !== golden!.corpusFingerprint) {
      throw new Error(
        'the shared corpus changed since golden/corpus-summary.json was written: regenerate it with `npm run goldens` and review the new counts',
      );
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
