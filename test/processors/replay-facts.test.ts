import { describe, expect, it } from 'vitest';
import { factCoverage, type FactSpan } from '../../src/processors/verdicts/replay-facts.js';

/** Where the kept facts stand for the probes topic: a replay reads them only where their spans cover it without a gap. */

const span = (partition: number, first: number, last: number): FactSpan => ({ partition, first: BigInt(first), last: BigInt(last) });
const part = (partition: number, from: number, high: number) => ({ partition, from: BigInt(from), high: BigInt(high) });

describe('factCoverage', () => {
  it('covers each partition from its first offset that matters to the end of the run of touching spans that holds it', () => {
    const spans = [span(0, 0, 9), span(0, 10, 19), span(0, 15, 24), span(1, 5, 7), span(1, 0, 4)];
    expect(factCoverage(spans, [part(0, 0, 30), part(1, 0, 8)])).toEqual(
      new Map([
        [0, 25n],
        [1, 8n],
      ]),
    );
  });

  it('ignores spans before the offsets that matter, and runs after a gap', () => {
    const spans = [span(0, 0, 3), span(0, 6, 9), span(0, 10, 12), span(0, 20, 29)];
    expect(factCoverage(spans, [part(0, 7, 30)])).toEqual(new Map([[0, 13n]]));
    expect(factCoverage(spans, [part(0, 4, 30)])).toBeNull();
  });

  it('is nothing to cover on an empty partition, and null for a partition without spans', () => {
    expect(factCoverage([], [part(0, 5, 5)])).toEqual(new Map([[0, 5n]]));
    expect(factCoverage([span(0, 0, 9)], [part(0, 0, 10), part(1, 0, 3)])).toBeNull();
  });
});
