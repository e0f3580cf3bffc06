import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { censusReportFrom } from '../../src/runtime/usecases/report.js';
import { buildCensusReport, renderCensusHtml, renderCensusMarkdown, type CensusReport } from '../../src/stats/census-report.js';
import { wilson } from '../../src/stats/wilson.js';
import { withWarehouse, type TestWarehouse } from '../helpers/warehouse.js';
import { CENSUS_DAY, fillCensus } from './census-fixture.js';

// The census report on a warehouse built to give known rates (see census-fixture.ts): counts over
// every card of the day, estimates from the sample only, and the source coverage and overlap.

describe('census report', () => {
  let t: TestWarehouse;
  let r: CensusReport;
  beforeAll(async () => {
    t = await withWarehouse('census');
    await fillCensus(t.wh);
    r = await censusReportFrom(t.wh, { day: CENSUS_DAY });
  });
  afterAll(() => t?.close());

  it('counts every card of the day and estimates only from the sample', () => {
    expect(r.checkerVersion).toBe('1.0.0');
    expect(r.totals).toMatchObject({ cards: 55, valid: 15 + 2 + 6, invalid: 15 + 8 + 4, noClaim: 5, inSample: 45 });
    const byRoute = Object.fromEntries(r.byRoute.map((g) => [g.key, g]));
    expect(byRoute.declared).toMatchObject({ cards: 30, valid: 15, invalid: 15, sampleInvalid: wilson(5, 20) });
    expect(byRoute.declared!.sampleInvalid.share).toBe(0.25);
    expect(byRoute.inferred).toMatchObject({ cards: 10, invalid: 8, sampleInvalid: wilson(8, 10) });
    expect(byRoute.conflict).toMatchObject({ cards: 10, invalid: 4, sampleInvalid: wilson(4, 10) });
    const byVersion = Object.fromEntries(r.byVersion.map((g) => [g.key, g]));
    expect(byVersion['0.3.0']).toMatchObject({ cards: 40, invalid: 23, sampleInvalid: wilson(13, 30) });
    expect(byVersion['1.0.1']).toMatchObject({ cards: 10, sampleInvalid: wilson(4, 10) });
    expect(byVersion['0.2.5']).toMatchObject({ cards: 0, sampleInvalid: { share: null } });
  });

  it('reports tolerant_valid, the alternative-version transitions and the three defects', () => {
    expect(r.tolerant).toMatchObject({ strictInvalid: 27, validWhenTolerant: 4, sampleShare: wilson(4, 40) });
    expect(r.alternative.graded).toBe(20);
    expect(r.alternative.changed).toBe(7);
    expect(r.alternative.sampleChanged).toEqual(wilson(7, 20));
    expect(r.alternative.rows).toEqual([
      { assigned: '0.3.0', assignedValid: true, alternative: '1.0.1', alternativeValid: false, cards: 2 },
      { assigned: '0.3.0', assignedValid: false, alternative: '1.0.1', alternativeValid: false, cards: 8 },
      { assigned: '1.0.1', assignedValid: true, alternative: '0.3.0', alternativeValid: true, cards: 3 },
      { assigned: '1.0.1', assignedValid: true, alternative: '0.3.0', alternativeValid: false, cards: 3 },
      { assigned: '1.0.1', assignedValid: false, alternative: '0.3.0', alternativeValid: true, cards: 2 },
      { assigned: '1.0.1', assignedValid: false, alternative: '0.3.0', alternativeValid: false, cards: 2 },
    ]);
    expect(Object.fromEntries(r.defects.map((d) => [d.id, [d.cards, d.sampleShare.successes, d.sampleShare.trials]]))).toEqual({
      'protocolVersion-type': [2, 2, 40],
      'tags-item-type': [1, 1, 40],
      'protocolVersion-missing-inferred': [8, 8, 40],
    });
  });

  it("reports per-source coverage, the overlap matrix and each source's sampled shares up and passing", () => {
    expect(r.sources.coverage).toEqual([
      { source: 'a', agents: 5, onlyThisSource: 3 },
      { source: 'b', agents: 3, onlyThisSource: 1 },
      { source: 'c', agents: 1, onlyThisSource: 1 },
    ]);
    expect(r.sources.overlap).toEqual({
      sources: ['a', 'b', 'c'],
      matrix: [
        [5, 2, 0],
        [2, 3, 0],
        [0, 0, 1],
      ],
    });
    const a = r.sources.outcomes.find((o) => o.source === 'a')!;
    expect(a).toMatchObject({ checked: 5, up: 3, down: 2, pass: 3, fail: 2, sampleUp: wilson(3, 5), samplePass: wilson(3, 5) });
    const c = r.sources.outcomes.find((o) => o.source === 'c')!;
    expect(c).toMatchObject({ checked: 1, down: 1, sampleUp: { share: null, trials: 0 } });
  });

  it('renders markdown and html with counts labelled as counts', () => {
    const md = renderCensusMarkdown(r);
    expect(md).toContain('| declared | 30 | 15 | 15 | 25.0% [');
    expect(md).toMatch(/cards \(count\)/);
    expect(md).toMatch(/sample estimate/);
    const html = renderCensusHtml(
      buildCensusReport({
        day: '2026-01-01',
        checkerVersion: '<x>',
        cards: [],
        sourceSets: [{ sources: ['<s>'], agents: 1 }],
        outcomes: [],
      }),
    );
    expect(html).toContain('&#60;s&#62;');
    expect(html).not.toContain('<s>');
  });
});
