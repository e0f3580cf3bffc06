-- census_totals: the census (every active, unhidden agent's latest check and verdict,
-- counted) per checker version, so /stats/census and the dashboard read one row
-- instead of counting the whole index per request (issue 16). Recomputed from agents
-- and agent_latest by refreshCensus (src/warehouse/rollups.ts): when a checker version
-- is pinned after its verdict processor caught up (a daily run, a replay), and by the
-- verdict processor at most every CENSUS_REFRESH_INTERVAL_MS while it writes.
-- as_of is the newest latest-state observation counted. Newest computed_at wins.
CREATE TABLE IF NOT EXISTS census_totals
(
    checker_version LowCardinality(String),
    active          UInt32,
    inactive        UInt32,
    up              UInt32,
    down            UInt32,
    unknown         UInt32,
    skipped         UInt32,
    pass            UInt32,
    fail            UInt32,
    unknown_verdict UInt32,
    na              UInt32,
    never           UInt32,
    as_of           Nullable(DateTime64(3, 'UTC')),
    computed_at     DateTime64(3, 'UTC')
)
ENGINE = ReplacingMergeTree(computed_at)
ORDER BY checker_version
COMMENT 'Census of latest states per checker version, recomputed whole; ReplacingMergeTree(computed_at); no TTL';
