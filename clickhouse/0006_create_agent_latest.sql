-- agent_latest: each agent's latest check and verdict, per checker version. The
-- judge processor inserts one row per judged probe (or refreshAgentLatest in
-- src/warehouse/rollups.ts rebuilds it from checks and verdicts);
-- ReplacingMergeTree(observed_at) keeps the newest observation, so a replayed or late
-- older event never replaces a newer one and re-inserting is harmless. No TTL: an
-- agent last probed long ago keeps its latest row after checks and verdicts expire.
CREATE TABLE IF NOT EXISTS agent_latest
(
    checker_version LowCardinality(String),
    agent_key       String,
    agent_id        String,
    protocol        LowCardinality(String),
    source          LowCardinality(String),
    event_id        String,
    observed_at     DateTime64(3, 'UTC'),
    uptime          LowCardinality(String),
    reason          LowCardinality(String),
    http_status     Nullable(UInt16),
    latency_ms      Nullable(UInt32),
    in_sample       UInt8,
    our_side        UInt8,
    suite_id        LowCardinality(String),
    suite_version   LowCardinality(String),
    result          LowCardinality(String),
    reasons         Array(String),
    warnings        Array(String),
    a2a_version     LowCardinality(String),
    a2a_route       LowCardinality(String),
    signature       String
)
ENGINE = ReplacingMergeTree(observed_at)
ORDER BY (checker_version, agent_key)
COMMENT 'Latest check + verdict per (checker_version, agent_key); ReplacingMergeTree(observed_at); no TTL';
