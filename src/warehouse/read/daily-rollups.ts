import { VIEWS, type DateTimeText } from '../rows.js';
import type { ReadOnlyWarehouse } from '../warehouse.js';

/** A v_daily_rollups__v2 row as the API names its fields. */
export interface DailyRollupApiRow {
  day: string;
  protocol: string;
  source: string;
  checks: number;
  up: number;
  down: number;
  unknown: number;
  skipped: number;
  pass: number;
  fail: number;
  unknownVerdict: number;
  na: number;
  uptime: number | null;
  passRate: number | null;
  sampleChecks: number;
  sampleUp: number;
  sampleDown: number;
  samplePass: number;
  sampleFail: number;
  sampleUptime: number | null;
  sampleUptimeLow: number | null;
  sampleUptimeHigh: number | null;
  samplePassRate: number | null;
  samplePassRateLow: number | null;
  samplePassRateHigh: number | null;
  computedAt: DateTimeText | null;
}

/** Daily rollups of a checker version (hidden agents are left out when a day is rolled up). */
export async function dailyRollups(
  wh: ReadOnlyWarehouse,
  checkerVersion: string,
  days: number,
  protocol: string | null,
): Promise<DailyRollupApiRow[]> {
  return wh.query<DailyRollupApiRow>(
    `SELECT day, protocol, source, checks, up, down, unknown, skipped, pass, fail,
            unknown_verdict AS unknownVerdict, na, uptime, pass_rate AS passRate,
            sample_checks AS sampleChecks, sample_up AS sampleUp, sample_down AS sampleDown,
            sample_pass AS samplePass, sample_fail AS sampleFail,
            sample_uptime AS sampleUptime, sample_uptime_low AS sampleUptimeLow, sample_uptime_high AS sampleUptimeHigh,
            sample_pass_rate AS samplePassRate, sample_pass_rate_low AS samplePassRateLow, sample_pass_rate_high AS samplePassRateHigh,
            computed_at AS computedAt
     FROM ${VIEWS.dailyRollups}
     WHERE checker_version = {cv:String}
       AND day > toDate(now64(3, 'UTC'), 'UTC') - {days:UInt32}
       AND ({protocol:String} = '' OR protocol = {protocol:String})
     ORDER BY day DESC, protocol, source`,
    { cv: checkerVersion, days, protocol: protocol ?? '' },
  );
}
