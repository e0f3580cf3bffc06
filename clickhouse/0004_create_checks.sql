-- checks: one row per probe, judged by the checks/verdicts processor: the uptime state
-- (up | down | unknown | skipped) and why, HTTP status, latency, whether the agent was
-- in the day's uniform random sample, and whether a failure was on our side (canary).
-- Uptime is classified by the checker, so a row is per (event, checker_version): a replay
-- under a new version writes its own rows beside the old. Deduplicated by (event id,
-- checker version) (the key ends with them; agent_key and observed_at are fixed by the event). TTL 90 days: rows leave when their part merges, so always read with
-- FINAL and do not rely on old rows being gone. The forever-kept history is in
-- daily_rollups, agent_daily_history and agent_latest.
CREATE TABLE IF NOT EXISTS checks
(
    event_id        String,
    checker_version LowCardinality(String),
    agent_key   String,
    agent_id    String,
    protocol    LowCardinality(String),
    run_id      String,
    observed_at DateTime64(3, 'UTC'),
    uptime      LowCardinality(String),
    reason      LowCardinality(String),
    http_status Nullable(UInt16),
    latency_ms  Nullable(UInt32),
    in_sample   UInt8,
    our_side    UInt8,
    source      LowCardinality(String),
    CONSTRAINT checks_uptime CHECK uptime IN ('up', 'down', 'unknown', 'skipped')
)
ENGINE = ReplacingMergeTree
PARTITION BY toYYYYMM(observed_at)
ORDER BY (agent_key, observed_at, event_id, checker_version)
TTL observed_at + INTERVAL 90 DAY
COMMENT 'One row per probe: uptime state, reason, status, latency, sample flags; deduplicated by event id; TTL 90 days';
