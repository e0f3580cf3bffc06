-- daily_rollups: per UTC day, protocol, source and checker version, the number of
-- checks by uptime state and by verdict, and the same counts for the uniform random
-- sample only (for Wilson intervals). Kept forever.
--
-- Idempotency: a replay of old events must not count twice, and rows already past
-- their TTL are dropped at insert while a materialized view would still count them.
-- So there is no materialized view and no summing: refreshDailyRollups
-- (src/warehouse/rollups.ts) recomputes whole-day totals with INSERT ... SELECT from
-- checks FINAL joined to verdicts FINAL (each event counted once), and this
-- ReplacingMergeTree(computed_at) keeps the newest totals per key. Recomputing gives
-- the same numbers however often events were delivered. Only days whose raw rows are
-- all still inside the 90-day TTL are recomputed, so a day whose raw rows have
-- expired keeps the totals computed while they existed.
CREATE TABLE IF NOT EXISTS daily_rollups
(
    day                    Date,
    protocol               LowCardinality(String),
    source                 LowCardinality(String),
    checker_version        LowCardinality(String),
    checks                 UInt32,
    up                     UInt32,
    down                   UInt32,
    unknown                UInt32,
    skipped                UInt32,
    pass                   UInt32,
    fail                   UInt32,
    unknown_verdict        UInt32,
    na                     UInt32,
    sample_checks          UInt32,
    sample_up              UInt32,
    sample_down            UInt32,
    sample_unknown         UInt32,
    sample_skipped         UInt32,
    sample_pass            UInt32,
    sample_fail            UInt32,
    sample_unknown_verdict UInt32,
    sample_na              UInt32,
    computed_at            DateTime64(3, 'UTC')
)
ENGINE = ReplacingMergeTree(computed_at)
ORDER BY (day, protocol, source, checker_version)
COMMENT 'Daily totals per (day, protocol, source, checker_version), with sample-only counts; recomputed whole-day, ReplacingMergeTree(computed_at); kept forever';
