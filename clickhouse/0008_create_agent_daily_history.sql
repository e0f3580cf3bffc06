-- agent_daily_history: per agent and UTC day, the number of checks by uptime state and
-- the latency of the checks that answered (p50, p95, and a t-digest state so windows of
-- 7, 30 and 90 days can merge the days' latencies exactly as one sample would).
-- Kept forever. Filled like daily_rollups (same idempotency argument): whole-day
-- totals recomputed from checks FINAL by refreshAgentDailyHistory, newest computed_at wins.
CREATE TABLE IF NOT EXISTS agent_daily_history
(
    checker_version LowCardinality(String),
    agent_key      String,
    day            Date,
    agent_id       String,
    protocol       LowCardinality(String),
    checks         UInt32,
    up             UInt32,
    down           UInt32,
    unknown        UInt32,
    skipped        UInt32,
    sample_checks  UInt32,
    sample_up      UInt32,
    latency_p50_ms Nullable(UInt32),
    latency_p95_ms Nullable(UInt32),
    latency_digest AggregateFunction(quantileTDigest, UInt32),
    computed_at    DateTime64(3, 'UTC')
)
ENGINE = ReplacingMergeTree(computed_at)
ORDER BY (checker_version, agent_key, day)
COMMENT 'Per-agent daily uptime counts and latency (p50, p95, t-digest state); recomputed whole-day, ReplacingMergeTree(computed_at); kept forever';
