/**
 * The A2A lint over the real cards of the shared corpus (read in place from ../shared/corpus;
 * never copied): every document rule of the lint is pinned to its hit count, and the secret
 * rule finds nothing (every candidate string was reviewed by hand: a `"token": "USDC"` currency
 * field and a "Standard Bearer Authorization Header …" description are the nearest, and neither
 * is a credential). Skipped, with the reason, when the corpus is absent.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CheckList, INSPECT_SET, lintCard, type LintResult } from '../../../src/conformance/inspect/index.js';
import { isObject, parseJson } from '../../../src/core/json-util.js';
import { CORPUS, CORPUS_ABSENT_NOTE, HAVE_CORPUS } from '../helpers.js';

function lintCorpus(): { cards: number; hits: Record<string, number>; lints: LintResult[] } {
  const dir = join(CORPUS, 'a2a-cards');
  const hits: Record<string, number> = {};
  const lints: LintResult[] = [];
  let cards = 0;
  for (const f of readdirSync(dir).sort()) {
    const text = readFileSync(join(dir, f), 'utf8');
    const r = parseJson(text);
    if (!r.ok || !isObject(r.value)) continue;
    cards++;
    const checks = new CheckList('a2a', INSPECT_SET);
    lints.push(lintCard(text, r.value, f, checks));
    const flagged = new Set(checks.list.filter((c) => (c.outcome === 'fail' || c.outcome === 'warn') && c.ruleId).map((c) => c.ruleId!));
    for (const id of flagged) hits[id] = (hits[id] ?? 0) + 1;
  }
  return { cards, hits, lints };
}

describe.skipIf(!HAVE_CORPUS)('A2A lint over the real card corpus', () => {
  const run = HAVE_CORPUS ? lintCorpus() : null;

  it('lints all 102 cards; cards flagged per rule are pinned', () => {
    expect(run!.cards).toBe(102);
    expect(run!.hits).toEqual({
      'INS-A2A-002': 31, // no skill
      'INS-A2A-003': 3, // a skill without a description
      'INS-A2A-004': 50, // no defaultInputModes
      'INS-A2A-005': 50, // no defaultOutputModes
      'INS-A2A-006': 55, // public https endpoint, no securitySchemes
    });
  });

  it('finds no embedded secret in any real card (all candidates reviewed by hand)', () => {
    expect(run!.lints.reduce((n, l) => n + l.secrets.length, 0)).toBe(0);
  });
});

if (!HAVE_CORPUS) {
  describe('A2A lint over the real card corpus', () => {
    it.skip(CORPUS_ABSENT_NOTE, () => undefined);
  });
}
