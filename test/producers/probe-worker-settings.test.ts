/** The probe worker's concurrency is a setting (VERONIKAI_PROBE_CONCURRENCY), not a small constant. */
import { describe, expect, it } from 'vitest';
import { loadConfig, UsageError } from '../../src/config.js';
import { PROBE_WORKER_CONCURRENCY } from '../../src/producers/probe-worker.js';
import { POLITENESS } from '../../src/http/politeness/constants.js';

describe('probe worker concurrency', () => {
  it('defaults to enough held probes to keep many sites at their limit, and is read from the environment', () => {
    expect(PROBE_WORKER_CONCURRENCY).toBeGreaterThanOrEqual(32 * POLITENESS.perSiteConcurrency);
    expect(loadConfig({}, {}).probeConcurrency).toBe(PROBE_WORKER_CONCURRENCY);
    expect(loadConfig({}, { VERONIKAI_PROBE_CONCURRENCY: '64' }).probeConcurrency).toBe(64);
    expect(() => loadConfig({}, { VERONIKAI_PROBE_CONCURRENCY: '0' })).toThrow(UsageError);
    expect(() => loadConfig({}, { VERONIKAI_PROBE_CONCURRENCY: 'many' })).toThrow(/VERONIKAI_PROBE_CONCURRENCY/);
  });
});
