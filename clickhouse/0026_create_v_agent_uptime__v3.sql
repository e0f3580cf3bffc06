-- v_agent_uptime__v3: the columns of v_agent_uptime__v2, read from agent_status
-- (clickhouse/0022) instead of aggregating agent_daily_history and checks per query: per
-- agent under the current checker (v_checker_current__v2), uptime = up / (up + down) and
-- latency p50 / p95 (ms, of the checks that were up) over the last 24 hours and the last
-- 7, 30 and 90 UTC days including today. The windows are cut from the row's arrays by
-- today's date, so they are as exact as v2's; the day windows merge the days' t-digest
-- states, the 24 h window takes the quantile of its checks. Agents appear when they have a
-- day of history in the last 90 days. v2 stays for queries written against it.
CREATE VIEW IF NOT EXISTS v_agent_uptime__v3 AS
WITH
    toDate(now64(3, 'UTC'), 'UTC') AS today_utc,
    now64(3, 'UTC') - INTERVAL 24 HOUR AS since_24h
SELECT
    agent_key,
    agent_id,
    protocol,
    arrayCount((a, u) -> a > since_24h AND u = 'up', recent_at, recent_uptime)
        / nullIf(arrayCount((a, u) -> a > since_24h AND u IN ('up', 'down'), recent_at, recent_uptime), 0) AS uptime_24h,
    toUInt32(arrayCount(a -> a > since_24h, recent_at)) AS checks_24h,
    if(isFinite(p50_24h), p50_24h, NULL) AS latency_p50_24h,
    if(isFinite(p95_24h), p95_24h, NULL) AS latency_p95_24h,
    arraySum(arrayFilter((x, d) -> d > today_utc - 7, day_up, days)) / nullIf(arraySum(arrayFilter((x, d) -> d > today_utc - 7, day_judged, days)), 0) AS uptime_7d,
    toUInt32(arraySum(arrayFilter((x, d) -> d > today_utc - 7, day_checks, days))) AS checks_7d,
    if(isFinite(p50_7d), p50_7d, NULL) AS latency_p50_7d,
    if(isFinite(p95_7d), p95_7d, NULL) AS latency_p95_7d,
    arraySum(arrayFilter((x, d) -> d > today_utc - 30, day_up, days)) / nullIf(arraySum(arrayFilter((x, d) -> d > today_utc - 30, day_judged, days)), 0) AS uptime_30d,
    toUInt32(arraySum(arrayFilter((x, d) -> d > today_utc - 30, day_checks, days))) AS checks_30d,
    if(isFinite(p50_30d), p50_30d, NULL) AS latency_p50_30d,
    if(isFinite(p95_30d), p95_30d, NULL) AS latency_p95_30d,
    arraySum(arrayFilter((x, d) -> d > today_utc - 90, day_up, days)) / nullIf(arraySum(arrayFilter((x, d) -> d > today_utc - 90, day_judged, days)), 0) AS uptime_90d,
    toUInt32(arraySum(arrayFilter((x, d) -> d > today_utc - 90, day_checks, days))) AS checks_90d,
    if(isFinite(p50_90d), p50_90d, NULL) AS latency_p50_90d,
    if(isFinite(p95_90d), p95_90d, NULL) AS latency_p95_90d,
    arrayMax(arrayFilter(d -> d > today_utc - 90, days)) AS last_day
FROM
(
    SELECT
        *,
        arrayReduce('quantile(0.5)', arrayFilter((l, a, u) -> a > since_24h AND u = 'up', recent_latency, recent_at, recent_uptime)) AS p50_24h,
        arrayReduce('quantile(0.95)', arrayFilter((l, a, u) -> a > since_24h AND u = 'up', recent_latency, recent_at, recent_uptime)) AS p95_24h,
        arrayReduce('quantileTDigestMerge(0.5)', arrayFilter((x, d) -> d > today_utc - 7, day_latency, days)) AS p50_7d,
        arrayReduce('quantileTDigestMerge(0.95)', arrayFilter((x, d) -> d > today_utc - 7, day_latency, days)) AS p95_7d,
        arrayReduce('quantileTDigestMerge(0.5)', arrayFilter((x, d) -> d > today_utc - 30, day_latency, days)) AS p50_30d,
        arrayReduce('quantileTDigestMerge(0.95)', arrayFilter((x, d) -> d > today_utc - 30, day_latency, days)) AS p95_30d,
        arrayReduce('quantileTDigestMerge(0.5)', arrayFilter((x, d) -> d > today_utc - 90, day_latency, days)) AS p50_90d,
        arrayReduce('quantileTDigestMerge(0.95)', arrayFilter((x, d) -> d > today_utc - 90, day_latency, days)) AS p95_90d
    FROM agent_status FINAL
    WHERE checker_version = (SELECT checker_version FROM v_checker_current__v2)
      AND arrayExists(d -> d > today_utc - 90, days)
);
