import { describe, expect, it } from 'vitest';
import { formatSummary, sourcesNotRead } from '../../src/cli/format.js';
import { DISABLED_BY_CONFIGURATION, emptySummary } from '../../src/producers/sources/summary.js';

describe('command output', () => {
  it('prints a per-source summary line, with skips and their reason', () => {
    const base = {
      source: 'hf-spaces',
      mode: 'full' as const,
      pages: 3,
      details: 0,
      items: 12,
      new: 2,
      changed: 1,
      delisted: 1,
      invalid: 0,
      errors: 0,
      complete: true,
      failure: null,
      skipped: null,
      notes: [],
    };
    expect(formatSummary(base)).toBe(
      'hf-spaces (full): 3 page(s), 12 item(s): 2 new, 1 changed, 1 delisted, 0 invalid, 0 error(s), complete',
    );
    expect(formatSummary({ ...base, complete: false, skipped: 'robots: unreachable (HTTP 503)' })).toBe(
      'hf-spaces: skipped (robots: unreachable (HTTP 503))',
    );
    expect(formatSummary({ ...base, complete: false, errors: 1, failure: 'http_5xx: HTTP 502' })).toMatch(
      /INCOMPLETE: http_5xx: HTTP 502$/,
    );
  });

  it('counts as not read only the sources that failed or the gate skipped, not those turned off on purpose', () => {
    const base = emptySummary('smithery', 'full');
    const summaries = [
      { ...base, source: 'a', skipped: DISABLED_BY_CONFIGURATION },
      { ...base, source: 'b', skipped: 'terms: forbidden by the operator' },
      { ...base, source: 'c', skipped: 'robots: unreachable (HTTP 503)' },
      { ...base, source: 'd', failure: 'http_5xx: HTTP 502' },
      { ...base, source: 'e', complete: true },
    ];
    expect(sourcesNotRead(summaries).map((s) => s.source)).toEqual(['c', 'd']);
  });
});
