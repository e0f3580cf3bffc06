-- v_agent_uptime__v1: per agent, uptime = up / (up + down) and the latency (p50, p95,
-- in ms, of the checks that were up) over the last 24 hours (from checks) and over the
-- last 7, 30 and 90 UTC days including today (from agent_daily_history, whose t-digest
-- states merge into one percentile for the whole window). A rate or latency is NULL
-- when its window has nothing to measure. Agents appear once agent_daily_history has
-- a row for them in the last 90 days. Uptime is judged by a checker version too: the view
-- shows the current one (v_checker_current__v1).
CREATE VIEW IF NOT EXISTS v_agent_uptime__v1 AS
WITH toDate(now64(3, 'UTC'), 'UTC') AS today_utc
SELECT
    h.agent_key AS agent_key,
    h.agent_id AS agent_id,
    h.protocol AS protocol,
    d.up_24h / nullIf(d.judged_24h, 0) AS uptime_24h,
    toUInt32(coalesce(d.checks_24h, 0)) AS checks_24h,
    if(isFinite(d.p50_24h), d.p50_24h, NULL) AS latency_p50_24h,
    if(isFinite(d.p95_24h), d.p95_24h, NULL) AS latency_p95_24h,
    h.up_7d / nullIf(h.judged_7d, 0) AS uptime_7d,
    toUInt32(h.checks_7d) AS checks_7d,
    if(isFinite(h.p50_7d), h.p50_7d, NULL) AS latency_p50_7d,
    if(isFinite(h.p95_7d), h.p95_7d, NULL) AS latency_p95_7d,
    h.up_30d / nullIf(h.judged_30d, 0) AS uptime_30d,
    toUInt32(h.checks_30d) AS checks_30d,
    if(isFinite(h.p50_30d), h.p50_30d, NULL) AS latency_p50_30d,
    if(isFinite(h.p95_30d), h.p95_30d, NULL) AS latency_p95_30d,
    h.up_90d / nullIf(h.judged_90d, 0) AS uptime_90d,
    toUInt32(h.checks_90d) AS checks_90d,
    if(isFinite(h.p50_90d), h.p50_90d, NULL) AS latency_p50_90d,
    if(isFinite(h.p95_90d), h.p95_90d, NULL) AS latency_p95_90d,
    h.last_day AS last_day
FROM (
    SELECT
        agent_key,
        any(agent_id) AS agent_id,
        any(protocol) AS protocol,
        sumIf(up, day > today_utc - 7) AS up_7d,
        sumIf(up + down, day > today_utc - 7) AS judged_7d,
        sumIf(checks, day > today_utc - 7) AS checks_7d,
        quantileTDigestMergeIf(0.5)(latency_digest, day > today_utc - 7) AS p50_7d,
        quantileTDigestMergeIf(0.95)(latency_digest, day > today_utc - 7) AS p95_7d,
        sumIf(up, day > today_utc - 30) AS up_30d,
        sumIf(up + down, day > today_utc - 30) AS judged_30d,
        sumIf(checks, day > today_utc - 30) AS checks_30d,
        quantileTDigestMergeIf(0.5)(latency_digest, day > today_utc - 30) AS p50_30d,
        quantileTDigestMergeIf(0.95)(latency_digest, day > today_utc - 30) AS p95_30d,
        sum(up) AS up_90d,
        sum(up + down) AS judged_90d,
        sum(checks) AS checks_90d,
        quantileTDigestMerge(0.5)(latency_digest) AS p50_90d,
        quantileTDigestMerge(0.95)(latency_digest) AS p95_90d,
        max(day) AS last_day
    FROM agent_daily_history FINAL
    WHERE day > today_utc - 90 AND checker_version = (SELECT checker_version FROM v_checker_current__v1)
    GROUP BY agent_key
) AS h
LEFT JOIN (
    SELECT
        agent_key,
        countIf(uptime = 'up') AS up_24h,
        countIf(uptime IN ('up', 'down')) AS judged_24h,
        count() AS checks_24h,
        quantileIf(0.5)(latency_ms, uptime = 'up') AS p50_24h,
        quantileIf(0.95)(latency_ms, uptime = 'up') AS p95_24h
    FROM checks FINAL
    WHERE observed_at > now64(3, 'UTC') - INTERVAL 24 HOUR AND checker_version = (SELECT checker_version FROM v_checker_current__v1)
    GROUP BY agent_key
) AS d ON d.agent_key = h.agent_key
SETTINGS join_use_nulls = 1;
