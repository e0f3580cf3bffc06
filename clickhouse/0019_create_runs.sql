-- runs: start and finish of every run (the `runs` topic): kind (crawl | daily | replay),
-- budget, the sampling seed, counts, and whether the run completed. Statistics use it to
-- tell a finished run from one still in progress. One row per (run_id, phase). No TTL.
CREATE TABLE IF NOT EXISTS runs
(
    run_id      String,
    phase       LowCardinality(String),
    kind        LowCardinality(String),
    observed_at DateTime64(3, 'UTC'),
    event_id    String,
    budget      Nullable(UInt32),
    sample_size Nullable(UInt32),
    seed        String,
    counts      Map(String, Int64),
    complete    UInt8,
    note        String
)
ENGINE = ReplacingMergeTree(observed_at)
ORDER BY (run_id, phase)
COMMENT 'Run start/finish events with budget, seed and counts; one row per (run_id, phase); no TTL';
