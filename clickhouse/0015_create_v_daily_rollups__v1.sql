-- v_daily_rollups__v1: daily_rollups deduplicated, with rates and 95 % Wilson score
-- intervals computed from the uniform random sample only:
--   uptime = up / (up + down)        (unknown and skipped checks are left out)
--   pass_rate = pass / (pass + fail) (unknown and n/a verdicts are left out)
-- Wilson bounds are NULL when the sample has no judged checks. All checker versions
-- are listed; filter on checker_version (or join v_checker_current__v1).
CREATE VIEW IF NOT EXISTS v_daily_rollups__v1 AS
WITH
    1.959963984540054 AS z,
    toFloat64(sample_up + sample_down) AS n_up,
    toFloat64(sample_pass + sample_fail) AS n_pass,
    sample_up / nullIf(n_up, 0) AS p_up,
    sample_pass / nullIf(n_pass, 0) AS p_pass
SELECT
    day, protocol, source, checker_version,
    checks, up, down, unknown, skipped,
    pass, fail, unknown_verdict, na,
    sample_checks, sample_up, sample_down, sample_unknown, sample_skipped,
    sample_pass, sample_fail, sample_unknown_verdict, sample_na,
    up / nullIf(up + down, 0) AS uptime,
    pass / nullIf(pass + fail, 0) AS pass_rate,
    p_up AS sample_uptime,
    (p_up + z * z / (2 * n_up) - z * sqrt(p_up * (1 - p_up) / n_up + z * z / (4 * n_up * n_up))) / (1 + z * z / n_up) AS sample_uptime_low,
    (p_up + z * z / (2 * n_up) + z * sqrt(p_up * (1 - p_up) / n_up + z * z / (4 * n_up * n_up))) / (1 + z * z / n_up) AS sample_uptime_high,
    p_pass AS sample_pass_rate,
    (p_pass + z * z / (2 * n_pass) - z * sqrt(p_pass * (1 - p_pass) / n_pass + z * z / (4 * n_pass * n_pass))) / (1 + z * z / n_pass) AS sample_pass_rate_low,
    (p_pass + z * z / (2 * n_pass) + z * sqrt(p_pass * (1 - p_pass) / n_pass + z * z / (4 * n_pass * n_pass))) / (1 + z * z / n_pass) AS sample_pass_rate_high,
    computed_at
FROM daily_rollups FINAL;
