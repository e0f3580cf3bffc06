-- agent_status: per agent and checker version, what its page and the agent lists show,
-- kept so a request reads one row per agent by primary key instead of aggregating
-- 90 days of history for every agent (issue 16). It holds:
--   * the latest check's uptime state and the latest verdict (from agent_latest);
--   * the agent's daily counts of the last 90 UTC days as parallel arrays (days,
--     day_checks, day_up, day_judged = up + down, day_latency = the day's t-digest
--     state), so the 7, 30 and 90 day windows are summed at read time relative to
--     today and stay exact however long ago the row was written;
--   * the checks of the 24 hours before computed_at (recent_*), so the 24 h window is
--     filtered at read time too: a later check would have rewritten the row.
-- Written by refreshAgentStatus (src/warehouse/rollups.ts), which the verdict
-- processor runs for the agents of every batch after it recomputes their
-- agent_daily_history; newest computed_at wins. v_agent_uptime__v3 reads it.
-- Small granules: it is read by key, a page of agents at a time. No TTL.
CREATE TABLE IF NOT EXISTS agent_status
(
    checker_version LowCardinality(String),
    agent_key       String,
    agent_id        String,
    protocol        LowCardinality(String),
    latest_at       Nullable(DateTime64(3, 'UTC')),
    latest_uptime   LowCardinality(String),
    latest_result   LowCardinality(String),
    days            Array(Date),
    day_checks      Array(UInt32),
    day_up          Array(UInt32),
    day_judged      Array(UInt32),
    day_latency     Array(AggregateFunction(quantileTDigest, UInt32)),
    recent_at       Array(DateTime64(3, 'UTC')),
    recent_uptime   Array(LowCardinality(String)),
    recent_latency  Array(Nullable(UInt32)),
    computed_at     DateTime64(3, 'UTC')
)
ENGINE = ReplacingMergeTree(computed_at)
ORDER BY (checker_version, agent_key)
SETTINGS index_granularity = 64
COMMENT 'Per (checker_version, agent): latest state, 90 days of daily counts and the last 24 h of checks; refreshed by the verdict processor; ReplacingMergeTree(computed_at); no TTL';

-- The agents judged before this migration, in eight pieces so memory stays bounded.
INSERT INTO agent_status
    (checker_version, agent_key, agent_id, protocol, latest_at, latest_uptime, latest_result,
     days, day_checks, day_up, day_judged, day_latency, recent_at, recent_uptime, recent_latency, computed_at)
SELECT l.checker_version, l.agent_key, l.agent_id, l.protocol, l.observed_at, l.uptime, l.result,
       h.days, h.day_checks, h.day_up, h.day_judged, h.day_latency, r.recent_at, r.recent_uptime, r.recent_latency, now64(3, 'UTC')
FROM (SELECT checker_version, agent_key, agent_id, protocol, observed_at, uptime, result FROM agent_latest FINAL WHERE cityHash64(agent_key) % 8 = 0) AS l
LEFT JOIN (
    SELECT checker_version, agent_key, groupArray(day) AS days, groupArray(checks) AS day_checks, groupArray(up) AS day_up,
           groupArray(up + down) AS day_judged, groupArray(latency_digest) AS day_latency
    FROM agent_daily_history FINAL
    WHERE cityHash64(agent_key) % 8 = 0 AND day > toDate(now64(3, 'UTC'), 'UTC') - 90
    GROUP BY checker_version, agent_key
) AS h ON h.checker_version = l.checker_version AND h.agent_key = l.agent_key
LEFT JOIN (
    SELECT checker_version, agent_key, groupArray(observed_at) AS recent_at, groupArray(uptime) AS recent_uptime, arrayMap(t -> t.1, groupArray(tuple(latency_ms))) AS recent_latency
    FROM checks FINAL
    WHERE cityHash64(agent_key) % 8 = 0 AND observed_at > now64(3, 'UTC') - INTERVAL 24 HOUR
    GROUP BY checker_version, agent_key
) AS r ON r.checker_version = l.checker_version AND r.agent_key = l.agent_key;
INSERT INTO agent_status
    (checker_version, agent_key, agent_id, protocol, latest_at, latest_uptime, latest_result,
     days, day_checks, day_up, day_judged, day_latency, recent_at, recent_uptime, recent_latency, computed_at)
SELECT l.checker_version, l.agent_key, l.agent_id, l.protocol, l.observed_at, l.uptime, l.result,
       h.days, h.day_checks, h.day_up, h.day_judged, h.day_latency, r.recent_at, r.recent_uptime, r.recent_latency, now64(3, 'UTC')
FROM (SELECT checker_version, agent_key, agent_id, protocol, observed_at, uptime, result FROM agent_latest FINAL WHERE cityHash64(agent_key) % 8 = 1) AS l
LEFT JOIN (
    SELECT checker_version, agent_key, groupArray(day) AS days, groupArray(checks) AS day_checks, groupArray(up) AS day_up,
           groupArray(up + down) AS day_judged, groupArray(latency_digest) AS day_latency
    FROM agent_daily_history FINAL
    WHERE cityHash64(agent_key) % 8 = 1 AND day > toDate(now64(3, 'UTC'), 'UTC') - 90
    GROUP BY checker_version, agent_key
) AS h ON h.checker_version = l.checker_version AND h.agent_key = l.agent_key
LEFT JOIN (
    SELECT checker_version, agent_key, groupArray(observed_at) AS recent_at, groupArray(uptime) AS recent_uptime, arrayMap(t -> t.1, groupArray(tuple(latency_ms))) AS recent_latency
    FROM checks FINAL
    WHERE cityHash64(agent_key) % 8 = 1 AND observed_at > now64(3, 'UTC') - INTERVAL 24 HOUR
    GROUP BY checker_version, agent_key
) AS r ON r.checker_version = l.checker_version AND r.agent_key = l.agent_key;
INSERT INTO agent_status
    (checker_version, agent_key, agent_id, protocol, latest_at, latest_uptime, latest_result,
     days, day_checks, day_up, day_judged, day_latency, recent_at, recent_uptime, recent_latency, computed_at)
SELECT l.checker_version, l.agent_key, l.agent_id, l.protocol, l.observed_at, l.uptime, l.result,
       h.days, h.day_checks, h.day_up, h.day_judged, h.day_latency, r.recent_at, r.recent_uptime, r.recent_latency, now64(3, 'UTC')
FROM (SELECT checker_version, agent_key, agent_id, protocol, observed_at, uptime, result FROM agent_latest FINAL WHERE cityHash64(agent_key) % 8 = 2) AS l
LEFT JOIN (
    SELECT checker_version, agent_key, groupArray(day) AS days, groupArray(checks) AS day_checks, groupArray(up) AS day_up,
           groupArray(up + down) AS day_judged, groupArray(latency_digest) AS day_latency
    FROM agent_daily_history FINAL
    WHERE cityHash64(agent_key) % 8 = 2 AND day > toDate(now64(3, 'UTC'), 'UTC') - 90
    GROUP BY checker_version, agent_key
) AS h ON h.checker_version = l.checker_version AND h.agent_key = l.agent_key
LEFT JOIN (
    SELECT checker_version, agent_key, groupArray(observed_at) AS recent_at, groupArray(uptime) AS recent_uptime, arrayMap(t -> t.1, groupArray(tuple(latency_ms))) AS recent_latency
    FROM checks FINAL
    WHERE cityHash64(agent_key) % 8 = 2 AND observed_at > now64(3, 'UTC') - INTERVAL 24 HOUR
    GROUP BY checker_version, agent_key
) AS r ON r.checker_version = l.checker_version AND r.agent_key = l.agent_key;
INSERT INTO agent_status
    (checker_version, agent_key, agent_id, protocol, latest_at, latest_uptime, latest_result,
     days, day_checks, day_up, day_judged, day_latency, recent_at, recent_uptime, recent_latency, computed_at)
SELECT l.checker_version, l.agent_key, l.agent_id, l.protocol, l.observed_at, l.uptime, l.result,
       h.days, h.day_checks, h.day_up, h.day_judged, h.day_latency, r.recent_at, r.recent_uptime, r.recent_latency, now64(3, 'UTC')
FROM (SELECT checker_version, agent_key, agent_id, protocol, observed_at, uptime, result FROM agent_latest FINAL WHERE cityHash64(agent_key) % 8 = 3) AS l
LEFT JOIN (
    SELECT checker_version, agent_key, groupArray(day) AS days, groupArray(checks) AS day_checks, groupArray(up) AS day_up,
           groupArray(up + down) AS day_judged, groupArray(latency_digest) AS day_latency
    FROM agent_daily_history FINAL
    WHERE cityHash64(agent_key) % 8 = 3 AND day > toDate(now64(3, 'UTC'), 'UTC') - 90
    GROUP BY checker_version, agent_key
) AS h ON h.checker_version = l.checker_version AND h.agent_key = l.agent_key
LEFT JOIN (
    SELECT checker_version, agent_key, groupArray(observed_at) AS recent_at, groupArray(uptime) AS recent_uptime, arrayMap(t -> t.1, groupArray(tuple(latency_ms))) AS recent_latency
    FROM checks FINAL
    WHERE cityHash64(agent_key) % 8 = 3 AND observed_at > now64(3, 'UTC') - INTERVAL 24 HOUR
    GROUP BY checker_version, agent_key
) AS r ON r.checker_version = l.checker_version AND r.agent_key = l.agent_key;
INSERT INTO agent_status
    (checker_version, agent_key, agent_id, protocol, latest_at, latest_uptime, latest_result,
     days, day_checks, day_up, day_judged, day_latency, recent_at, recent_uptime, recent_latency, computed_at)
SELECT l.checker_version, l.agent_key, l.agent_id, l.protocol, l.observed_at, l.uptime, l.result,
       h.days, h.day_checks, h.day_up, h.day_judged, h.day_latency, r.recent_at, r.recent_uptime, r.recent_latency, now64(3, 'UTC')
FROM (SELECT checker_version, agent_key, agent_id, protocol, observed_at, uptime, result FROM agent_latest FINAL WHERE cityHash64(agent_key) % 8 = 4) AS l
LEFT JOIN (
    SELECT checker_version, agent_key, groupArray(day) AS days, groupArray(checks) AS day_checks, groupArray(up) AS day_up,
           groupArray(up + down) AS day_judged, groupArray(latency_digest) AS day_latency
    FROM agent_daily_history FINAL
    WHERE cityHash64(agent_key) % 8 = 4 AND day > toDate(now64(3, 'UTC'), 'UTC') - 90
    GROUP BY checker_version, agent_key
) AS h ON h.checker_version = l.checker_version AND h.agent_key = l.agent_key
LEFT JOIN (
    SELECT checker_version, agent_key, groupArray(observed_at) AS recent_at, groupArray(uptime) AS recent_uptime, arrayMap(t -> t.1, groupArray(tuple(latency_ms))) AS recent_latency
    FROM checks FINAL
    WHERE cityHash64(agent_key) % 8 = 4 AND observed_at > now64(3, 'UTC') - INTERVAL 24 HOUR
    GROUP BY checker_version, agent_key
) AS r ON r.checker_version = l.checker_version AND r.agent_key = l.agent_key;
INSERT INTO agent_status
    (checker_version, agent_key, agent_id, protocol, latest_at, latest_uptime, latest_result,
     days, day_checks, day_up, day_judged, day_latency, recent_at, recent_uptime, recent_latency, computed_at)
SELECT l.checker_version, l.agent_key, l.agent_id, l.protocol, l.observed_at, l.uptime, l.result,
       h.days, h.day_checks, h.day_up, h.day_judged, h.day_latency, r.recent_at, r.recent_uptime, r.recent_latency, now64(3, 'UTC')
FROM (SELECT checker_version, agent_key, agent_id, protocol, observed_at, uptime, result FROM agent_latest FINAL WHERE cityHash64(agent_key) % 8 = 5) AS l
LEFT JOIN (
    SELECT checker_version, agent_key, groupArray(day) AS days, groupArray(checks) AS day_checks, groupArray(up) AS day_up,
           groupArray(up + down) AS day_judged, groupArray(latency_digest) AS day_latency
    FROM agent_daily_history FINAL
    WHERE cityHash64(agent_key) % 8 = 5 AND day > toDate(now64(3, 'UTC'), 'UTC') - 90
    GROUP BY checker_version, agent_key
) AS h ON h.checker_version = l.checker_version AND h.agent_key = l.agent_key
LEFT JOIN (
    SELECT checker_version, agent_key, groupArray(observed_at) AS recent_at, groupArray(uptime) AS recent_uptime, arrayMap(t -> t.1, groupArray(tuple(latency_ms))) AS recent_latency
    FROM checks FINAL
    WHERE cityHash64(agent_key) % 8 = 5 AND observed_at > now64(3, 'UTC') - INTERVAL 24 HOUR
    GROUP BY checker_version, agent_key
) AS r ON r.checker_version = l.checker_version AND r.agent_key = l.agent_key;
INSERT INTO agent_status
    (checker_version, agent_key, agent_id, protocol, latest_at, latest_uptime, latest_result,
     days, day_checks, day_up, day_judged, day_latency, recent_at, recent_uptime, recent_latency, computed_at)
SELECT l.checker_version, l.agent_key, l.agent_id, l.protocol, l.observed_at, l.uptime, l.result,
       h.days, h.day_checks, h.day_up, h.day_judged, h.day_latency, r.recent_at, r.recent_uptime, r.recent_latency, now64(3, 'UTC')
FROM (SELECT checker_version, agent_key, agent_id, protocol, observed_at, uptime, result FROM agent_latest FINAL WHERE cityHash64(agent_key) % 8 = 6) AS l
LEFT JOIN (
    SELECT checker_version, agent_key, groupArray(day) AS days, groupArray(checks) AS day_checks, groupArray(up) AS day_up,
           groupArray(up + down) AS day_judged, groupArray(latency_digest) AS day_latency
    FROM agent_daily_history FINAL
    WHERE cityHash64(agent_key) % 8 = 6 AND day > toDate(now64(3, 'UTC'), 'UTC') - 90
    GROUP BY checker_version, agent_key
) AS h ON h.checker_version = l.checker_version AND h.agent_key = l.agent_key
LEFT JOIN (
    SELECT checker_version, agent_key, groupArray(observed_at) AS recent_at, groupArray(uptime) AS recent_uptime, arrayMap(t -> t.1, groupArray(tuple(latency_ms))) AS recent_latency
    FROM checks FINAL
    WHERE cityHash64(agent_key) % 8 = 6 AND observed_at > now64(3, 'UTC') - INTERVAL 24 HOUR
    GROUP BY checker_version, agent_key
) AS r ON r.checker_version = l.checker_version AND r.agent_key = l.agent_key;
INSERT INTO agent_status
    (checker_version, agent_key, agent_id, protocol, latest_at, latest_uptime, latest_result,
     days, day_checks, day_up, day_judged, day_latency, recent_at, recent_uptime, recent_latency, computed_at)
SELECT l.checker_version, l.agent_key, l.agent_id, l.protocol, l.observed_at, l.uptime, l.result,
       h.days, h.day_checks, h.day_up, h.day_judged, h.day_latency, r.recent_at, r.recent_uptime, r.recent_latency, now64(3, 'UTC')
FROM (SELECT checker_version, agent_key, agent_id, protocol, observed_at, uptime, result FROM agent_latest FINAL WHERE cityHash64(agent_key) % 8 = 7) AS l
LEFT JOIN (
    SELECT checker_version, agent_key, groupArray(day) AS days, groupArray(checks) AS day_checks, groupArray(up) AS day_up,
           groupArray(up + down) AS day_judged, groupArray(latency_digest) AS day_latency
    FROM agent_daily_history FINAL
    WHERE cityHash64(agent_key) % 8 = 7 AND day > toDate(now64(3, 'UTC'), 'UTC') - 90
    GROUP BY checker_version, agent_key
) AS h ON h.checker_version = l.checker_version AND h.agent_key = l.agent_key
LEFT JOIN (
    SELECT checker_version, agent_key, groupArray(observed_at) AS recent_at, groupArray(uptime) AS recent_uptime, arrayMap(t -> t.1, groupArray(tuple(latency_ms))) AS recent_latency
    FROM checks FINAL
    WHERE cityHash64(agent_key) % 8 = 7 AND observed_at > now64(3, 'UTC') - INTERVAL 24 HOUR
    GROUP BY checker_version, agent_key
) AS r ON r.checker_version = l.checker_version AND r.agent_key = l.agent_key;
